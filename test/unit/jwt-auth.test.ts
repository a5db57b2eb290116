/**
 * jwtAuth against real tokens: keys generated here, key sets served over HTTP on 127.0.0.1 by
 * servers that count their hits and can be told to fail, stay silent or rotate keys. Every bad
 * token is refused (undefined, a 401), never thrown and never hung; only a key server that
 * cannot be reached while nothing was ever fetched is a 503, and no error carries the token.
 */
import { exportJWK, exportPKCS8, exportSPKI, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isA2AError } from '../../src/a2a/errors.js';
import { jwtAuth, type JwtAuthOptions } from '../../src/auth/jwt.js';
import type { AuthMethod, IncomingRequest, Principal } from '../../src/auth/types.js';
import { restStatus } from '../../src/protocol/error-status.js';
import { publicJwk, startJwksServer, type JwksMode, type JwksServer, type KeyPair } from '../support/jwks.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://agent.example';

const now = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits (up to 2 s) for `check` to hold, as for a refresh that runs in the background. */
async function eventually(check: () => boolean): Promise<void> {
  for (const until = Date.now() + 2000; !check(); await sleep(10)) if (Date.now() > until) throw new Error('never happened');
}
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const requestWith = (authorization?: string): IncomingRequest => ({
  method: 'POST',
  path: '/',
  headers: authorization === undefined ? {} : { authorization },
});

/** What authenticate answers for `Authorization: Bearer <token>`. */
const presenting = async (method: AuthMethod, token: string): Promise<Principal | undefined> =>
  method.authenticate(requestWith(`Bearer ${token}`));

/** The error authenticate rejects with (fails the test if it does not). */
async function failureOf(method: AuthMethod, token: string): Promise<unknown> {
  try {
    await method.authenticate(requestWith(`Bearer ${token}`));
  } catch (err) {
    return err;
  }
  throw new Error('authenticate did not reject');
}

/** Asserts a 503 `unavailable` that says nothing of the token. */
function expectKeyServerUnavailable(err: unknown, token: string): void {
  expect(isA2AError(err)).toBe(true);
  if (!isA2AError(err)) return;
  expect(err.entry.id).toBe('unavailable');
  expect(restStatus(err)).toBe(503);
  expect(err.message).toMatch(/key server \(JWKS\)/);
  for (const text of [err.message, String(err.stack), String(err.cause ?? ''), JSON.stringify(err), JSON.stringify(err.data ?? null)])
    expect(text).not.toContain(token);
}

/** A signed token: sub alice, our issuer and audience, five minutes to live, unless `claims` says otherwise. */
function sign(key: KeyPair, header: { alg: string; kid?: string }, claims: JWTPayload = {}): Promise<string> {
  const payload: JWTPayload = { sub: 'alice', iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 300, scope: 'tasks:read', ...claims };
  // `undefined` in `claims` removes the claim.
  for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
  return new SignJWT(payload).setProtectedHeader(header).sign(key.privateKey);
}

const servers: JwksServer[] = [];

/** A key server on 127.0.0.1 that counts the requests it gets and answers as `mode` says. */
async function jwksServer(keys: JWK[] = [], mode: JwksMode = 'ok'): Promise<JwksServer> {
  const server = await startJwksServer(keys, mode);
  servers.push(server);
  return server;
}

let rsa: KeyPair;
let ec: KeyPair;
let impostor: KeyPair;

