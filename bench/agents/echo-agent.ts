/**
 * The bench's echo agent: one text artifact with the user's text, then `completed`. The peers
 * run the same behaviour (bench/peer/echo-executor.ts on 0.3.14, bench/peer/echo-executor-v1.ts
 * on 1.3.0), so every server does the same work per task and the numbers compare the servers,
 * not the agents.
 *
 * Three commands serve the memory workloads (W9's paused tasks, the soak's mix); any other text
 * is echoed, so the request-path workloads pay one character comparison for them:
 *   ask <q>       input-required with <q> as its question; the follow-up completes, echoed
 *   stream <n>    n chunks of one artifact, 10 ms apart, then completed (ours only)
 *   slow <ms>     a status every 100 ms for <ms>, then completed; ends at once when canceled (ours only)
 */
import { defineAgent, pause, type AgentContext } from '../../src/index.js';

const count = (word: string | undefined, fallback: number, max: number): number => {
  const n = Number(word);
  return Number.isInteger(n) && n > 0 ? Math.min(n, max) : fallback;
};

const echo = (ctx: AgentContext, text: string): void => {
  ctx.artifact({ artifactId: 'echo', name: 'echo', parts: [{ kind: 'text', text }], lastChunk: true });
  ctx.complete();
};

async function stream(ctx: AgentContext, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    if (ctx.signal.aborted) return;
    ctx.artifact({
      artifactId: 'stream',
      name: 'stream',
      parts: [{ kind: 'text', text: `chunk ${i}\n` }],
      append: i > 1,
      lastChunk: i === n,
    });
    if (i < n) await pause(10, ctx.signal);
  }
  ctx.complete();
}

async function slow(ctx: AgentContext, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (ctx.signal.aborted) return;
    ctx.status(`working… ${end - Date.now()} ms left`);
    await pause(Math.min(100, end - Date.now()), ctx.signal);
  }
  if (!ctx.signal.aborted) ctx.complete();
}

/** `ask`, `stream` and `slow` all start with a letter the echo text never does ('h'). */
const COMMAND_INITIALS = new Set(['a', 's']);

export default defineAgent({
  card: {
    name: 'Bench Echo Agent',
    description: 'Answers every message with one artifact holding its text.',
    version: '1.0.0',
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes the text it receives', tags: ['echo'] }],
  },
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
  handler(ctx) {
    const text = ctx.text;
    // A follow-up of a paused task (`ask`) completes it with its text.
    if (!COMMAND_INITIALS.has(text[0] ?? '') || ctx.history.length > 1) return echo(ctx, text);
    const [command, arg] = text.split(' ', 2);
    if (command === 'ask') return ctx.requestInput(arg ?? 'What next?');
    if (command === 'stream') return stream(ctx, count(arg, 5, 1000));
    if (command === 'slow') return slow(ctx, count(arg, 300, 60_000));
    return echo(ctx, text);
  },
});
