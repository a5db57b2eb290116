/**
 * Recorded webhook deliveries with two replicas (PostgreSQL + Redis): each delivery is sent by
 * one replica. While both live, neither takes the other's deliveries; when one is killed with
 * kill -9, the other takes over what it held once its lease has passed, and sends each once.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, userMessage, type Json } from '../support/a2a.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { outboxRows } from '../support/outbox-rows.js';
import { PG_URL, postgresOrRedisMissing, REDIS_URL } from '../support/services.js';
import { OK, startReceiver, type Receiver, type Received } from '../support/webhook.js';

const NO_SERVICES = await postgresOrRedisMissing('durable push replica suite');
const schema = `a2actor_push_durable_${process.pid}_${Date.now() % 100000}`;
const LEASE_TTL_S = 1;

const replica = () =>
  spawnServer(['examples/scenario-agent.ts', '--store', `${PG_URL}?schema=${schema}`, '--events', REDIS_URL], {
    SERVICE_LEASE_TTL: String(LEASE_TTL_S),
    SERVICE_PUSH_ALLOW_HTTP: 'true',
    SERVICE_PUSH_ALLOWED_HOSTS: '127.0.0.1',
    SERVICE_PUSH_MAX_RETRIES: '1000',
    SERVICE_PUSH_RETRY_DELAY: '0.05',
    // No circuit opens, so no newer state replaces an older one: every state is counted.
    SERVICE_PUSH_CIRCUIT_FAILURES: '1000000',
  });

const STATES = ['working', 'input-required', 'working', 'completed'];

describe.skipIf(NO_SERVICES)('recorded webhook deliveries across replicas', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  let rx: Receiver;
  let down = true;
  const accepted: Received[] = [];
  beforeAll(async () => {
    rx = await startReceiver({
      respond: (req) => {
        if (down) return { reset: true };
        accepted.push(req);
        return OK;
      },
    });
    a = await replica();
    b = await replica();
  });
  afterAll(async () => {
    for (const p of [a, b]) if (p && p.child.exitCode === null) await p.kill('SIGKILL');
    await rx?.close();
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  });

  /** Tasks whose turns (ask, then done) ran on `on` while the webhook was down; one config each, at its own path. */
  const tasksOn = (on: ServerProcess, tag: string, n: number): Promise<string[]> =>
    Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const a2a = client(on.url, 'rest');
        const hook = { url: rx.urlVia('127.0.0.1', `/${tag}/${i}`) };
        const first = await a2a.send({ message: userMessage('ask which?'), configuration: { pushNotificationConfig: hook } });
        const done = await a2a.send({ message: userMessage('done', { taskId: first.result.id }) });
        expect(done.result.status.state).toBe('completed');
        return `/${tag}/${i}`;
      }),
    );

  const statesAt = (path: string): string[] => accepted.filter((r) => r.path === path).map((r) => (r.body as Json).status.state);

  it('while both replicas live, each sends its own deliveries, once', async () => {
    const paths = [...(await tasksOn(a, 'a', 3)), ...(await tasksOn(b, 'b', 3))];
    const expected = paths.length * STATES.length;
    await eventually(async () => ((await outboxRows(PG_URL, schema)) === expected ? true : undefined));
    // Longer than a lease: a replica that took rows another still holds would have by now.
    await new Promise((resolve) => setTimeout(resolve, 2500 * LEASE_TTL_S));
    down = false;
    await eventually(() => (accepted.length >= expected ? true : undefined), 12_000).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(accepted.length).toBe(expected);
    for (const path of paths) expect(statesAt(path), path).toEqual(STATES);
    await eventually(async () => ((await outboxRows(PG_URL, schema)) === 0 ? true : undefined));
  }, 30_000);

  it('after kill -9 of one replica, the other sends what it held, once each, in order', async () => {
    down = true;
    accepted.length = 0;
    const paths = await tasksOn(a, 'killed', 4);
    const expected = paths.length * STATES.length;
    await eventually(async () => ((await outboxRows(PG_URL, schema)) === expected ? true : undefined));
    await a.kill('SIGKILL');
    down = false;
    await eventually(() => (accepted.length >= expected ? true : undefined), 10_000).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(accepted.length).toBe(expected);
    for (const path of paths) expect(statesAt(path), path).toEqual(STATES);
    await eventually(async () => ((await outboxRows(PG_URL, schema)) === 0 ? true : undefined));
  }, 30_000);
});
