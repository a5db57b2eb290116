/**
 * The scenario agent's commands behind bearer authentication, for two users:
 *
 *   Authorization: Bearer alice-token   -> principal `alice`
 *   Authorization: Bearer bob-token     -> principal `bob`
 *
 * plus `whoami`, which completes naming the caller. Each caller sees only its own tasks.
 *
 *   npx a2actor serve examples/auth-agent.ts
 *   curl -s localhost:8080/ -H 'Authorization: Bearer alice-token' -H 'Content-Type: application/json' \
 *     -d '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m1","parts":[{"kind":"text","text":"whoami"}]}}}'
 */
import { bearerAuth, defineAgent } from '../src/index.js';
import scenario from './scenario-agent.js';

export default defineAgent({
  ...scenario,
  card: {
    ...scenario.card,
    name: 'Authenticated Scenario Agent',
    description: 'The scenario agent for signed-in callers; `whoami` names the caller.',
    skills: [
      ...scenario.card.skills,
      { id: 'whoami', name: 'Who am I', description: 'Completes naming the caller', tags: ['auth'], examples: ['whoami'] },
    ],
  },
  auth: bearerAuth({ tokens: { 'alice-token': 'alice', 'bob-token': 'bob' } }),
  // With auth on, the extended card needs the same credentials as everything else.
  extendedCard: (_request, card) => card,
  async handler(ctx) {
    if (ctx.text.trim() === 'whoami' && ctx.history.length === 1) return ctx.complete(`you are ${ctx.principal?.id ?? 'nobody'}`);
    return scenario.handler(ctx);
  },
});
