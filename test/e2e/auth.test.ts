/**
 * Authentication and tenancy end to end (examples/auth-agent.ts: bearer tokens for alice and
 * bob): every endpoint of both transports refuses a caller without valid credentials with 401,
 * serves the right one, and never shows one principal's tasks to another — on memory, SQLite
 * and PostgreSQL.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import authAgent from '../../examples/auth-agent.js';
import { TRANSPORTS, userMessage, type Json, type TransportName } from '../support/a2a.js';
import { ALICE, BOB, OPERATIONS, sendAs, withoutId, type Answer, type Target } from '../support/auth-calls.js';
import { startServer, tempDir, type TestServer } from '../support/server.js';
import { PG_URL, postgresMissing } from '../support/services.js';
import { startReceiver, type Receiver } from '../support/webhook.js';

const schemas: string[] = [];
const temp = tempDir('a2actor-auth-');

/** The stores TEST_STORES names (all when unset); PostgreSQL only when it answers here (services.ts). */
const wanted = (name: string): boolean => process.env.TEST_STORES === undefined || process.env.TEST_STORES.split(',').includes(name);
const NO_PG = wanted('postgres') && (await postgresMissing('auth suite (PostgreSQL store)'));
const STORES = [
  { name: 'memory', store: () => 'memory' },
  { name: 'sqlite', store: () => `sqlite:${join(temp.dir, `auth-${Date.now()}.db`)}` },
  {
    name: 'postgres',
    store: () => {
      const schema = `a2actor_auth_${process.pid}_${schemas.length}_${Date.now() % 100000}`;
      schemas.push(schema);
      return `${PG_URL}?schema=${schema}`;
    },
  },
].filter((s) => wanted(s.name) && !(s.name === 'postgres' && NO_PG));

afterAll(async () => {
  temp.cleanup();
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await client.end();
});

/** Bodies and challenges of refused calls must never carry a token. */
const expectNoToken = (answer: Answer) => expect(JSON.stringify(answer)).not.toMatch(/alice-token|bob-token|eve-token/);

/** What a successful call of each operation looks like. */
const SUCCESS_STATUS: Record<string, number[]> = { 'tasks/pushNotificationConfig/delete': [200, 204] };

