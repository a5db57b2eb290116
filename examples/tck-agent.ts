/**
 * The reference agent for the official A2A conformance kit (a2aproject/a2a-tck, v1.0 line):
 * `test/conformance/tck.sh` serves it and runs the kit against it. It behaves like the kit's own
 * reference SUT (a2a-java's `tck` module, "fire and forget"), which is what the kit's tests
 * are written against:
 *
 *   every message      a task (never a direct Message) that answers with an echo artifact
 *                      (`echo`: the message's text, or a line per file/data part) and then stays
 *                      `working` until it is canceled: cancel, subscribe, push-config and
 *                      list-by-state tests all need a task that is still running, and the kit's
 *                      ListTasks helper waits for `TASK_STATE_WORKING`
 *   messageId test-subscribe-message-id* (and the older test-resubscribe-message-id*)
 *                      also a bare `working` status every 500 ms, in the background, for
 *                      2 x TCK_STREAMING_TIMEOUT + 1 s (5 s by default), so a subscriber that
 *                      attaches after the first event gets events; other tasks stay quiet (late
 *                      events of one task reach the kit's shared push webhook during the next test)
 *   follow-up message  (one on the task while it works in the background) a new turn: the old
 *                      work's signal fires, the text is appended to `echo`, the task keeps working
 *   cancel             the background work stops; the task ends `canceled`
 *
 * The kit's tests trigger nothing by text (no input-required, failure, direct-message, file or
 * data scenarios: the Python reference SUT always completes, the Java one always stays working),
 * so this agent has no text commands; file, data and raw parts are accepted and echoed.
 *
 * "Stays working after the handler answers" is `ctx.continueInBackground()`: the turn ends right
 * after the echo (a blocking send answers with the task `working` and its echo artifact, a stream
 * closes with a `working` status marked final) while `keepWorking` goes on in the background.
 */
import { defineAgent, pause, type AgentContext, type Part } from '../src/index.js';

const STREAMING_TIMEOUT_MS = 1000 * (Number(process.env.TCK_STREAMING_TIMEOUT) || 2);
const HEARTBEAT_MS = 500;
const SUBSCRIBE_LIVE_MS = 2 * STREAMING_TIMEOUT_MS + 1000;
const SUBSCRIBE_PREFIXES = ['test-subscribe-message-id', 'test-resubscribe-message-id'];

/** One line per part: text as it is, files and data described. */
function describe(part: Part): string {
  switch (part.kind) {
    case 'text':
      return part.text;
    case 'file': {
      const file = part.file;
      const what = 'bytes' in file ? `${Buffer.from(file.bytes, 'base64').length} bytes` : `uri ${file.uri}`;
      return `[file ${file.name ?? '(unnamed)'} ${file.mimeType ?? '(no media type)'}: ${what}]`;
    }
    case 'data':
      return `[data ${JSON.stringify(part.data)}]`;
  }
}

/** Resolves when the task is canceled (a pause as long as that would overflow node's timers). */
function untilCanceled(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * The task's work after the echo: a bare `working` status every HEARTBEAT_MS for `liveMs`, so
 * subscribers get events, then nothing until a cancel (or a follow-up) fires the signal.
 */
async function keepWorking(ctx: AgentContext, liveMs: number): Promise<void> {
  const liveUntil = Date.now() + liveMs;
  while (!ctx.signal.aborted && Date.now() < liveUntil) {
    ctx.status();
    await pause(HEARTBEAT_MS, ctx.signal);
  }
  await untilCanceled(ctx.signal);
}

export default defineAgent({
  card: {
    name: 'TCK Agent',
    description: 'The reference agent for the A2A conformance kit: echoes each message into a task that keeps working until canceled.',
    version: '1.0.0',
    documentationUrl: 'https://github.com/a2aproject/a2a-tck',
    defaultInputModes: ['text/plain', 'application/json', 'application/octet-stream'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'tck-echo',
        name: 'Echo, then keep working',
        description: 'Answers with an echo artifact and stays working until canceled',
        tags: ['tck', 'echo'],
        examples: ['hi', 'hello world'],
      },
    ],
  },
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: true },
  async handler(ctx) {
    const lines = ctx.message.parts.map(describe).filter((line) => line.length > 0);
    if (ctx.accepts('text/plain')) {
      ctx.artifact({
        artifactId: 'echo',
        name: 'echo',
        parts: [{ kind: 'text', text: lines.join('\n') || '(empty message)' }],
        // A follow-up message (a new turn on the working task) adds to the same artifact.
        append: ctx.history.length > 1 && ctx.artifacts.some((a) => a.artifactId === 'echo'),
      });
    }
    const subscribe = SUBSCRIBE_PREFIXES.some((prefix) => ctx.message.messageId.startsWith(prefix));
    ctx.continueInBackground();
    // The handler returns and the work runs on until a cancel (a status after the task ended may
    // throw: nothing to do then).
    void keepWorking(ctx, subscribe ? SUBSCRIBE_LIVE_MS : 0).catch(() => undefined);
  },
});
