/**
 * An agent with the bugs agent authors write, for the process-level tests (served by the real
 * CLI): `stray` leaves a rejected promise nobody handles, `timer-bomb` throws from a timer, and
 * anything else completes with an echo.
 */
import { defineAgent } from '../../../src/index.js';

export default defineAgent({
  card: {
    name: 'Unruly Agent',
    description: 'Misbehaves on purpose.',
    version: '1.0.0',
    skills: [{ id: 'unruly', name: 'Unruly', description: 'stray, timer-bomb, echo', tags: ['test'] }],
  },
  async handler(ctx) {
    if (ctx.text === 'stray') {
      // A fire-and-forget call whose failure nobody awaits.
      void Promise.reject(new Error('a stray promise the handler forgot'));
    } else if (ctx.text === 'timer-bomb') {
      setTimeout(() => {
        throw new Error('thrown from a timer the handler set');
      }, 10);
    }
    ctx.complete(`done: ${ctx.text}`);
  },
});
