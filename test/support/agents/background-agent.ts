/**
 * An agent whose handler emits an artifact, continues in the background and returns, as the A2A
 * conformance kit's reference agent does: the task stays `working` with no turn running. What it
 * left running is handed to the test (`backgroundWork`), which ends the task through the same
 * context when it chooses, so no test waits on a timer. The server runs in the test's process.
 */
import { defineAgent, type AgentContext } from '../../../src/index.js';

export interface BackgroundWork {
  /** The handler's context, still live after the handler returned. */
  readonly ctx: AgentContext;
  /** Resolves when `ctx.signal` fires (a cancel, or the server shutting down). */
  readonly aborted: Promise<void>;
}

const work = new Map<string, BackgroundWork>();

/** The work the handler left running for `taskId` (undefined until its handler has run). */
export const backgroundWork = (taskId: string): BackgroundWork | undefined => work.get(taskId);

export default defineAgent({
  card: {
    name: 'Background Agent',
    description: 'Leaves each new task working and finishes it from the background.',
    version: '1.0.0',
    skills: [{ id: 'background', name: 'Background', description: 'rest, throw', tags: ['test'] }],
  },
  capabilities: { streaming: true },
  async handler(ctx) {
    ctx.artifact({ artifactId: 'started', parts: [{ kind: 'text', text: `started: ${ctx.text}` }] });
    ctx.continueInBackground();
    // Calling it does not end the turn: the handler may still report before it returns.
    ctx.status('handed over to the background');
    const { signal } = ctx;
    const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    work.set(ctx.taskId, { ctx, aborted });
    await Promise.resolve();
    if (ctx.text === 'throw') throw new Error('the handler threw after continuing in the background');
  },
});
