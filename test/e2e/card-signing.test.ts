/**
 * Signed agent cards through a real server on 127.0.0.1: every card served (the public card at
 * each base URL, the extended card on both transports) carries a detached JWS over its RFC 8785
 * form that verifies with the public key, for each kind of key; any change to the card, or
 * another key, fails verification; bad keys stop the start; the CLI signs from
 * SERVICE_CARD_SIGNING_KEY.
 */
import { createSecretKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { base64url, decodeProtectedHeader, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth, canonicalJson, createServer, verifyAgentCard, type CardSigningOptions } from '../../src/index.js';
import scenarioAgent from '../../examples/scenario-agent.js';
import { client, TRANSPORTS, type Json } from '../support/a2a.js';
import { captureLogs } from '../support/logs.js';
import { spawnServer } from '../support/process.js';
import { startServer, tempDir, type TestServer } from '../support/server.js';

const SCENARIO_TOKEN = { authorization: 'Bearer scenario-token' };

type KeyPair = { privateKey: KeyObject; publicKey: KeyObject };
const KEYS: [name: string, alg: string, pair: () => KeyPair, options?: Partial<CardSigningOptions>][] = [
  ['EC P-256', 'ES256', () => generateKeyPairSync('ec', { namedCurve: 'P-256' })],
  ['EC P-384', 'ES384', () => generateKeyPairSync('ec', { namedCurve: 'P-384' })],
  ['RSA', 'RS256', () => generateKeyPairSync('rsa', { modulusLength: 2048 })],
  ['RSA with PS256', 'PS256', () => generateKeyPairSync('rsa', { modulusLength: 2048 }), { alg: 'PS256' }],
  ['Ed25519', 'EdDSA', () => generateKeyPairSync('ed25519')],
];

const pem = (key: KeyObject): string => key.export({ format: 'pem', type: key.type === 'private' ? 'pkcs8' : 'spki' }).toString();
const jwkOf = (key: KeyObject): JWK => key.export({ format: 'jwk' }) as JWK;

async function fetchCard(url: string, headers: Record<string, string> = {}): Promise<Json> {
  const res = await fetch(`${url}/.well-known/agent-card.json`, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

describe.each(KEYS)('a card signed with an %s key', (_name, alg, pair, options = {}) => {
  const keys = pair();
  let server: TestServer;
  beforeAll(async () => {
    // With `auth`, so the card declares security schemes (whose shape differs by version).
    const agent = { ...scenarioAgent, auth: bearerAuth({ tokens: { 'scenario-token': 'scenario' } }) };
    server = await startServer({ agent, cardSigning: { key: pem(keys.privateKey), kid: 'card-key-1', ...options } });
  });
  afterAll(() => server?.stop());

  it(`the public card carries one ${alg} signature that verifies with the public key (KeyObject, PEM, JWK, JWKS)`, async () => {
    const card = await fetchCard(server.url);
    expect(card.signatures).toHaveLength(1);
    // Detached payload (RFC 7515 Appendix F): only the protected header and the signature.
    expect(Object.keys(card.signatures[0]).sort()).toEqual(['protected', 'signature']);
    expect(decodeProtectedHeader(card.signatures[0])).toEqual({ alg, typ: 'JOSE', kid: 'card-key-1' });
    for (const key of [keys.publicKey, pem(keys.publicKey), jwkOf(keys.publicKey)]) {
      expect(await verifyAgentCard(card, key)).toEqual({ valid: true, alg, kid: 'card-key-1' });
    }
    const other = jwkOf(pair().publicKey);
    const jwks = {
      keys: [
        { ...other, kid: 'old-key' },
        { ...jwkOf(keys.publicKey), kid: 'card-key-1' },
      ],
    };
    expect(await verifyAgentCard(card, jwks)).toMatchObject({ valid: true, kid: 'card-key-1' });
  });

  it('the signature is over the RFC 8785 form of the card without signatures', async () => {
    const card = await fetchCard(server.url);
    const { signatures, ...rest } = card;
    // What a verifier does by hand with any JWS library: re-attach the canonical payload.
    const { flattenedVerify } = await import('jose');
    const result = await flattenedVerify({ ...signatures[0], payload: base64url.encode(canonicalJson(rest)) }, keys.publicKey);
    expect(JSON.parse(new TextDecoder().decode(result.payload))).toEqual(rest);
  });

  it.each([
    ['the name', (c: Json) => void (c.name = `${c.name}!`)],
    ['a skill tag', (c: Json) => void c.skills[0].tags.push('extra')],
    ['the url', (c: Json) => void (c.url = 'https://elsewhere.example.com')],
    ['a capability', (c: Json) => void (c.capabilities.pushNotifications = !c.capabilities.pushNotifications)],
    ['an added field', (c: Json) => void (c.documentationUrl = 'https://docs.example.com')],
    ['a removed field', (c: Json) => void delete c.supportsAuthenticatedExtendedCard],
  ])('changing %s makes verification fail', async (_what, change) => {
    const card = await fetchCard(server.url);
    change(card);
    const result = await verifyAgentCard(card, keys.publicKey);
    expect(result.valid).toBe(false);
    expect(result).toMatchObject({ reason: expect.stringMatching(/signatures\[0\]/) });
  });

  it('another key does not verify it', async () => {
    const card = await fetchCard(server.url);
    expect(await verifyAgentCard(card, pair().publicKey)).toMatchObject({ valid: false });
    // A JWKS without the card's kid has no key to try.
    expect(await verifyAgentCard(card, { keys: [{ ...jwkOf(keys.publicKey), kid: 'someone-else' }] })).toMatchObject({ valid: false });
  });

  it('each base URL gets its own signed card, signed once and then served from the cache', async () => {
    const proxied = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'agents.example.com' };
    const [a, b] = await Promise.all([fetchCard(server.url, proxied), fetchCard(server.url, proxied)]);
    expect(a.url).toMatch(/^https:\/\/agents\.example\.com/);
    expect(await verifyAgentCard(a, keys.publicKey)).toMatchObject({ valid: true });
    // ECDSA and PS256 signatures are randomized: the same bytes twice means one signing.
    expect(b.signatures).toEqual(a.signatures);
    expect((await fetchCard(server.url, proxied)).signatures).toEqual(a.signatures);
    const direct = await fetchCard(server.url);
    expect(direct.url).not.toBe(a.url);
    expect(direct.signatures).not.toEqual(a.signatures);
    expect(await verifyAgentCard(direct, keys.publicKey)).toMatchObject({ valid: true });
    // The same card is served at `/` and the old well-known path.
    for (const path of ['/', '/.well-known/agent.json']) {
      expect(((await (await fetch(`${server.url}${path}`)).json()) as Json).signatures).toEqual(direct.signatures);
    }
  });

  it('a card asked for over v1.0 is signed as served (v1.0 security schemes), and so is v1.0 extended card', async () => {
    const v03 = await fetchCard(server.url);
    const v1 = await fetchCard(server.url, { 'A2A-Version': '1.0' });
    expect(Object.values(v03.securitySchemes)[0]).toMatchObject({ type: 'http', scheme: 'Bearer' });
    expect(Object.values(v1.securitySchemes)[0]).toHaveProperty('httpAuthSecurityScheme');
    expect(v1.signatures).not.toEqual(v03.signatures);
    expect(await verifyAgentCard(v1, keys.publicKey)).toEqual({ valid: true, alg, kid: 'card-key-1' });
    // v0.3's scheme shape under v1.0's signature is a changed card.
    expect(await verifyAgentCard({ ...v1, securitySchemes: v03.securitySchemes }, keys.publicKey)).toMatchObject({ valid: false });
    const headers = { ...SCENARIO_TOKEN, 'A2A-Version': '1.0' };
    const rest = (await (await fetch(`${server.url}/extendedAgentCard`, { headers })).json()) as Json;
    const rpc = (await (
      await fetch(server.url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard' }),
      })
    ).json()) as Json;
    for (const card of [rest, rpc.result]) {
      expect(Object.values(card.securitySchemes)[0]).toHaveProperty('httpAuthSecurityScheme');
      expect(await verifyAgentCard(card, keys.publicKey)).toEqual({ valid: true, alg, kid: 'card-key-1' });
    }
  });

  describe.each(TRANSPORTS)('the extended card over %s', (transport) => {
    it('is signed too, and verifies', async () => {
      const r = await client(server.url, transport).extendedCard(SCENARIO_TOKEN);
      expect(r.status).toBe(200);
      expect(r.result.skills.map((s: Json) => s.id)).toEqual(['scenarios', 'secret-scenarios']);
      expect(r.result.signatures).toHaveLength(1);
      expect(await verifyAgentCard(r.result, keys.publicKey)).toEqual({ valid: true, alg, kid: 'card-key-1' });
      // It is not the public card's signature: the extended card has another skill.
      const card = await fetchCard(server.url);
      expect(r.result.signatures[0].signature).not.toBe(card.signatures[0].signature);
      r.result.skills.pop();
      expect(await verifyAgentCard(r.result, keys.publicKey)).toMatchObject({ valid: false });
    });
  });
});

describe('signing options', () => {
  it('kid and jku go into the protected header; a JWK key brings its own kid', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const server = await startServer({
      cardSigning: { key: { ...jwkOf(privateKey), kid: 'from-the-jwk' }, jku: 'https://agent.example.com/.well-known/jwks.json' },
    });
    try {
      const card = await fetchCard(server.url);
      expect(decodeProtectedHeader(card.signatures[0])).toEqual({
        alg: 'ES256',
        typ: 'JOSE',
        kid: 'from-the-jwk',
        jku: 'https://agent.example.com/.well-known/jwks.json',
      });
      expect(await verifyAgentCard(card, publicKey)).toEqual({
        valid: true,
        alg: 'ES256',
        kid: 'from-the-jwk',
        jku: 'https://agent.example.com/.well-known/jwks.json',
      });
    } finally {
      await server.stop();
    }
  });

  it('the SERVICE_CARD_SIGNING_* settings sign too: a JWK JSON text, with its kid and the RSA algorithm from the settings', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const server = await startServer({
      env: {
        SERVICE_CARD_SIGNING_KEY: JSON.stringify(jwkOf(privateKey)),
        SERVICE_CARD_SIGNING_KID: 'env-kid',
        SERVICE_CARD_SIGNING_ALG: 'PS256',
      },
    });
    try {
      const card = await fetchCard(server.url);
      expect(await verifyAgentCard(card, publicKey)).toEqual({ valid: true, alg: 'PS256', kid: 'env-kid' });
    } finally {
      await server.stop();
    }
  });

  it('without a key the card has no signatures', async () => {
    const server = await startServer();
    try {
      const card = await fetchCard(server.url);
      expect(card).not.toHaveProperty('signatures');
      expect(await verifyAgentCard(card, generateKeyPairSync('ed25519').publicKey)).toEqual({
        valid: false,
        reason: 'the card has no signatures',
      });
      const extended = await client(server.url, 'rest').extendedCard(SCENARIO_TOKEN);
      expect(extended.result).not.toHaveProperty('signatures');
    } finally {
      await server.stop();
    }
  });

  it('the key is never logged or served', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = jwkOf(privateKey);
    const logs = captureLogs('debug');
    const server = await startServer({ cardSigning: { key: jwk }, logger: logs.logger });
    try {
      const card = JSON.stringify(await fetchCard(server.url));
      const extended = JSON.stringify((await client(server.url, 'jsonrpc').extendedCard(SCENARIO_TOKEN)).result);
      expect(logs.events('server.started')[0]?.cardSigning).toEqual({ alg: 'ES256' });
      for (const text of [card, extended, logs.lines.join('')]) expect(text).not.toContain(jwk.d);
    } finally {
      await server.stop();
    }
  });
});