describe.each(STORES)('auth on the $name store', ({ store: storeFor }) => {
  let server: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startServer({ agent: authAgent, store: storeFor(), pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  /** An alice task paused in input-required, with one push config: what the task calls act on. */
  async function alicePausedTask(transport: TransportName): Promise<Target> {
    const result = await sendAs(server.url, ALICE, {
      message: userMessage(`ask via ${transport}?`),
      configuration: { pushNotificationConfig: { id: 'hook', url: receiver.url } },
    });
    expect(result.status.state).toBe('input-required');
    return { taskId: result.id, configId: 'hook', hookUrl: receiver.url };
  }

  describe.each(TRANSPORTS)('over %s', (transport) => {
    it('every endpoint answers 401 with a Bearer challenge without credentials, with wrong ones and with malformed ones', async () => {
      const target = await alicePausedTask(transport);
      const refused: Record<string, string>[] = [
        {},
        { authorization: 'Bearer eve-token' },
        { authorization: 'Bearer' },
        { authorization: 'Basic YWxpY2U6YWxpY2UtdG9rZW4=' },
        { authorization: 'Bearer alice-token extra' },
        { authorization: 'bearer  ' },
        { authorization: `Bearer ${'a'.repeat(3000)}` },
        { authorization: 'Bearer alice-tökén' },
      ];
      for (const op of OPERATIONS) {
        for (const headers of refused) {
          const answer = await op.call(server.url, transport, headers, target);
          const where = `${op.name} with ${JSON.stringify(headers).slice(0, 60)}`;
          expect(answer.status, where).toBe(401);
          expect(answer.challenge, where).toBe('Bearer realm="a2a"');
          expect(answer.error, where).toMatchObject({ code: -32603, message: expect.stringMatching(/^Authentication required/) });
          expectNoToken(answer);
        }
      }
      // Nothing the refused calls asked for happened: the task is as it was.
      const still = await OPERATIONS.find((o) => o.name === 'tasks/get')!.call(server.url, transport, ALICE, target);
      expect(still.result.status.state).toBe('input-required');
      expect(still.result.history).toHaveLength(2);
    });

    it('with the right credentials every endpoint serves its caller', async () => {
      const target = await alicePausedTask(transport);
      for (const op of OPERATIONS) {
        const answer = await op.call(server.url, transport, ALICE, target);
        expect(answer.error, op.name).toBeUndefined();
        expect(SUCCESS_STATUS[op.name] ?? [200], op.name).toContain(answer.status);
      }
    });

    it("bob sees none of alice's tasks: every operation on one answers exactly as for an unknown task", async () => {
      const target = await alicePausedTask(transport);
      const unknown: Target = { ...target, taskId: '01900000-0000-7000-8000-000000000000' };
      for (const op of OPERATIONS.filter((o) => o.onTask)) {
        const asBob = await op.call(server.url, transport, BOB, target);
        const asUnknown = await op.call(server.url, transport, BOB, unknown);
        expect(asBob.error?.code, op.name).toBe(-32001);
        expect(withoutId(asBob, target.taskId), op.name).toEqual(withoutId(asUnknown, unknown.taskId));
      }
      // And none of it touched the task: still paused, same history, its push config still there.
      const get = OPERATIONS.find((o) => o.name === 'tasks/get')!;
      const mine = await get.call(server.url, transport, ALICE, target);
      expect(mine.result.status.state).toBe('input-required');
      expect(mine.result.history).toHaveLength(2);
      const configs = await OPERATIONS.find((o) => o.name === 'tasks/pushNotificationConfig/list')!.call(
        server.url,
        transport,
        ALICE,
        target,
      );
      expect(configs.result.map((c: Json) => c.pushNotificationConfig.id)).toEqual(['hook']);
    });

    it('lists show each caller only its own tasks on every page, with totals to match, a context filter included', async () => {
      const ctx = `ctx-${transport}-${Date.now()}`;
      const send = async (who: Record<string, string>, text: string, extra: Record<string, unknown> = {}) =>
        (await sendAs(server.url, who, { message: userMessage(text, extra) })).id as string;
      const aliceIds: string[] = [];
      for (let i = 0; i < 5; i++) aliceIds.push(await send(ALICE, `echo a${i}`, { contextId: ctx }));
      // Bob names alice's context: his task joins that context id, but only for him.
      const bobIds = [await send(BOB, 'echo b0', { contextId: ctx }), await send(BOB, 'echo b1')];

      const pages = async (who: Record<string, string>, params: Record<string, unknown>) => {
        const seen: string[] = [];
        let total = -1;
        let token = '';
        for (let page = 0; page < 50; page++) {
          const q = { ...params, pageSize: 2, ...(token ? { pageToken: token } : {}) };
          const answer = await listVia(server.url, transport, who, q);
          expect(answer.status).toBe(200);
          total = answer.result.totalSize;
          seen.push(...answer.result.tasks.map((t: Json) => t.id));
          token = answer.result.nextPageToken;
          if (!token) break;
        }
        return { seen, total };
      };
      const aliceCtx = await pages(ALICE, { contextId: ctx });
      expect(aliceCtx.seen).toEqual(aliceIds.slice().reverse());
      expect(aliceCtx.total).toBe(5);
      const bobCtx = await pages(BOB, { contextId: ctx });
      expect(bobCtx.seen).toEqual([bobIds[0]]);
      expect(bobCtx.total).toBe(1);
      const bobAll = await pages(BOB, {});
      expect(bobAll.seen.filter((id) => aliceIds.includes(id))).toEqual([]);
      expect(bobAll.seen).toEqual(expect.arrayContaining(bobIds));
      expect(bobAll.total).toBe(bobAll.seen.length);
      const aliceAll = await pages(ALICE, { status: 'completed' });
      expect(aliceAll.seen.filter((id) => bobIds.includes(id))).toEqual([]);
      expect(aliceAll.total).toBe(aliceAll.seen.length);
    });

    it('the same messageId from two callers makes two tasks, and whoami names each caller', async () => {
      const messageId = `same-${transport}-${Date.now()}`;
      const send = (who: Record<string, string>) => sendAs(server.url, who, { message: { ...userMessage('whoami'), messageId } });
      const a1 = await send(ALICE);
      const b1 = await send(BOB);
      const a2 = await send(ALICE);
      expect(b1.id).not.toBe(a1.id);
      expect(a2.id).toBe(a1.id);
      expect(a1.artifacts[0].parts[0].text).toBe('you are alice');
      expect(b1.artifacts[0].parts[0].text).toBe('you are bob');
    });
  });
});

/** `tasks/list` with query parameters, over either transport. */
function listVia(url: string, transport: TransportName, headers: Record<string, string>, params: Record<string, unknown>): Promise<Answer> {
  if (transport === 'jsonrpc') {
    return fetch(`${url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/list', params }),
    }).then(async (r) => {
      const body: Json = await r.json();
      return {
        status: r.status,
        challenge: r.headers.get('www-authenticate'),
        ...(body.error ? { error: body.error } : { result: body.result }),
      };
    });
  }
  const q = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]));
  return fetch(`${url}/v1/tasks?${q}`, { headers }).then(async (r) => ({
    status: r.status,
    challenge: r.headers.get('www-authenticate'),
    result: await r.json(),
  }));
}
