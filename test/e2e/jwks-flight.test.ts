/**
 * JWT callers while the key server (JWKS) is slow, silent or huge, through a real server: the key
 * set is fetched by one request at a time, every caller waiting for it shares that fetch, and once
 * keys are in hand nobody waits for a refresh (the stale keys answer while it runs). A key server
 * that answers too much is cut off at `jwksMaxBytes`.
 */
import { performance } from 'node:perf_hooks';
import { generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import authAgent from '../../examples/auth-agent.js';
import { defineAgent, jwtAuth, type JwtAuthOptions } from '../../src/index.js';
import { publicJwk, signToken, startJwksServer, type JwksServer, type KeyPair } from '../support/jwks.js';
import { startServer, type TestServer } from '../support/server.js';

const AUDIENCE = 'a2actor';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let rsa: KeyPair;
let rotated: KeyPair;
const open: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  [rsa, rotated] = await Promise.all([generateKeyPair('RS256'), generateKeyPair('ES256')]);
});

afterAll(async () => {
  await Promise.all(open.map((s) => s.stop()));
});

/** A key server with the RSA key, and an agent server trusting it with `options`. */
async function setUp(options: Partial<JwtAuthOptions> = {}): Promise<{ jwks: JwksServer; server: TestServer }> {
  const jwks = await startJwksServer([await publicJwk(rsa, 'rsa-1', 'RS256')]);
  open.push({ stop: jwks.close });
  const server = await startServer({
    agent: defineAgent({ ...authAgent, auth: jwtAuth({ jwksUrl: jwks.url, audience: AUDIENCE, ...options }) }),
  });
  open.push(server);
  return { jwks, server };
}

interface Timed {
  status: number;
  ms: number;
  body: string;
}

/** `GET /v1/tasks` with the token, timed. */
async function listTasks(server: TestServer, token: string): Promise<Timed> {
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/tasks`, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.text();
  return { status: res.status, ms: performance.now() - started, body };
}

const aliceToken = () => signToken(rsa, { alg: 'RS256', kid: 'rsa-1' }, { sub: 'alice', aud: AUDIENCE });
const slowest = (answers: Timed[]) => Math.max(...answers.map((a) => a.ms));

describe('the first fetch of the key set', () => {
  it('ten callers before the first fetch share one fetch and all answer within about one delay', async () => {
    const { jwks, server } = await setUp();
    jwks.delayMs = 1500;
    const token = await aliceToken();
    const answers = await Promise.all(Array.from({ length: 10 }, () => listTasks(server, token)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(jwks.hits()).toBe(1);
    expect(slowest(answers)).toBeLessThan(1500 + 1500);
  });

  it('callers arriving while the first fetch fails share it and get 503; the next caller tries again', async () => {
    const { jwks, server } = await setUp({ jwksTimeoutMs: 800 });
    jwks.mode = 'silent';
    const token = await aliceToken();
    const answers = await Promise.all(Array.from({ length: 10 }, () => listTasks(server, token)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(503));
    expect(answers[0]!.body).toMatch(/key server \(JWKS\).*jwksTimeoutMs/);
    expect(jwks.hits()).toBe(1);
    expect(slowest(answers)).toBeLessThan(800 + 1500);
    jwks.mode = 'ok';
    expect((await listTasks(server, token)).status).toBe(200);
    expect(jwks.hits()).toBe(2);
  });

  it('a key set larger than jwksMaxBytes is refused (503 naming the limit) without reading it all', async () => {
    const { jwks, server } = await setUp({ jwksMaxBytes: 64 * 1024 });
    jwks.mode = 'huge';
    jwks.hugeBytes = 8 * 1024 * 1024;
    const answer = await listTasks(server, await aliceToken());
    expect(answer.status).toBe(503);
    expect(answer.body).toMatch(/jwksMaxBytes \(65536 bytes\)/);
    expect(jwks.hits()).toBe(1);
  });
});

describe('a stale key set', () => {
  it('answers callers at once while exactly one slow refresh runs, then serves the refreshed keys', async () => {
    const { jwks, server } = await setUp({ jwksMaxAgeMs: 400, jwksCooldownMs: 100 });
    const token = await aliceToken();
    expect((await listTasks(server, token)).status).toBe(200);
    expect(jwks.hits()).toBe(1);

    // The issuer publishes a second key; its answers now take 2 s; the cached set grows stale.
    jwks.keys.push(await publicJwk(rotated, 'ec-2', 'ES256'));
    jwks.delayMs = 2000;
    await sleep(500);
    const answers = await Promise.all(Array.from({ length: 10 }, () => listTasks(server, token)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(slowest(answers)).toBeLessThan(1000);
    expect(jwks.hits()).toBe(2);

    // Once the refresh lands, the new key is known without another fetch.
    await sleep(2300);
    const next = await signToken(rotated, { alg: 'ES256', kid: 'ec-2' }, { sub: 'alice', aud: AUDIENCE });
    expect((await listTasks(server, next)).status).toBe(200);
    expect(jwks.hits()).toBe(2);

    // A stopped server refreshes nothing: no timer of its own fetches the key set again.
    await server.stop();
    await sleep(900);
    expect(jwks.hits()).toBe(2);
  });

  it('while the key server is silent, no caller waits for it; it is tried once per cooldown', async () => {
    const { jwks, server } = await setUp({ jwksMaxAgeMs: 200, jwksCooldownMs: 500, jwksTimeoutMs: 1200 });
    const token = await aliceToken();
    expect((await listTasks(server, token)).status).toBe(200);
    jwks.mode = 'silent';
    await sleep(250);

    const answers: Timed[] = [];
    const until = performance.now() + 3500;
    while (performance.now() < until && answers.length < 100) {
      answers.push(await listTasks(server, token));
      await sleep(50);
    }
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(slowest(answers)).toBeLessThan(500);
    // Attempts are one at a time and a cooldown apart: about every 1.7 s here.
    expect(jwks.hits()).toBeGreaterThanOrEqual(2);
    expect(jwks.hits()).toBeLessThanOrEqual(4);
  });
});

describe('an unknown kid', () => {
  it('ten callers with a new kid cause one refresh and all pass; a kid the issuer does not have is refused without another', async () => {
    const { jwks, server } = await setUp({ jwksCooldownMs: 1000 });
    const next = await signToken(rotated, { alg: 'ES256', kid: 'ec-2' }, { sub: 'alice', aud: AUDIENCE });
    const stranger = await signToken(rsa, { alg: 'RS256', kid: 'nobody' }, { sub: 'mallory', aud: AUDIENCE });
    expect((await listTasks(server, await aliceToken())).status).toBe(200);
    jwks.keys.push(await publicJwk(rotated, 'ec-2', 'ES256'));
    jwks.delayMs = 500;
    await sleep(1050);

    const answers = await Promise.all(Array.from({ length: 10 }, () => listTasks(server, next)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(jwks.hits()).toBe(2);

    // Within the cooldown of that refresh, an unknown kid is refused without fetching.
    const refused = await Promise.all(Array.from({ length: 5 }, () => listTasks(server, stranger)));
    expect(refused.map((a) => a.status)).toEqual(Array(5).fill(401));
    expect(jwks.hits()).toBe(2);
  });
});