describe('keys refused at start-up', () => {
  const start = (cardSigning: CardSigningOptions, env: Record<string, string> = {}) =>
    createServer({ agent: scenarioAgent, port: 0, host: '127.0.0.1', store: 'memory', logLevel: 'silent', env, cardSigning });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  it.each([
    ['a public key (PEM)', { key: pem(ec.publicKey) }, /card signing key: this is a public key/],
    ['a public key (KeyObject)', { key: ec.publicKey }, /card signing key: this is a public key/],
    ['a public key (JWK)', { key: jwkOf(ec.publicKey) }, /card signing key: the JWK is a public key/],
    ['a symmetric JWK', { key: { kty: 'oct', k: base64url.encode(randomBytes(32)) } }, /card signing key: a symmetric \(oct\) key/],
    ['a symmetric KeyObject', { key: createSecretKey(randomBytes(32)) }, /card signing key: a symmetric key/],
    ['a small RSA key', { key: generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey }, /2048/],
    ['an EC key with an RSA algorithm', { key: ec.privateKey, alg: 'PS256' as const }, /signs ES256, not PS256/],
    ['an X25519 key', { key: generateKeyPairSync('x25519').privateKey }, /x25519 key cannot sign/],
    ['a path with no file', { key: '/nonexistent/card-key.pem' }, /no key file can be read at \/nonexistent\/card-key.pem/],
    ['PEM text that is no key', { key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }, /not a private key/],
    ['a jku that is no URL', { key: ec.privateKey, jku: 'jwks.json' }, /jku must be an http\(s\) URL/],
  ])('%s', async (_name, cardSigning, message) => {
    await expect(start(cardSigning)).rejects.toThrow(message);
  });

  it('a bad SERVICE_CARD_SIGNING_JKU is reported by its name', async () => {
    await expect(
      createServer({
        agent: scenarioAgent,
        port: 0,
        store: 'memory',
        logLevel: 'silent',
        env: { SERVICE_CARD_SIGNING_KEY: pem(ec.privateKey), SERVICE_CARD_SIGNING_JKU: 'not a url' },
      }),
    ).rejects.toThrow(/SERVICE_CARD_SIGNING_JKU/);
  });

  it('the refusal never quotes the key', async () => {
    const text = pem(ec.privateKey).replace('-----BEGIN PRIVATE KEY-----', '-----BEGIN PUBLIC KEY-----');
    const err = await start({ key: text }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).not.toContain(text.split('\n')[1]);
  });
});

