/**
 * Fuzzing what authentication parses (fast-check, fixed seed, bounded runs; FUZZ_RUNS raises
 * the count): the credential readers on their own, then arbitrary `Authorization` and
 * `X-API-Key` bytes sent raw to a real server with auth on. Whatever arrives is a 401 (or the
 * HTTP layer's 400 for bytes a header may not hold), never a 5xx, a hang or a crash, and never
 * someone else's tasks.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import authAgent from '../../examples/auth-agent.js';
import { bearerToken, credentialHeader, staticCredentials } from '../../src/auth/credentials.js';
import { userMessage, type Json } from '../support/a2a.js';
import { ALICE } from '../support/auth-calls.js';
import { parseResponses, rawExchange, rawRequest } from '../support/raw-http.js';
import { startServer, type TestServer } from '../support/server.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? '300');
const SEED = 20_261_124;

/** Header values as clients (and attackers) write them: near-misses of the real thing, and noise. */
const headerValue = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc
    .tuple(
      fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', 'Token', 'Bearer:', ''),
      fc.constantFrom(' ', '  ', '\t', ''),
      fc.string({ maxLength: 80 }),
    )
    .map(([scheme, space, rest]) => `${scheme}${space}${rest}`),
  fc.constantFrom(
    'Bearer alice-token ',
    'Bearer alice-tokenX',
    'Bearer alice-toke',
    'Bearer ALICE-TOKEN',
    'Bearer alice-token, Bearer bob-token',
  ),
  fc.integer({ min: 1000, max: 70_000 }).map((n) => `Bearer ${'a'.repeat(n)}`),
);

describe('credential readers, on their own', () => {
  it('never throw, and read a bearer token only from a well-formed header', () => {
    const known = staticCredentials({ 'alice-token': 'alice' });
    fc.assert(
      fc.property(headerValue, (value) => {
        const token = bearerToken(value);
        if (token !== undefined) {
          expect(token).toMatch(/^[A-Za-z0-9\-._~+/]+=*$/);
          expect(value.toLowerCase().startsWith('bearer ')).toBe(true);
        }
        expect(() => credentialHeader({ 'x-api-key': value }, 'x-api-key')).not.toThrow();
        const who = token === undefined ? undefined : known(token);
        if (who) expect(token).toBe('alice-token');
      }),
      { numRuns: RUNS * 5, seed: SEED },
    );
  });
});

describe('static credentials', () => {
  const secretText = fc.oneof(
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
    // Around the size where the comparison switches from padded bytes to hashes.
    fc.integer({ min: 250, max: 262 }).chain((n) => fc.string({ minLength: n, maxLength: n, unit: 'binary-ascii' })),
  );

  it('answer the principal of exactly the given secret, whatever the secrets and their lengths', () => {
    fc.assert(
      fc.property(fc.uniqueArray(secretText, { minLength: 1, maxLength: 4 }), fc.nat(), secretText, (secrets, pick, other) => {
        const table = Object.fromEntries(secrets.map((secret, i) => [secret, `p${i}`]));
        const check = staticCredentials(table);
        const chosen = secrets[pick % secrets.length] as string;
        expect(check(chosen)?.id).toBe(table[chosen]);
        // Near misses of a known secret: one character more, one less, and another secret.
        expect(check(`${chosen}x`)?.id).toBe(table[`${chosen}x`]);
        expect(check(chosen.slice(0, -1))?.id).toBe(chosen.length > 1 ? table[chosen.slice(0, -1)] : undefined);
        expect(check(other)?.id).toBe(Object.hasOwn(table, other) ? table[other] : undefined);
      }),
      { numRuns: RUNS * 3, seed: SEED },
    );
  });

  it('tell a secret from the same bytes padded with NULs, and compare long secrets by their whole text', () => {
    const check = staticCredentials({ ab: 'short', 'ab\u0000': 'nul', ['k'.repeat(256)]: 'fits', ['k'.repeat(300)]: 'long' });
    expect(check('ab')?.id).toBe('short');
    expect(check('ab\u0000')?.id).toBe('nul');
    expect(check('ab\u0000\u0000')).toBeUndefined();
    expect(check('k'.repeat(256))?.id).toBe('fits');
    expect(check('k'.repeat(300))?.id).toBe('long');
    expect(check('k'.repeat(257))).toBeUndefined();
    expect(check('k'.repeat(299))).toBeUndefined();
    expect(check('ab'.padEnd(10_000, 'b'))).toBeUndefined();
  });
});

describe('Authorization and X-API-Key bytes through a real server', () => {
  let server: TestServer;
  let aliceTask: Json;
  beforeAll(async () => {
    server = await startServer({ agent: authAgent });
    const res = await fetch(`${server.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...ALICE },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: userMessage('ask kept?') } }),
    });
    aliceTask = ((await res.json()) as Json).result;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('are answered 401 (or 400 for bytes no header may hold) on both transports, and alice is unaffected', async () => {
    // The scheme name is case-insensitive; the token is not.
    const exactlyAlice = (v: string) => /^[Bb][Ee][Aa][Rr][Ee][Rr] +alice-token *$/.test(v.replace(/^[ \t]+|[ \t]+$/g, ''));
    await fc.assert(
      fc.asyncProperty(
        headerValue.filter((v) => !/[\r\n]/.test(v)),
        fc.constantFrom('authorization', 'x-api-key'),
        fc.constantFrom('rpc', 'rest'),
        async (value, name, transport) => {
          const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tasks/get', params: { id: aliceTask.id } });
          const request =
            transport === 'rpc'
              ? rawRequest(
                  'POST',
                  '/',
                  [
                    ['Content-Type', 'application/json'],
                    ['Content-Length', String(Buffer.byteLength(body))],
                    [name, value],
                    ['Connection', 'close'],
                  ],
                  body,
                )
              : rawRequest('GET', `/v1/tasks/${aliceTask.id}`, [
                  [name, value],
                  ['Connection', 'close'],
                ]);
          const exchange = await rawExchange(server.url, Buffer.from(request, 'utf8'), 3000);
          if (exchange.text === '') return; // The HTTP layer dropped bytes it cannot parse.
          const [answer] = parseResponses(exchange.text);
          expect(answer).toBeDefined();
          const status = answer!.status;
          if (name === 'authorization' && exactlyAlice(value)) {
            expect(status).toBe(200);
            return;
          }
          expect([400, 401], `${name}: ${JSON.stringify(value.slice(0, 80))} -> ${status}`).toContain(status);
          expect(answer!.body).not.toContain('"kind":"task"');
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    // Alive, and alice's task is exactly as it was.
    const res = await fetch(`${server.url}/v1/tasks/${aliceTask.id}`, { headers: ALICE });
    expect(res.status).toBe(200);
    const now = (await res.json()) as Json;
    expect(now.status).toEqual(aliceTask.status);
    expect(now.history).toEqual(aliceTask.history);
  });
});
