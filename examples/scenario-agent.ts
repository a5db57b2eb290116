/**
 * A test agent driven by the first word of the user's text. Every behaviour the server must
 * handle has a command here; the end-to-end tests, the bench and the debug page use it.
 *
 *   echo <t> | anything   completes with text artifact `final-answer`
 *   direct <t>            replies with a direct Message (no task)
 *   ask <q>               input-required; a follow-up completes with `got: <text>`,
 *                         a follow-up starting with `ask` asks again
 *   auth                  auth-required; a follow-up completes
 *   fail <r> / reject <r> fails / rejects with that reason
 *   slow <ms>             a status message every 100 ms for <ms>, then completes; stops when cancelled
 *   stubborn <ms>         ignores cancellation for <ms>, then completes
 *   stream <n>            n chunks of artifact `stream` 10 ms apart, then completes
 *   data / file           completes with a data part / a file part (bytes)
 *   throw                 throws
 *   background [ms]       emits artifact `started` and returns with the task left working
 *                         (ctx.continueInBackground); completes <ms> later, or with no <ms>
 *                         stays working until cancelled
 */
import { bearerToken, defineAgent, pause, safeEqual, unauthenticated } from '../src/index.js';

const SCENARIO_TOKEN = 'scenario-token';
const number = (word: string | undefined, fallback: number, max: number) => {
  const n = Number(word);
  return Number.isFinite(n) && n >= 0 ? Math.min(n, max) : fallback;
};

export default defineAgent({
  card: {
    name: 'Scenario Agent',
    description: 'Drives every task path of the A2A protocol from the first word of your message.',
    version: '1.0.0',
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'scenarios',
        name: 'Scenarios',
        description: 'echo, direct, ask, auth, fail, reject, slow, stubborn, stream, data, file, throw, background',
        tags: ['test'],
        examples: ['echo hello', 'ask your name', 'stream 5'],
      },
    ],
  },
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: true },
  extendedCard(request, card) {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined || !safeEqual(token, SCENARIO_TOKEN)) throw unauthenticated('scenario');
    return {
      ...card,
      skills: [
        ...card.skills,
        { id: 'secret-scenarios', name: 'Secret scenarios', description: 'Only for authenticated callers', tags: ['extended'] },
      ],
    };
  },
  async handler(ctx) {
    const text = ctx.text.trim();
    const [command = '', ...rest] = text.split(/\s+/);
    const arg = rest.join(' ');
    const isFollowUp = ctx.history.length > 1;

    if (isFollowUp) {
      if (command === 'ask') return ctx.requestInput(arg || 'Tell me more?');
      return ctx.complete(`got: ${text}`);
    }
    switch (command) {
      case 'direct':
        return ctx.reply(arg || 'hello');
      case 'ask':
        return ctx.requestInput(arg || 'What should I do?');
      case 'auth':
        return ctx.requestAuth('Please sign in and send your token.');
      case 'fail':
        return ctx.fail(arg || 'failed on purpose');
      case 'reject':
        return ctx.reject(arg || 'rejected on purpose');
      case 'slow': {
        const end = Date.now() + number(rest[0], 500, 600_000);
        while (Date.now() < end) {
          if (ctx.signal.aborted) return;
          ctx.status(`working… ${Math.max(0, end - Date.now())} ms left`);
          await pause(Math.min(100, Math.max(0, end - Date.now())), ctx.signal);
        }
        if (ctx.signal.aborted) return;
        return ctx.complete(`slept ${rest[0] ?? 500} ms`);
      }
      case 'stubborn':
        await pause(number(rest[0], 500, 600_000));
        return ctx.complete('done, whatever you said');
      case 'stream': {
        const n = number(rest[0], 5, 10_000);
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
        return ctx.complete();
      }
      case 'data':
        return ctx.complete([{ kind: 'data', data: { answer: 42, items: ['a', 'b'] }, metadata: { mediaType: 'application/json' } }]);
      case 'file':
        return ctx.complete([
          { kind: 'file', file: { name: 'hello.txt', mimeType: 'text/plain', bytes: Buffer.from('hello file\n').toString('base64') } },
        ]);
      case 'throw':
        throw new Error('the scenario agent threw on purpose');
      case 'background': {
        ctx.artifact({ artifactId: 'started', parts: [{ kind: 'text', text: 'started' }] });
        ctx.continueInBackground();
        if (rest[0] === undefined) return;
        const ms = number(rest[0], 500, 600_000);
        // Not awaited: the turn ends now, and this finishes the task later (a cancel stops it).
        void pause(ms, ctx.signal).then(() => {
          if (!ctx.signal.aborted) ctx.complete(`finished in the background after ${ms} ms`);
        });
        return;
      }
      case 'echo':
        return ctx.complete(arg);
      default:
        return ctx.complete(text);
    }
  },
});
