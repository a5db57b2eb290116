/**
 * jwtAuth against real tokens: keys generated here, a JWKS served on 127.0.0.1 that counts its
 * fetches, and every bad-token case refused (undefined = 401), never thrown, never hung.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtAuth } from '../../src/auth/jwt.js';
import type { AuthMethod } from '../../src/auth/types.js';
import { isA2AError } from '../../src/a2a/errors.js';
import { restStatus } from '../../src/protocol/error-status.js';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'a2actor';

const request = (authorization?: string) => ({
  method: 'POST',
  path: '/',
  headers: (authorization === undefined ? {} : { authorization }) as Record<string, string>,
});
const bearer = (token: string) => request(`Bearer ${token}`);
const now = () => Math.floor(Date.now() / 1000);

async function sign(key: KeyPair, kid: string, alg: string, claims: JWTPayload = {}): Promise<string> {
  // Claims given here win over the defaults (`sub: undefined` leaves the subject out).
  return new SignJWT({ sub: 'alice', iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 300, scope: 'read', ...claims })
    .setProtectedHeader({ alg, kid })
    .sign(key.privateKey);
}

/** A JWKS on 127.0.0.1 whose key list the test changes, counting fetches. */
async function jwksServer(): Promise<{ url: string; keys: JWK[]; fetches: () => number; close: () => Promise<void> }> {
  const keys: JWK[] = [];
  let fetches = 0;
  const server: Server = createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    keys,
    fetches: () => fetches,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const publicJwk = async (key: KeyPair, kid: string, alg: string): Promise<JWK> => ({
  ...(await exportJWK(key.publicKey)),
  kid,
  alg,
  use: 'sig',
});

describe('jwtAuth with a JWKS URL', () => {
  let rsa: KeyPair;
  let ec: KeyPair;
  let other: KeyPair;
  let jwks: Awaited<ReturnType<typeof jwksServer>>;
  let auth: AuthMethod;
  beforeAll(async () => {
    [rsa, ec, other] = await Promise.all([generateKeyPair('RS256'), generateKeyPair('ES256'), generateKeyPair('RS256')]);
    jwks = await jwksServer();
    jwks.keys.push(await publicJwk(rsa, 'rsa-1', 'RS256'), await publicJwk(ec, 'ec-1', 'ES256'));
    auth = jwtAuth({ jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE, clockTolerance: 5 });
  });
  afterAll(async () => {
    await jwks?.close();
  });

  it('RS256 and ES256 tokens give the subject as principal, with the claims', async () => {
    const fromRsa = await auth.authenticate(bearer(await sign(rsa, 'rsa-1', 'RS256')));
    expect(fromRsa).toMatchObject({ id: 'alice', claims: { sub: 'alice', scope: 'read', iss: ISSUER, aud: AUDIENCE } });
    const fromEc = await auth.authenticate(bearer(await sign(ec, 'ec-1', 'ES256', { sub: 'bob' })));
    expect(fromEc?.id).toBe('bob');
    // Fetched once for both.
    expect(jwks.fetches()).toBe(1);
  });

  it('declares an http Bearer JWT scheme and a Bearer challenge', () => {
    expect(auth.securitySchemes).toEqual({ bearer: { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' } });
    expect(auth.challenges).toEqual(['Bearer realm="a2a"']);
  });

  it.each([
    ['expired', () => sign(rsa, 'rsa-1', 'RS256', { exp: now() - 60 })],
    ['not yet valid', () => sign(rsa, 'rsa-1', 'RS256', { nbf: now() + 60 })],
    ['for another audience', () => sign(rsa, 'rsa-1', 'RS256', { aud: 'someone-else' })],
    ['from another issuer', () => sign(rsa, 'rsa-1', 'RS256', { iss: 'https://evil.test' })],
    ['signed by another key under a known kid', () => sign(other, 'rsa-1', 'RS256')],
    ['without a subject', () => sign(rsa, 'rsa-1', 'RS256', { sub: undefined })],
    [
      'with alg none',
      async () => {
        const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
        return `${b64({ alg: 'none', kid: 'rsa-1' })}.${b64({ sub: 'alice', iss: ISSUER, aud: AUDIENCE, exp: now() + 60 })}.`;
      },
    ],
    [
      'HS256 with the public key as secret',
      async () => {
        const secret = new TextEncoder().encode(JSON.stringify(await exportJWK(rsa.publicKey)));
        return new SignJWT({ sub: 'alice' })
          .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime('5m')
          .sign(secret);
      },
    ],
    ['not a JWT', async () => 'abc.def.ghi'],
    [
      'a tampered payload',
      async () => {
        const [h, , s] = (await sign(rsa, 'rsa-1', 'RS256')).split('.');
        return `${h}.${Buffer.from(JSON.stringify({ sub: 'mallory', iss: ISSUER, aud: AUDIENCE, exp: now() + 60 })).toString('base64url')}.${s}`;
      },
    ],
  ])('a token %s is refused', async (_case, make) => {
    const token = await make();
    expect(await auth.authenticate(bearer(token))).toBeUndefined();
  });

  it('a token just past expiry within the clock tolerance passes', async () => {
    expect((await auth.authenticate(bearer(await sign(rsa, 'rsa-1', 'RS256', { exp: now() - 2 }))))?.id).toBe('alice');
  });

  it.each([
    ['no header', undefined],
    ['a bare scheme', 'Bearer'],
    ['another scheme', 'Basic YWxpY2U6c2VjcmV0'],
    ['a 60 KB token', `Bearer ${'a'.repeat(60 * 1024)}`],
    ['non-ASCII', 'Bearer eyJhbGciOiJSUzI1NiJ9.é.x'],
    ['extra parts', 'Bearer abc def'],
  ])('%s is refused without a fetch or an exception', async (_case, header) => {
    const before = jwks.fetches();
    expect(await auth.authenticate(request(header))).toBeUndefined();
    expect(jwks.fetches()).toBe(before);
  });

  it('key rotation: a new kid is fetched once, then served from the cache', async () => {
    const rotated = await generateKeyPair('ES256');
    jwks.keys.push(await publicJwk(rotated, 'ec-2', 'ES256'));
    const before = jwks.fetches();
    // A fresh authenticator with no cooldown, so the refetch for an unknown kid is allowed now.
    const fresh = jwtAuth({ jwksUrl: jwks.url, issuer: ISSUER, audience: AUDIENCE, jwksCooldownMs: 0 });
    expect((await fresh.authenticate(bearer(await sign(rsa, 'rsa-1', 'RS256'))))?.id).toBe('alice');
    expect(jwks.fetches()).toBe(before + 1);
    jwks.keys.push(await publicJwk(await generateKeyPair('ES256'), 'ec-3', 'ES256'));
    const rotatedAgain = await generateKeyPair('ES256');
    jwks.keys.push(await publicJwk(rotatedAgain, 'ec-4', 'ES256'));
    expect((await fresh.authenticate(bearer(await sign(rotatedAgain, 'ec-4', 'ES256'))))?.id).toBe('alice');
    expect(jwks.fetches()).toBe(before + 2);
    for (let i = 0; i < 3; i++) expect((await fresh.authenticate(bearer(await sign(rotatedAgain, 'ec-4', 'ES256'))))?.id).toBe('alice');
    expect(jwks.fetches()).toBe(before + 2);
  });

  it('an unknown kid does not refetch within the cooldown', async () => {
    const before = jwks.fetches();
    const stranger = await generateKeyPair('RS256');
    expect(await auth.authenticate(bearer(await sign(stranger, 'unknown-kid', 'RS256')))).toBeUndefined();
    expect(await auth.authenticate(bearer(await sign(stranger, 'unknown-kid', 'RS256')))).toBeUndefined();
    expect(jwks.fetches() - before).toBeLessThanOrEqual(1);
  });
});

describe('jwtAuth when the key server fails', () => {
  let key: KeyPair;
  beforeAll(async () => {
    key = await generateKeyPair('RS256');
  });

  const expect503 = async (auth: AuthMethod, token: string) => {
    const started = Date.now();
    const err: unknown = await Promise.resolve(auth.authenticate(bearer(token))).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isA2AError(err) && restStatus(err)).toBe(503);
    expect(String((err as Error).message)).not.toContain(token);
    return Date.now() - started;
  };

  it('an unreachable JWKS with nothing cached is a 503 that names the key server, not the token', async () => {
    const auth = jwtAuth({ jwksUrl: 'http://127.0.0.1:1/jwks.json', jwksTimeoutMs: 1000 });
    expect(await expect503(auth, await sign(key, 'k', 'RS256'))).toBeLessThan(2000);
  });

  it('a JWKS that never answers is a 503 after the timeout', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent = createServer(() => {});
    silent.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const auth = jwtAuth({ jwksUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/jwks.json`, jwksTimeoutMs: 300 });
      expect(await expect503(auth, await sign(key, 'k', 'RS256'))).toBeLessThan(2000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('a JWKS answering 500 or garbage is a 503; once keys were fetched, a later outage refuses only unknown keys', async () => {
    let mode: 'ok' | '500' | 'garbage' = '500';
    const jwk = await publicJwk(key, 'k', 'RS256');
    const server = createServer((_req, res) => {
      if (mode === '500') res.writeHead(500).end('oops');
      else if (mode === 'garbage') res.writeHead(200, { 'content-type': 'application/json' }).end('{"not":"a jwks"');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const auth = jwtAuth({ jwksUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, jwksCooldownMs: 0 });
      const token = await sign(key, 'k', 'RS256');
      await expect503(auth, token);
      mode = 'garbage';
      await expect503(auth, token);
      mode = 'ok';
      expect((await auth.authenticate(bearer(token)))?.id).toBe('alice');
      mode = '500';
      expect((await auth.authenticate(bearer(token)))?.id).toBe('alice');
      const stranger = await generateKeyPair('RS256');
      expect(await auth.authenticate(bearer(await sign(stranger, 'other', 'RS256')))).toBeUndefined();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('jwtAuth with a local key and other card schemes', () => {
  it('verifies with a PEM or a JWK, and declares openIdConnect or oauth2 when asked', async () => {
    const key = await generateKeyPair('ES256');
    const token = await sign(key, 'k', 'ES256');
    const pem = jwtAuth({
      key: await exportSPKI(key.publicKey),
      issuer: ISSUER,
      audience: AUDIENCE,
      card: { type: 'openIdConnect', openIdConnectUrl: `${ISSUER}/.well-known/openid-configuration` },
    });
    expect((await pem.authenticate(bearer(token)))?.id).toBe('alice');
    expect(pem.securitySchemes).toEqual({
      oidc: { type: 'openIdConnect', openIdConnectUrl: `${ISSUER}/.well-known/openid-configuration` },
    });
    const flows = { clientCredentials: { tokenUrl: `${ISSUER}/token`, scopes: { read: 'read tasks' } } };
    const jwk = jwtAuth({ key: await exportJWK(key.publicKey), card: { type: 'oauth2', flows } });
    expect((await jwk.authenticate(bearer(token)))?.id).toBe('alice');
    expect(jwk.securitySchemes).toEqual({ oauth2: { type: 'oauth2', flows } });
    const wrongKey = jwtAuth({ key: await exportJWK((await generateKeyPair('ES256')).publicKey) });
    expect(await wrongKey.authenticate(bearer(token))).toBeUndefined();
  });

  it('refuses bad options at construction', () => {
    expect(() => jwtAuth({})).toThrow(/exactly one of/);
    expect(() => jwtAuth({ jwksUrl: 'not a url' })).toThrow(/not a URL/);
    expect(() => jwtAuth({ key: 'not a pem' })).toThrow(/not a usable public key/);
  });
});
