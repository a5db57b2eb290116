/**
 * An agent that declares extensions and negotiates output, for test/e2e/extensions.test.ts. It
 * reports what it saw of the request (`ctx.extensions`, `ctx.acceptedOutputModes`, the
 * message's `extensions`) and puts extension data in the `metadata` of what it emits:
 *
 * - `report`: an artifact `report` (a JSON text of what it saw), then completes with `done`;
 *   with the trace extension activated both carry trace metadata and list the extension.
 * - `direct`: a direct reply (a Message) with trace metadata and extensions.
 * - `ask`: input-required, its question carrying trace metadata and extensions.
 * - `chart`: a PNG artifact if the client accepts one, else the chart as text (converted).
 * - `png-anyway`: a PNG artifact whatever the client accepts.
 * - `png-caught`: tries a PNG, catches the refusal, and sends text instead.
 * - `data`: completes with a data part (application/json).
 */
import { defineAgent, isA2AError, type AgentContext, type AgentDefinition, type AgentExtension } from '../../../src/index.js';

export const TRACE = 'https://example.com/ext/trace/v1';
export const CITATIONS = 'https://example.com/ext/citations/v1';
export const SIGNED = 'https://example.com/ext/signed-requests/v1';

/** A 1x1 PNG's first bytes are enough: nobody decodes it. */
const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
const pngPart = { kind: 'file' as const, file: { name: 'chart.png', mimeType: 'image/png', bytes: PNG } };

/** Trace data and the extension's URI, only when the request activated the trace extension. */
const traced = (ctx: AgentContext) =>
  ctx.extensions.includes(TRACE) ? { metadata: { [TRACE]: { traceId: `trace-of-${ctx.taskId}` } }, extensions: [TRACE] } : {};

async function handler(ctx: AgentContext): Promise<void> {
  switch (ctx.text) {
    case 'report': {
      const seen = {
        extensions: ctx.extensions,
        acceptedOutputModes: ctx.acceptedOutputModes,
        messageExtensions: ctx.message.extensions ?? null,
        accepts: { png: ctx.accepts('image/png'), html: ctx.accepts('text/html'), json: ctx.accepts('application/json') },
        frozen: Object.isFrozen(ctx.extensions) && Object.isFrozen(ctx.acceptedOutputModes),
      };
      ctx.artifact({ artifactId: 'report', parts: [{ kind: 'text', text: JSON.stringify(seen) }], ...traced(ctx) });
      ctx.complete({ parts: [{ kind: 'text', text: 'done' }], ...traced(ctx) });
      return;
    }
    case 'direct':
      ctx.reply({ parts: [{ kind: 'text', text: 'directly' }], ...traced(ctx) });
      return;
    case 'ask':
      ctx.requestInput({ parts: [{ kind: 'text', text: 'which one?' }], ...traced(ctx) });
      return;
    case 'chart':
      if (ctx.accepts('image/png')) ctx.artifact({ artifactId: 'chart', parts: [pngPart] });
      else ctx.artifact({ artifactId: 'chart', parts: [{ kind: 'text', text: 'chart: up and to the right' }] });
      ctx.complete();
      return;
    case 'png-anyway':
      ctx.artifact({ artifactId: 'chart', parts: [pngPart] });
      ctx.complete('unreachable when PNG is refused');
      return;
    case 'png-caught':
      try {
        ctx.artifact({ artifactId: 'chart', parts: [pngPart] });
      } catch (err) {
        const code = isA2AError(err) ? err.entry.code : 'not an A2AError';
        ctx.artifact({ artifactId: 'chart', parts: [{ kind: 'text', text: `converted after ${code}` }] });
      }
      ctx.complete();
      return;
    case 'data':
      ctx.complete([{ kind: 'data', data: { answer: 42 } }]);
      return;
    default:
      ctx.complete(`unknown command ${ctx.text}`);
  }
}

const DECLARED: AgentExtension[] = [
  { uri: TRACE, description: 'Trace ids in metadata', params: { header: 'traceparent' } },
  { uri: CITATIONS },
];

/** The agent; with `required`, the SIGNED extension is declared required as well. */
export function extensionsAgent(opts: { required?: boolean } = {}): AgentDefinition {
  return defineAgent({
    card: {
      name: 'Extensions Agent',
      description: 'Reports the extensions and output modes it was asked for.',
      version: '1.0.0',
      skills: [{ id: 'report', name: 'Report', description: 'report, direct, ask, chart, png-anyway, png-caught, data', tags: ['test'] }],
      defaultOutputModes: ['text/plain', 'image/png', 'application/json'],
    },
    capabilities: {
      streaming: true,
      extensions: opts.required ? [...DECLARED, { uri: SIGNED, description: 'Requests are signed', required: true }] : DECLARED,
    },
    handler,
  });
}
