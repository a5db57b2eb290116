/**
 * A tool-calling agent: for each question it calls an external HTTP "tool" and completes with the
 * tool's answer. It shows how a handler waits on slow outside work and stays cancelable.
 *
 *   TOOL_URL=http://127.0.0.1:8090/lookup npx tsx src/cli/main.ts serve examples/tool-agent.ts --store memory
 *
 * The tool contract: `POST <TOOL_URL>` with `{"question": "..."}`, answering 200 with
 * `{"answer": "..."}`; any other status is an error, its body's `error` field (if any) the reason.
 *
 * - While it waits the agent reports `status('calling tool…')`, so pollers and streams see why
 *   the task is still `working`.
 * - The request carries `ctx.signal`: a cancel aborts the outstanding fetch (the tool sees the
 *   connection close and can stop its own work) and the task ends `canceled`.
 * - A tool that fails, cannot be reached or takes longer than `TOOL_TIMEOUT_MS` fails the task
 *   with a message that says which, so the client knows what went wrong.
 */
import { defineAgent, type AgentDefinition } from '../src/index.js';

export interface ToolAgentOptions {
  /** Where the tool listens. Default: `TOOL_URL`, else http://127.0.0.1:8090/lookup. */
  toolUrl?: string;
  /** How long one tool call may take, in ms. Default: `TOOL_TIMEOUT_MS`, else 10000. */
  timeoutMs?: number;
}

/** The longest piece of a tool's error text passed on to the client. */
const MAX_REASON = 200;

export function createToolAgent(options: ToolAgentOptions = {}): AgentDefinition {
  const toolUrl = options.toolUrl ?? process.env.TOOL_URL ?? 'http://127.0.0.1:8090/lookup';
  const timeoutMs = options.timeoutMs ?? Number(process.env.TOOL_TIMEOUT_MS ?? 10_000);

  return defineAgent({
    card: {
      name: 'Tool Agent',
      description: 'Answers questions by calling an HTTP tool; cancel aborts the call.',
      version: '1.0.0',
      skills: [{ id: 'lookup', name: 'Lookup', description: 'Asks the lookup tool', tags: ['tools'], examples: ['capital of France'] }],
    },
    capabilities: { streaming: true, pushNotifications: true },
    async handler(ctx) {
      const question = ctx.text.trim();
      if (!question) return ctx.requestInput('What should I look up?');
      ctx.status('calling tool…');

      // Two reasons to give up on the call: the client cancels (ctx.signal), or the tool is too
      // slow. One combined signal aborts the request, including reading its body, in both cases.
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([ctx.signal, timeout]);
      let status: number;
      let text: string;
      try {
        const res = await fetch(toolUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ question }),
          signal,
        });
        status = res.status;
        text = await res.text();
      } catch (err) {
        // Canceled: return and the server ends the task `canceled`. Checked first, since a cancel
        // and a timeout may both have fired by now and the client's wish wins.
        if (ctx.signal.aborted) return;
        if (timeout.aborted) return ctx.fail(`The tool did not answer within ${timeoutMs} ms.`);
        // The cause names the network error (ECONNREFUSED, …) without the tool's address, which
        // is internal and none of the client's business.
        const cause =
          err instanceof Error && err.cause instanceof Error ? ` (${(err.cause as NodeJS.ErrnoException).code ?? err.cause.message})` : '';
        return ctx.fail(`The tool could not be reached${cause}.`);
      }

      const field = (name: string): unknown => {
        const body: unknown = parseJson(text);
        return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
      };
      if (status !== 200) {
        const reason = field('error');
        return ctx.fail(`The tool failed (HTTP ${status})${typeof reason === 'string' ? `: ${reason.slice(0, MAX_REASON)}` : '.'}`);
      }
      const answer = field('answer');
      if (typeof answer !== 'string') return ctx.fail('The tool answered without an "answer" text.');
      ctx.complete(answer);
    },
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export default createToolAgent();
