/**
 * The rules around authentication, through a real server: what stays public, 403 from
 * `authorize`, API keys and several methods at once, what the handler learns about its caller,
 * authenticators that fail, declarations refused at start-up, and secrets kept out of logs.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anyAuth,
  apiKeyAuth,
  bearerAuth,
  createServer,
  defineAgent,
  jwtAuth,
  unavailable,
  type AgentAuth,
  type AgentDefinition,
} from '../../src/index.js';
import authAgent from '../../examples/auth-agent.js';
import scenarioAgent from '../../examples/scenario-agent.js';
import { TRANSPORTS, userMessage, type Json } from '../support/a2a.js';
import { ALICE, BOB, OPERATIONS, type Target } from '../support/auth-calls.js';
import { captureLogs } from '../support/logs.js';
import { startServer, type TestServer } from '../support/server.js';

const rpc = async (url: string, method: string, params: unknown, headers: Record<string, string> = {}, id: unknown = 1) => {
  const res = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(id === undefined ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id, method, params }),
  });
  const text = await res.text();
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: text ? (JSON.parse(text) as Json) : undefined };
};

/** The scenario agent with another `auth` (and whatever else the case needs). */
const agentWith = (auth: AgentAuth, extra: Partial<AgentDefinition> = {}): AgentDefinition => ({ ...scenarioAgent, auth, ...extra });

