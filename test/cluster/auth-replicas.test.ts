/**
 * Tenancy across replicas: two CLI processes serving examples/auth-agent.ts on one PostgreSQL
 * and one Redis. A task's owner travels with it, whichever replica a request lands on.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, userMessage, type Json } from '../support/a2a.js';
import { ALICE, BOB, OPERATIONS, sendAs, withoutId, type Target } from '../support/auth-calls.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { PG_URL, postgresOrRedisMissing, REDIS_URL } from '../support/services.js';

const NO_SERVICES = await postgresOrRedisMissing('auth replica suite');
const schema = `a2actor_auth_replicas_${process.pid}_${Date.now() % 100000}`;

const replica = () =>
  spawnServer(['examples/auth-agent.ts', '--store', `${PG_URL}?schema=${schema}`, '--events', REDIS_URL], {
    SERVICE_LEASE_TTL: '2',
    SERVICE_PUSH_ALLOW_HTTP: 'true',
    SERVICE_PUSH_ALLOWED_HOSTS: '127.0.0.1',
  });

describe.skipIf(NO_SERVICES)('auth across two replicas on PostgreSQL and Redis', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  beforeAll(async () => {
    a = await replica();
    b = await replica();
  });
  afterAll(async () => {
    for (const p of [a, b]) if (p && p.child.exitCode === null) await p.kill('SIGKILL');
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  });

  it('a task alice paused on A is invisible to bob on B on every operation, and alice continues it on B', async () => {
    const paused = await sendAs(a.url, ALICE, { message: userMessage('ask where?') });
    expect(paused.status.state).toBe('input-required');
    const target: Target = { taskId: paused.id, configId: 'none', hookUrl: 'http://127.0.0.1:9/' };
    const unknown: Target = { ...target, taskId: '01900000-0000-7000-8000-000000000000' };
    for (const transport of ['jsonrpc', 'rest'] as const) {
      for (const op of OPERATIONS.filter((o) => o.onTask)) {
        const asBob = await op.call(b.url, transport, BOB, target);
        expect(asBob.error?.code, `${transport} ${op.name}`).toBe(-32001);
        expect(withoutId(asBob, target.taskId)).toEqual(withoutId(await op.call(b.url, transport, BOB, unknown), unknown.taskId));
      }
    }
    const done = await sendAs(b.url, ALICE, { message: userMessage('here', { taskId: paused.id }) });
    expect(done.status.state).toBe('completed');
    expect(done.artifacts[0].parts[0].text).toBe('got: here');
  });

  it('a task running on A: bob cannot cancel it from B, alice can', async () => {
    const running = await sendAs(a.url, ALICE, { message: userMessage('slow 20000'), configuration: { blocking: false } });
    const cancel = OPERATIONS.find((o) => o.name === 'tasks/cancel')!;
    const target: Target = { taskId: running.id, configId: 'none', hookUrl: '' };
    const refused = await cancel.call(b.url, 'rest', BOB, target);
    expect(refused.status).toBe(404);
    const get = OPERATIONS.find((o) => o.name === 'tasks/get')!;
    expect((await get.call(a.url, 'jsonrpc', ALICE, target)).result.status.state).toBe('working');
    await cancel.call(b.url, 'jsonrpc', ALICE, target);
    await eventually(
      async () => ((await get.call(b.url, 'rest', ALICE, target)).result.status.state === 'canceled' ? true : undefined),
      8000,
    );
  });

  it("lists on either replica hold only the caller's tasks", async () => {
    const mine = await sendAs(b.url, BOB, { message: userMessage('whoami') });
    expect(mine.artifacts[0].parts[0].text).toBe('you are bob');
    for (const url of [a.url, b.url]) {
      const bob = (await (await fetch(`${url}/v1/tasks?pageSize=100`, { headers: BOB })).json()) as Json;
      expect(bob.tasks.map((t: Json) => t.id)).toEqual([mine.id]);
      expect(bob.totalSize).toBe(1);
      const alice = (await (await fetch(`${url}/v1/tasks?pageSize=100`, { headers: ALICE })).json()) as Json;
      expect(alice.tasks.map((t: Json) => t.id)).not.toContain(mine.id);
      expect(alice.totalSize).toBe(alice.tasks.length);
      expect(alice.totalSize).toBeGreaterThanOrEqual(2);
    }
  });
});