beforeAll(async () => {
  [rsa, ec, impostor] = await Promise.all([generateKeyPair('RS256'), generateKeyPair('ES256'), generateKeyPair('RS256')]);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('jwtAuth with a JWKS URL', () => {
  let jwks: JwksServer;
  let auth: AuthMethod;
  const RSA = { alg: 'RS256', kid: 'rsa-1' };
  const EC = { alg: 'ES256', kid: 'ec-1' };

  beforeAll(async () => {
    jwks = await jwksServer([await publicJwk(rsa, 'rsa-1', 'RS256'), await publicJwk(ec, 'ec-1', 'ES256')]);
    auth = jwtAuth({ jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE });
  });

  it('an RS256 and an ES256 token give the subject as principal with the claims, from one fetch', async () => {
    expect(jwks.hits()).toBe(0); // nothing is fetched before the first token
    const iat = now();
    const principal = await presenting(auth, await sign(rsa, RSA, { iat, exp: iat + 300 }));
    expect(principal).toEqual({
      id: 'alice',
      claims: { sub: 'alice', iss: ISSUER, aud: AUDIENCE, iat, exp: iat + 300, scope: 'tasks:read' },
    });
    expect(await presenting(auth, await sign(ec, EC, { sub: 'bob' }))).toMatchObject({ id: 'bob', claims: { sub: 'bob' } });
    expect(jwks.hits()).toBe(1);
  });

  it('accepts a token naming our audience among others', async () => {
    expect((await presenting(auth, await sign(ec, EC, { aud: ['someone-else', AUDIENCE] })))?.id).toBe('alice');
  });

  it('tolerates 30 s of clock skew by default, for exp and nbf', async () => {
    expect((await presenting(auth, await sign(rsa, RSA, { exp: now() - 10 })))?.id).toBe('alice');
    expect((await presenting(auth, await sign(rsa, RSA, { nbf: now() + 10 })))?.id).toBe('alice');
  });

  it('clockTolerance sets the allowed skew', async () => {
    const strict = jwtAuth({ jwksUrl: jwks.url, clockTolerance: 0 });
    const lenient = jwtAuth({ jwksUrl: jwks.url, clockTolerance: 120 });
    const token = await sign(rsa, RSA, { exp: now() - 60 });
    expect(await presenting(strict, token)).toBeUndefined();
    expect((await presenting(lenient, token))?.id).toBe('alice');
  });

  const hs256 = async (secret: Uint8Array, kid = 'rsa-1') =>
    new SignJWT({ sub: 'alice', iss: ISSUER, aud: AUDIENCE, exp: now() + 300 }).setProtectedHeader({ alg: 'HS256', kid }).sign(secret);

  it.each<[string, () => Promise<string>]>([
    ['expired', () => sign(rsa, RSA, { exp: now() - 120 })],
    ['not yet valid (nbf in the future)', () => sign(rsa, RSA, { nbf: now() + 120 })],
    ['for another audience', () => sign(rsa, RSA, { aud: 'https://other-agent.example' })],
    ['without an audience', () => sign(rsa, RSA, { aud: undefined })],
    ['from another issuer', () => sign(rsa, RSA, { iss: 'https://evil.example' })],
    ['signed by another key under a known kid', () => sign(impostor, RSA)],
    ['signed with the EC key but claiming the RSA kid', () => sign(ec, { alg: 'ES256', kid: 'rsa-1' })],
    ['without a sub', () => sign(rsa, RSA, { sub: undefined })],
    ['with an empty sub', () => sign(rsa, RSA, { sub: '' })],
    ['with a sub that is not a string', () => sign(rsa, RSA, { sub: 42 as unknown as string })],
    ['without exp', () => sign(rsa, RSA, { exp: undefined })],
    [
      'with alg none',
      async () => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: 'alice', iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })}.`,
    ],
    [
      'with alg none and a kid and a signature copied from a real token',
      async () => {
        const real = (await sign(rsa, RSA)).split('.')[2];
        return `${b64url({ alg: 'none', kid: 'rsa-1' })}.${b64url({ sub: 'alice', iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })}.${real}`;
      },
    ],
    ['HS256 with the public JWK as secret', async () => hs256(new TextEncoder().encode(JSON.stringify(await exportJWK(rsa.publicKey))))],
    ['HS256 with a random secret', async () => hs256(crypto.getRandomValues(new Uint8Array(32)))],
    [
      'with a tampered payload',
      async () => {
        const [header, , signature] = (await sign(rsa, RSA)).split('.');
        return `${header}.${b64url({ sub: 'mallory', iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })}.${signature}`;
      },
    ],
    ['that is not a JWT', async () => 'abc.def.ghi'],
    ['of two parts', async () => 'abc.def'],
    ['with a header that is not JSON', async () => `${Buffer.from('{nope').toString('base64url')}.${b64url({ sub: 'alice' })}.c2ln`],
    ['with an unknown alg', async () => `${b64url({ alg: 'XX512', kid: 'rsa-1' })}.${b64url({ sub: 'alice' })}.c2ln`],
  ])('a token %s is refused, without an exception', async (_case, make) => {
    const token = await make();
    expect(await presenting(auth, token)).toBeUndefined();
  });

  it.each<[string, string | undefined]>([
    ['no Authorization header', undefined],
    ['an empty header', ''],
    ['a bare Bearer', 'Bearer'],
    ['Bearer and a space', 'Bearer '],
    ['another scheme', 'Basic YWxpY2U6c2VjcmV0'],
    ['a 60 KB token', `Bearer ${'a'.repeat(60 * 1024)}`],
    ['non-ASCII', 'Bearer eyJhbGciOiJSUzI1NiJ9.ü.x'],
    ['two tokens', 'Bearer abc def'],
    ['a control character', 'Bearer abc\u0000def'],
  ])('%s is refused at once, without a fetch', async (_case, header) => {
    const before = jwks.hits();
    const answer = auth.authenticate(requestWith(header));
    expect(answer).toBeUndefined(); // synchronously: not even a promise
    expect(jwks.hits()).toBe(before);
  });

  it('a custom principal function decides who the caller is', async () => {
    const byClient = jwtAuth({
      jwksUrl: jwks.url,
      principal: (claims) => (typeof claims.client_id === 'string' ? { id: `client:${claims.client_id}` } : undefined),
    });
    expect(await presenting(byClient, await sign(ec, EC, { sub: undefined, client_id: 'reporting-bot' }))).toEqual({
      id: 'client:reporting-bot',
    });
    expect(await presenting(byClient, await sign(ec, EC))).toBeUndefined();
  });

  it('a hundred bad tokens at once are all refused, none hangs', async () => {
    const bad = await sign(impostor, RSA);
    const answers = await Promise.all(Array.from({ length: 100 }, () => presenting(auth, bad)));
    expect(answers.every((a) => a === undefined)).toBe(true);
  });
});

describe('key rotation', () => {
  it('a new kid fetches the key set once (after the cooldown), then is served from the cache', async () => {
    const jwks = await jwksServer([await publicJwk(rsa, 'rsa-1', 'RS256')]);
    const auth = jwtAuth({ jwksUrl: jwks.url, audience: AUDIENCE, jwksCooldownMs: 300 });
    expect((await presenting(auth, await sign(rsa, { alg: 'RS256', kid: 'rsa-1' })))?.id).toBe('alice');
    expect(jwks.hits()).toBe(1);

    // The issuer rotates: it publishes a second key with a new kid and signs with it.
    const next = await generateKeyPair('ES256');
    jwks.keys.push(await publicJwk(next, 'ec-2', 'ES256'));
    const rotated = await sign(next, { alg: 'ES256', kid: 'ec-2' });

    // Right after a fetch, an unknown kid does not fetch again (anyone can send one).
    expect(await presenting(auth, rotated)).toBeUndefined();
    expect(jwks.hits()).toBe(1);

    await sleep(350);
    // Past the cooldown: several tokens with the new kid at once cause exactly one fetch, and pass.
    const first = await Promise.all([1, 2, 3].map(() => presenting(auth, rotated)));
    expect(first.map((p) => p?.id)).toEqual(['alice', 'alice', 'alice']);
    expect(jwks.hits()).toBe(2);

    // From now on both keys are served from the cache.
    for (let i = 0; i < 5; i++) {
      expect((await presenting(auth, await sign(next, { alg: 'ES256', kid: 'ec-2' }, { sub: `user-${i}` })))?.id).toBe(`user-${i}`);
      expect((await presenting(auth, await sign(rsa, { alg: 'RS256', kid: 'rsa-1' })))?.id).toBe('alice');
    }
    expect(jwks.hits()).toBe(2);
  });

  it('a kid the key server does not know is refused even after the refetch, and refetched at most once per cooldown', async () => {
    const jwks = await jwksServer([await publicJwk(rsa, 'rsa-1', 'RS256')]);
    const auth = jwtAuth({ jwksUrl: jwks.url, jwksCooldownMs: 300 });
    expect((await presenting(auth, await sign(rsa, { alg: 'RS256', kid: 'rsa-1' })))?.id).toBe('alice');
    const stranger = await sign(impostor, { alg: 'RS256', kid: 'unknown' });
    await sleep(350);
    for (let i = 0; i < 5; i++) expect(await presenting(auth, stranger)).toBeUndefined();
    expect(jwks.hits()).toBe(2);
  });

  it('a key the issuer withdrew stops working once the key set is refreshed', async () => {
    const jwks = await jwksServer([await publicJwk(rsa, 'rsa-1', 'RS256')]);
    const auth = jwtAuth({ jwksUrl: jwks.url, jwksMaxAgeMs: 200 });
    const token = await sign(rsa, { alg: 'RS256', kid: 'rsa-1' });
    expect((await presenting(auth, token))?.id).toBe('alice');
    jwks.keys.length = 0;
    jwks.keys.push(await publicJwk(ec, 'ec-1', 'ES256'));
    await sleep(250);
    // The request that finds the keys stale is answered from them; the refresh runs beside it.
    expect((await presenting(auth, token))?.id).toBe('alice');
    await eventually(() => jwks.hits() === 2);
    await sleep(50);
    expect(await presenting(auth, token)).toBeUndefined();
    expect(jwks.hits()).toBe(2);
  });
});

describe('a key server that fails', () => {
  const token = () => sign(rsa, { alg: 'RS256', kid: 'rsa-1' });

  it('unreachable (connection refused) with nothing fetched yet: a 503 that does not quote the token', async () => {
    const auth = jwtAuth({ jwksUrl: 'http://127.0.0.1:1/jwks.json', jwksTimeoutMs: 1000 });
    const jwt = await token();
    const started = Date.now();
    expectKeyServerUnavailable(await failureOf(auth, jwt), jwt);
    expect(Date.now() - started).toBeLessThan(1500);
    // Every attempt tries again (and fails the same way) rather than caching the failure.
    expectKeyServerUnavailable(await failureOf(auth, jwt), jwt);
  });

  it('never answering, with jwksTimeoutMs 300: a 503 after the timeout, well under 2 s', async () => {
    const jwks = await jwksServer([], 'silent');
    const auth = jwtAuth({ jwksUrl: jwks.url, jwksTimeoutMs: 300 });
    const jwt = await token();
    const started = Date.now();
    const [a, b] = await Promise.all([failureOf(auth, jwt), failureOf(auth, jwt)]);
    const took = Date.now() - started;
    expectKeyServerUnavailable(a, jwt);
    expectKeyServerUnavailable(b, jwt);
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(2000);
    expect(jwks.hits()).toBe(1); // the two requests shared one fetch
  });

  it.each<[string, JwksMode]>([
    ['answering 500', 'error'],
    ['answering something that is not JSON', 'notJson'],
    ['answering JSON that is not a key set', 'notJwks'],
  ])('%s with nothing fetched yet: a 503', async (_case, mode) => {
    const jwks = await jwksServer([], mode);
    const auth = jwtAuth({ jwksUrl: jwks.url });
    const jwt = await token();
    expectKeyServerUnavailable(await failureOf(auth, jwt), jwt);
    expect(jwks.hits()).toBe(1);
  });

  it('a bad token is still refused (not a 503) while the key server is down, when its alg is not accepted', async () => {
    const auth = jwtAuth({ jwksUrl: 'http://127.0.0.1:1/jwks.json' });
    const none = `${b64url({ alg: 'none' })}.${b64url({ sub: 'alice', exp: now() + 60 })}.`;
    expect(await presenting(auth, none)).toBeUndefined();
    expect(await presenting(auth, 'not.a.jwt')).toBeUndefined();
  });

  it('after keys were fetched, a failing refetch for an unknown kid refuses that token and keeps the cached keys working', async () => {
    const jwks = await jwksServer([await publicJwk(rsa, 'rsa-1', 'RS256')]);
    const auth = jwtAuth({ jwksUrl: jwks.url, jwksCooldownMs: 100, jwksTimeoutMs: 200 });
    const good = await token();
    expect((await presenting(auth, good))?.id).toBe('alice');
    for (const mode of ['error', 'notJson', 'notJwks', 'silent'] as const) {
      jwks.mode = mode;
      await sleep(120); // past the cooldown, so the unknown kid makes jose fetch again
      const before = jwks.hits();
      expect(await presenting(auth, await sign(impostor, { alg: 'RS256', kid: `new-${mode}` }))).toBeUndefined();
      expect(jwks.hits()).toBe(before + 1);
      expect((await presenting(auth, good))?.id).toBe('alice');
    }
  });

  it('after keys were fetched, an outage past the max age keeps the cached keys, trying the server once per cooldown', async () => {
    const jwks = await jwksServer([await publicJwk(rsa, 'rsa-1', 'RS256')]);
    const auth = jwtAuth({ jwksUrl: jwks.url, jwksMaxAgeMs: 100, jwksCooldownMs: 300 });
    const good = await token();
    expect((await presenting(auth, good))?.id).toBe('alice');
    expect(jwks.hits()).toBe(1);

    jwks.mode = 'error';
    await sleep(150); // the key set is now stale: the next token is answered from it and refreshes it beside
    expect((await presenting(auth, good))?.id).toBe('alice');
    await eventually(() => jwks.hits() === 2);
    await sleep(50); // the failed refresh has ended: the cooldown runs from here
    for (let i = 0; i < 5; i++) expect((await presenting(auth, good))?.id).toBe('alice');
    expect(await presenting(auth, await sign(impostor, { alg: 'RS256', kid: 'unknown' }))).toBeUndefined();
    expect(jwks.hits()).toBe(2); // within the cooldown the cached keys serve alone

    // The server comes back with a rotated key set: after the cooldown it is fetched again.
    const next = await generateKeyPair('ES256');
    jwks.keys.push(await publicJwk(next, 'ec-2', 'ES256'));
    jwks.mode = 'ok';
    await sleep(350);
    expect((await presenting(auth, await sign(next, { alg: 'ES256', kid: 'ec-2' })))?.id).toBe('alice');
    expect(jwks.hits()).toBe(3);
  });
});

describe('one fetch at a time, bounded in time and size', () => {
  const token = () => sign(rsa, { alg: 'RS256', kid: 'rsa-1' });

  it('a slow refresh of stale keys delays nobody; an unknown kid meanwhile waits for that refresh, not another', async () => {
    const jwks = await jwksServer([await publicJwk(rsa, 'rsa-1', 'RS256')]);
    const auth = jwtAuth({ jwksUrl: jwks.url, jwksMaxAgeMs: 100, jwksCooldownMs: 50 });
    const good = await token();
    expect((await presenting(auth, good))?.id).toBe('alice');
    const next = await generateKeyPair('ES256');
    const nextToken = await sign(next, { alg: 'ES256', kid: 'ec-2' });
    jwks.keys.push(await publicJwk(next, 'ec-2', 'ES256'));
    jwks.delayMs = 600;
    await sleep(150);

    let started = Date.now();
    const answers = await Promise.all(Array.from({ length: 5 }, () => presenting(auth, good)));
    expect(answers.map((p) => p?.id)).toEqual(Array(5).fill('alice'));
    expect(Date.now() - started).toBeLessThan(300);
    await eventually(() => jwks.hits() === 2);

    started = Date.now();
    expect((await presenting(auth, nextToken))?.id).toBe('alice');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(jwks.hits()).toBe(2);
  });

  it.each<[string, JwksMode]>([
    ['declared in Content-Length', 'hugeWithLength'],
    ['streamed without a length', 'huge'],
  ])('a key set over jwksMaxBytes (%s) is a 503 naming the limit', async (_case, mode) => {
    const jwks = await jwksServer([await publicJwk(rsa, 'rsa-1', 'RS256')], mode);
    jwks.hugeBytes = 2 * 1024 * 1024;
    const auth = jwtAuth({ jwksUrl: jwks.url, jwksMaxBytes: 16 * 1024 });
    const jwt = await token();
    const err = await failureOf(auth, jwt);
    expectKeyServerUnavailable(err, jwt);
    expect((err as Error).message).toMatch(/larger than jwksMaxBytes \(16384 bytes\)/);
    // A key set under the cap is used as it is.
    jwks.mode = 'ok';
    expect((await presenting(auth, jwt))?.id).toBe('alice');
  });

  it('a key set past jwksMaxBytes on refresh keeps the keys in hand', async () => {
    const jwks = await jwksServer([await publicJwk(rsa, 'rsa-1', 'RS256')]);
    const auth = jwtAuth({ jwksUrl: jwks.url, jwksMaxBytes: 16 * 1024, jwksCooldownMs: 50 });
    const good = await token();
    expect((await presenting(auth, good))?.id).toBe('alice');
    jwks.mode = 'huge';
    await sleep(60);
    expect(await presenting(auth, await sign(impostor, { alg: 'RS256', kid: 'new' }))).toBeUndefined();
    expect(jwks.hits()).toBe(2);
    expect((await presenting(auth, good))?.id).toBe('alice');
  });

  it('a key server trickling its answer is cut off at jwksTimeoutMs, body included', async () => {
    const jwks = await jwksServer([], 'trickle');
    const auth = jwtAuth({ jwksUrl: jwks.url, jwksTimeoutMs: 400 });
    const jwt = await token();
    const started = Date.now();
    const err = await failureOf(auth, jwt);
    expectKeyServerUnavailable(err, jwt);
    expect((err as Error).message).toMatch(/within jwksTimeoutMs \(400 ms\)/);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe('jwtAuth with a key', () => {
  const token = () => sign(ec, { alg: 'ES256', kid: 'k' });

  it('verifies with a PEM (SPKI) public key', async () => {
    const auth = jwtAuth({ key: await exportSPKI(ec.publicKey), issuer: ISSUER, audience: AUDIENCE });
    expect(await presenting(auth, await token())).toMatchObject({ id: 'alice', claims: { iss: ISSUER } });
    expect(await presenting(auth, await sign(impostor, { alg: 'RS256' }))).toBeUndefined();
    expect(await presenting(auth, await sign(ec, { alg: 'ES256' }, { exp: now() - 120 }))).toBeUndefined();
  });

  it('verifies with a JWK (RS256) and honours its alg', async () => {
    // A Node key pair signs with any RSA algorithm (a WebCrypto one is bound to one).
    const { generateKeyPairSync } = await import('node:crypto');
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk: JWK = { ...(pair.publicKey.export({ format: 'jwk' }) as JWK), kid: 'rsa-9', alg: 'RS256', use: 'sig' };
    const signed = (alg: string) =>
      new SignJWT({ sub: 'alice', aud: AUDIENCE, exp: now() + 60 }).setProtectedHeader({ alg, kid: 'rsa-9' }).sign(pair.privateKey);
    const auth = jwtAuth({ key: jwk, audience: AUDIENCE });
    expect((await presenting(auth, await signed('RS256')))?.id).toBe('alice');
    // Same key, another algorithm: the JWK says RS256 only.
    expect(await presenting(auth, await signed('PS256'))).toBeUndefined();
    expect(await presenting(auth, await signed('RS512'))).toBeUndefined();
    // Without an alg in the JWK, PS256 with that key is fine.
    expect((await presenting(jwtAuth({ key: { ...jwk, alg: undefined } }), await signed('PS256')))?.id).toBe('alice');
    expect(await presenting(auth, await sign(impostor, { alg: 'RS256', kid: 'rsa-9' }))).toBeUndefined();
  });

  it('verifies with a KeyObject or a CryptoKey', async () => {
    const { createPublicKey } = await import('node:crypto');
    const keyObject = createPublicKey({ key: (await exportJWK(ec.publicKey)) as Record<string, unknown> & JWK, format: 'jwk' });
    expect((await presenting(jwtAuth({ key: keyObject }), await token()))?.id).toBe('alice');
    expect((await presenting(jwtAuth({ key: ec.publicKey }), await token()))?.id).toBe('alice');
  });

  it('accepts HS256 only when listed, with a symmetric key', async () => {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const jwk: JWK = { kty: 'oct', k: Buffer.from(secret).toString('base64url') };
    const hs = await new SignJWT({ sub: 'svc', exp: now() + 60 }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    expect((await presenting(jwtAuth({ key: jwk, algorithms: ['HS256'] }), hs))?.id).toBe('svc');
    const other = await new SignJWT({ sub: 'svc', exp: now() + 60 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(crypto.getRandomValues(new Uint8Array(32)));
    expect(await presenting(jwtAuth({ key: jwk, algorithms: ['HS256'] }), other)).toBeUndefined();
    // An RS256-only verifier refuses the same HS256 token.
    expect(await presenting(jwtAuth({ key: await exportSPKI(rsa.publicKey) }), hs)).toBeUndefined();
  });
});

describe('options and the card', () => {
  // Built, never fetched (jose fetches on the first token): a loopback URL all the same.
  const base = (): JwtAuthOptions => ({ jwksUrl: 'http://127.0.0.1:9/jwks.json' });

  it('by default declares http Bearer with bearerFormat JWT, named bearer, and a Bearer challenge', () => {
    const auth = jwtAuth(base());
    expect(auth.securitySchemes).toEqual({ bearer: { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' } });
    expect(auth.security).toBeUndefined();
    expect(auth.challenges).toEqual(['Bearer realm="a2a"']);
  });

  it('declares openIdConnect as oidc', () => {
    const openIdConnectUrl = `${ISSUER}/.well-known/openid-configuration`;
    const auth = jwtAuth({ ...base(), card: { type: 'openIdConnect', openIdConnectUrl }, description: 'Sign in with Example' });
    expect(auth.securitySchemes).toEqual({ oidc: { type: 'openIdConnect', openIdConnectUrl, description: 'Sign in with Example' } });
  });

  it('declares oauth2 flows as oauth2, with the metadata URL when given', () => {
    const flows = { clientCredentials: { tokenUrl: `${ISSUER}/token`, scopes: { 'tasks:read': 'read tasks' } } };
    expect(jwtAuth({ ...base(), card: { type: 'oauth2', flows } }).securitySchemes).toEqual({ oauth2: { type: 'oauth2', flows } });
    const oauth2MetadataUrl = `${ISSUER}/.well-known/oauth-authorization-server`;
    expect(jwtAuth({ ...base(), card: { type: 'oauth2', flows, oauth2MetadataUrl } }).securitySchemes).toEqual({
      oauth2: { type: 'oauth2', flows, oauth2MetadataUrl },
    });
  });

  it('takes a scheme name and a realm (quoted)', () => {
    const auth = jwtAuth({ ...base(), schemeName: 'corpSso', card: { type: 'bearer' }, realm: 'my "agent"' });
    expect(Object.keys(auth.securitySchemes)).toEqual(['corpSso']);
    expect(auth.challenges).toEqual(['Bearer realm="my \\"agent\\""']);
  });

  it.each<[string, () => JwtAuthOptions, RegExp]>([
    ['neither jwksUrl nor key', () => ({}), /exactly one of/],
    ['both jwksUrl and key', () => ({ jwksUrl: 'http://127.0.0.1:9/jwks.json', key: 'x' }), /exactly one of/],
    ['a jwksUrl that is not a URL', () => ({ jwksUrl: 'not a url' }), /not a URL/],
    ['a jwksUrl that is not http(s)', () => ({ jwksUrl: 'file:///etc/jwks.json' }), /http\(s\)/],
    ['a jwksUrl with credentials', () => ({ jwksUrl: 'https://user:pw@issuer.example/jwks.json' }), /credentials/],
    ['a key that is not a PEM', () => ({ key: 'not a pem' }), /not a PEM public key/],
    ['a JWK that is no key', () => ({ key: { kty: 'RSA', n: 'AQAB' } }), /not a usable JWK/],
    ['alg none', () => ({ ...base(), algorithms: ['RS256', 'none'] }), /'none'/],
    ['HS256 with a JWKS', () => ({ ...base(), algorithms: ['HS256'] }), /symmetric/],
    ['an empty algorithm list', () => ({ ...base(), algorithms: [] }), /non-empty/],
    ['a negative clock tolerance', () => ({ ...base(), clockTolerance: -1 }), /clockTolerance/],
    ['a fractional JWKS timeout', () => ({ ...base(), jwksTimeoutMs: 1.5 }), /jwksTimeoutMs/],
    ['a JWKS timeout past 32 bits', () => ({ ...base(), jwksTimeoutMs: 2 ** 32 }), /jwksTimeoutMs/],
    ['a zero JWKS byte cap', () => ({ ...base(), jwksMaxBytes: 0 }), /jwksMaxBytes/],
    ['a fractional JWKS byte cap', () => ({ ...base(), jwksMaxBytes: 1.5 }), /jwksMaxBytes/],
    ['an empty audience', () => ({ ...base(), audience: [] }), /audience/],
    ['an oidc card without its URL', () => ({ ...base(), card: { type: 'openIdConnect', openIdConnectUrl: '' } }), /openIdConnectUrl/],
  ])('refuses %s at construction with a TypeError', (_case, options, message) => {
    expect(() => jwtAuth(options())).toThrow(TypeError);
    expect(() => jwtAuth(options())).toThrow(message);
  });

  it('refuses private keys, and symmetric keys unless HS algorithms are listed', async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const pkcs8 = await exportPKCS8(pair.privateKey);
    expect(() => jwtAuth({ key: pkcs8 })).toThrow(/private key/);
    expect(() => jwtAuth({ key: pair.privateKey })).toThrow(/private key/);
    const privateJwk = await exportJWK(pair.privateKey);
    expect(() => jwtAuth({ key: privateJwk })).toThrow(/private key/);
    const secret: JWK = { kty: 'oct', k: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url') };
    expect(() => jwtAuth({ key: secret })).toThrow(/symmetric key needs/);
    expect(() => jwtAuth({ key: secret, algorithms: ['HS256', 'RS256'] })).toThrow(/symmetric key needs/);
    const spki = await exportSPKI(rsa.publicKey);
    expect(() => jwtAuth({ key: spki, algorithms: ['HS256'] })).toThrow(/symmetric/);
  });
});
