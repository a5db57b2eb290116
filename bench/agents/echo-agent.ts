/**
 * The bench's echo agent: one text artifact with the user's text, then `completed`. The peer
 * runs the same behaviour (bench/peer/echo-executor.ts), so both servers do the same work per
 * task and the numbers compare the servers, not the agents.
 */
import { defineAgent } from '../../src/index.js';

export default defineAgent({
  card: {
    name: 'Bench Echo Agent',
    description: 'Answers every message with one artifact holding its text.',
    version: '1.0.0',
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes the text it receives', tags: ['echo'] }],
  },
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
  handler(ctx) {
    ctx.artifact({ artifactId: 'echo', name: 'echo', parts: [{ kind: 'text', text: ctx.text }], lastChunk: true });
    ctx.complete();
  },
});