describe('verifyAgentCard', () => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ cardSigning: { key: ec.privateKey } });
  });
  afterAll(() => server?.stop());

  it('refuses a forged signature with a symmetric algorithm keyed with the public key (key confusion)', async () => {
    const { signatures: _, ...card } = await fetchCard(server.url);
    const publicPem = pem(ec.publicKey);
    const { FlattenedSign } = await import('jose');
    const forged = await new FlattenedSign(new TextEncoder().encode(canonicalJson(card)))
      .setProtectedHeader({ alg: 'HS256', typ: 'JOSE' })
      .sign(new TextEncoder().encode(publicPem));
    const signed = { ...card, signatures: [{ protected: forged.protected, signature: forged.signature }] };
    for (const key of [ec.publicKey, publicPem, jwkOf(ec.publicKey)]) {
      expect(await verifyAgentCard(signed, key)).toMatchObject({ valid: false });
    }
  });

  it('says what is wrong with a card it cannot check, and refuses keys that are not public', async () => {
    const card = await fetchCard(server.url);
    expect(await verifyAgentCard('card', ec.publicKey)).toEqual({ valid: false, reason: 'the card is not a JSON object' });
    expect(await verifyAgentCard({ ...card, signatures: [{ protected: 'e30', signature: '' }] }, ec.publicKey)).toEqual({
      valid: false,
      reason: 'signatures[0]: not a {protected, signature} object',
    });
    // A second, broken signature beside the good one does not spoil it.
    expect(await verifyAgentCard({ ...card, signatures: [{ nothing: 1 }, ...card.signatures] }, ec.publicKey)).toMatchObject({
      valid: true,
    });
    await expect(verifyAgentCard(card, ec.privateKey)).rejects.toThrow(/give the public key/);
    await expect(verifyAgentCard(card, pem(ec.privateKey))).rejects.toThrow(/give the public key/);
    await expect(verifyAgentCard(card, { kty: 'oct', k: 'c2VjcmV0' })).rejects.toThrow(/give the public key/);
  });
});

describe('the CLI', () => {
  const temp = tempDir('a2actor-card-key-');
  afterAll(() => temp.cleanup());

  it('signs with the PEM file SERVICE_CARD_SIGNING_KEY names', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const file = join(temp.dir, 'card-key.pem');
    writeFileSync(file, pem(privateKey), { mode: 0o600 });
    const proc = await spawnServer(['examples/scenario-agent.ts', '--store', 'memory'], {
      SERVICE_CARD_SIGNING_KEY: file,
      SERVICE_CARD_SIGNING_KID: 'cli-key',
    });
    try {
      const card = await fetchCard(proc.url);
      expect(await verifyAgentCard(card, publicKey)).toEqual({ valid: true, alg: 'ES384', kid: 'cli-key' });
    } finally {
      await proc.kill();
    }
  });
});