describe('with auth declared', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ agent: authAgent });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('the card declares the enforced scheme; the card and health stay public', async () => {
    for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json', '/']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(200);
      const card = (await res.json()) as Json;
      expect(card.securitySchemes).toEqual({ bearer: { type: 'http', scheme: 'Bearer' } });
      expect(card.security).toEqual([{ bearer: [] }]);
      expect(JSON.stringify(card)).not.toMatch(/alice-token|bob-token/);
    }
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/v1/health/ready`)).status).toBe(200);
  });

  it('a JSON-RPC notification and an unknown method need credentials too; an unknown REST path is 401 before 404', async () => {
    const note = await rpc(server.url, 'message/send', { message: userMessage('echo quietly') }, {}, undefined);
    expect(note.status).toBe(401);
    expect(note.body.error.code).toBe(-32603);
    const unknown = await rpc(server.url, 'no/such', {});
    expect(unknown.status).toBe(401);
    const rest = await fetch(`${server.url}/v1/nothing/here`);
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toBe('Bearer realm="a2a"');
    // With credentials the same requests get their usual answers.
    expect((await rpc(server.url, 'no/such', {}, ALICE)).body.error.code).toBe(-32601);
    expect((await fetch(`${server.url}/v1/nothing/here`, { headers: ALICE })).status).toBe(404);
  });

  it('a 60 KB bearer token is a 401, not a crash, a hang or a framing error', async () => {
    const res = await rpc(server.url, 'tasks/list', {}, { authorization: `Bearer ${'x'.repeat(60 * 1024)}` });
    expect(res.status).toBe(401);
    expect((await rpc(server.url, 'tasks/list', {}, ALICE)).status).toBe(200);
  });

  it('a wrong bearer token is told it was refused, without the token; none sent is told what to send', async () => {
    const wrong = { authorization: 'Bearer eve-token' };
    const byRpc = await rpc(server.url, 'tasks/list', {}, wrong);
    const byRest = await fetch(`${server.url}/v1/tasks`, { headers: wrong });
    const restText = await byRest.text();
    expect([byRpc.status, byRest.status]).toEqual([401, 401]);
    for (const text of [JSON.stringify(byRpc.body), restText]) {
      expect(text).toMatch(/the bearer token in the Authorization header was refused \(accepted: an Authorization: Bearer header\)/);
      expect(text).not.toMatch(/send an Authorization/);
      expect(text).not.toContain('eve-token');
    }
    const none = await rpc(server.url, 'tasks/list', {});
    expect(none.body.error.message).toBe('Authentication required: send an Authorization: Bearer header');
  });
});

describe.each(TRANSPORTS)('authorize refusals over %s', (transport) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      agent: {
        ...authAgent,
        auth: {
          ...authAgent.auth!,
          // Bob may read and send, but not cancel, stream or read push configs.
          authorize: (principal, { operation }) =>
            principal.id === 'alice' || !['tasks/cancel', 'message/stream', 'tasks/pushNotificationConfig/list'].includes(operation),
        },
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a refused operation is 403 (plain JSON even for a stream), an allowed one is served', async () => {
    const sent = await rpc(server.url, 'message/send', { message: userMessage('ask where?') }, BOB);
    const target: Target = { taskId: sent.body.result.id, configId: 'none', hookUrl: 'http://127.0.0.1:9/' };
    for (const name of ['tasks/cancel', 'message/stream', 'tasks/pushNotificationConfig/list']) {
      const answer = await OPERATIONS.find((o) => o.name === name)!.call(server.url, transport, BOB, target);
      expect(answer.status, name).toBe(403);
      expect(answer.error, name).toMatchObject({ code: -32603, message: expect.stringMatching(/^Forbidden/) });
    }
    const get = await OPERATIONS.find((o) => o.name === 'tasks/get')!.call(server.url, transport, BOB, target);
    expect(get.status).toBe(200);
    expect(get.result.status.state).toBe('input-required');
    // Alice is allowed everything, but the task is bob's: she cannot tell it exists.
    const aliceCancel = await OPERATIONS.find((o) => o.name === 'tasks/cancel')!.call(server.url, transport, ALICE, target);
    expect(aliceCancel.status).toBe(transport === 'rest' ? 404 : 200);
    expect(aliceCancel.error?.code).toBe(-32001);
  });
});

describe('API keys, several methods, and what the handler sees', () => {
  let server: TestServer;
  const seen: Json[] = [];
  beforeAll(async () => {
    const agent = defineAgent({
      card: {
        name: 'Keys',
        description: 'API keys or bearer',
        version: '1.0.0',
        skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }],
      },
      auth: {
        ...anyAuth(
          apiKeyAuth({ keys: { 'key-of-carol': { id: 'carol', claims: { plan: 'pro' } } } }),
          bearerAuth({ verify: (token) => (token === 'dave-token' ? { id: 'dave' } : undefined) }),
        ),
        exposeHeaders: ['X-Locale', 'Authorization', 'X-API-Key'],
      },
      handler(ctx) {
        seen.push({ principal: ctx.principal, headers: ctx.headers });
        ctx.complete('ok');
      },
    });
    server = await startServer({ agent });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('the card lists both schemes as alternatives and the 401 challenges name both', async () => {
    const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Json;
    expect(card.securitySchemes).toEqual({
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      bearer: { type: 'http', scheme: 'Bearer' },
    });
    expect(card.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    const refused = await rpc(server.url, 'tasks/list', {}, { 'x-api-key': 'key-of-mallory' });
    expect(refused.status).toBe(401);
    expect(refused.challenge).toBe('ApiKey header="X-API-Key", Bearer realm="a2a"');
    expect(refused.body.error.message).toMatch(/X-API-Key header or an Authorization: Bearer header/);
  });

  it('either credential works; the handler gets the principal and only the exposed, non-secret headers', async () => {
    const byKey = await rpc(
      server.url,
      'message/send',
      { message: userMessage('hi') },
      { 'x-api-key': 'key-of-carol', 'x-locale': 'de-CH' },
    );
    expect(byKey.body.result.status.state).toBe('completed');
    const byToken = await rpc(server.url, 'message/send', { message: userMessage('hi') }, { authorization: 'Bearer dave-token' });
    expect(byToken.body.result.status.state).toBe('completed');
    expect(seen).toEqual([
      { principal: { id: 'carol', claims: { plan: 'pro' } }, headers: { 'x-locale': 'de-CH' } },
      { principal: { id: 'dave' }, headers: {} },
    ]);
    // Carol's task is not dave's.
    const get = await rpc(server.url, 'tasks/get', { id: byKey.body.result.id }, { authorization: 'Bearer dave-token' });
    expect(get.body.error.code).toBe(-32001);
  });
});

describe('JWT bearer tokens from a JWKS on 127.0.0.1, through the server', () => {
  it('a valid token is its subject; an expired one is 401 on both transports; no key server is 503', async () => {
    const key = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(key.publicKey)), kid: 'k1', alg: 'ES256' };
    const jwks = createHttpServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
    );
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
    const token = (sub: string, exp: number) =>
      new SignJWT({ sub, aud: 'a2actor', exp }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(key.privateKey);
    const later = Math.floor(Date.now() / 1000) + 300;
    const agent = (url: string) => defineAgent({ ...authAgent, auth: jwtAuth({ jwksUrl: url, audience: 'a2actor', jwksTimeoutMs: 1000 }) });
    const server = await startServer({ agent: agent(jwksUrl) });
    const down = await startServer({ agent: agent('http://127.0.0.1:1/jwks.json') });
    try {
      const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Json;
      expect(card.securitySchemes).toEqual({ bearer: { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' } });
      const ok = await rpc(
        server.url,
        'message/send',
        { message: userMessage('whoami') },
        { authorization: `Bearer ${await token('carol', later)}` },
      );
      expect(ok.body.result.artifacts[0].parts[0].text).toBe('you are carol');
      const expired = `Bearer ${await token('carol', later - 3600)}`;
      expect((await rpc(server.url, 'tasks/list', {}, { authorization: expired })).status).toBe(401);
      expect((await fetch(`${server.url}/v1/tasks`, { headers: { authorization: expired } })).status).toBe(401);
      const unreachable = await rpc(down.url, 'tasks/list', {}, { authorization: `Bearer ${await token('carol', later)}` });
      expect(unreachable.status).toBe(503);
      expect(unreachable.body.error.message).toMatch(/key server \(JWKS\)/);
      expect((await fetch(`${down.url}/v1/tasks`, { headers: { authorization: `Bearer ${await token('carol', later)}` } })).status).toBe(
        503,
      );
    } finally {
      await server.stop();
      await down.stop();
      await new Promise<void>((resolve) => jwks.close(() => resolve()));
    }
  });
});

describe('authenticators that fail', () => {
  it('a throwing authenticator is a 401 whose log line names no secret; an unavailable key server is a 503', async () => {
    const logs = captureLogs('debug');
    const server = await startServer({
      logger: logs.logger,
      agent: agentWith({
        securitySchemes: { bearer: { type: 'http', scheme: 'Bearer' } },
        authenticate: (req) => {
          if (req.headers.authorization === 'Bearer down') throw unavailable('the identity service is not answering');
          if (req.headers.authorization === 'Bearer empty') return { id: '' };
          throw new Error(`cannot parse ${req.headers.authorization}`);
        },
      }),
    });
    try {
      const broken = await rpc(server.url, 'tasks/list', {}, { authorization: 'Bearer s3cret-value' });
      expect(broken.status).toBe(401);
      const down = await rpc(server.url, 'tasks/list', {}, { authorization: 'Bearer down' });
      expect(down.status).toBe(503);
      expect(down.body.error.message).toMatch(/identity service/);
      const rest = await fetch(`${server.url}/v1/tasks`, { headers: { authorization: 'Bearer down' } });
      expect(rest.status).toBe(503);
      const empty = await rpc(server.url, 'tasks/list', {}, { authorization: 'Bearer empty' });
      expect(empty.status).toBe(401);
      expect(logs.events('auth.authenticator_failed')).toHaveLength(1);
      expect(logs.events('auth.invalid_principal')).toHaveLength(1);
      expect(logs.lines.join('')).not.toMatch(/s3cret-value/);
    } finally {
      await server.stop();
    }
  });

  it('no token appears in any log line of a run that used them, at debug level', async () => {
    const logs = captureLogs('debug');
    const server = await startServer({ agent: authAgent, logger: logs.logger });
    try {
      for (const headers of [ALICE, BOB, { authorization: 'Bearer eve-token' }, {}]) {
        await rpc(server.url, 'message/send', { message: userMessage('echo x') }, headers);
        await fetch(`${server.url}/v1/tasks`, { headers });
        await rpc(server.url, 'agent/getAuthenticatedExtendedCard', {}, headers);
      }
      expect(logs.lines.length).toBeGreaterThan(0);
      expect(logs.lines.join('')).not.toMatch(/alice-token|bob-token|eve-token/);
    } finally {
      await server.stop();
    }
  });
});

describe('declarations refused at start-up', () => {
  const base = { securitySchemes: { bearer: { type: 'http' as const, scheme: 'Bearer' } }, authenticate: () => undefined };
  it.each([
    [
      'a requirement naming an undeclared scheme',
      agentWith({ ...base, security: [{ oauth: ['read'] }] }),
      /auth.security names the security scheme "oauth"/,
    ],
    ['no scheme at all', agentWith({ ...base, securitySchemes: {} }), /declares no scheme/],
    [
      'skill security without auth',
      {
        ...scenarioAgent,
        card: { ...scenarioAgent.card, skills: [{ id: 'x', name: 'x', description: 'x', tags: ['x'], security: [{ bearer: [] }] }] },
      },
      /skill "x" declares security, but the agent declares no auth/,
    ],
    [
      'skill security naming an undeclared scheme',
      agentWith(base, {
        card: { ...scenarioAgent.card, skills: [{ id: 'x', name: 'x', description: 'x', tags: ['x'], security: [{ mtls: [] }] }] },
      }),
      /skill "x" names the security scheme "mtls"/,
    ],
  ])('%s', async (_name, agent, message) => {
    await expect(createServer({ agent, port: 0, host: '127.0.0.1', store: 'memory', logLevel: 'silent', env: {} })).rejects.toThrow(
      message,
    );
  });

  it('skill-level security naming a declared scheme is served on the card', async () => {
    const server = await startServer({
      agent: agentWith(base, {
        card: { ...scenarioAgent.card, skills: [{ id: 'x', name: 'x', description: 'x', tags: ['x'], security: [{ bearer: [] }] }] },
      }),
    });
    try {
      const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Json;
      expect(card.skills[0].security).toEqual([{ bearer: [] }]);
    } finally {
      await server.stop();
    }
  });
});

describe('without auth', () => {
  it('the card declares no security, every caller sees every task, and the handler has no principal', async () => {
    let principal: unknown = 'unset';
    const server = await startServer({
      agent: defineAgent({
        ...scenarioAgent,
        handler(ctx) {
          principal = ctx.principal;
          ctx.complete('ok');
        },
      }),
    });
    try {
      const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Json;
      expect(card).not.toHaveProperty('securitySchemes');
      expect(card).not.toHaveProperty('security');
      const sent = await rpc(server.url, 'message/send', { message: userMessage('hi') }, ALICE);
      expect(principal).toBeUndefined();
      const other = await rpc(server.url, 'tasks/get', { id: sent.body.result.id }, BOB);
      expect(other.body.result.id).toBe(sent.body.result.id);
    } finally {
      await server.stop();
    }
  });
});
