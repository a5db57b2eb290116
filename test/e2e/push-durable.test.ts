/**
 * Accepted webhook deliveries survive a restart (README "Push notifications", durability): the
 * real CLI runs on SQLite or PostgreSQL while every webhook is down, so its deliveries queue up
 * behind retries; it is stopped with SIGTERM, or killed with kill -9, and started again on the
 * same store with the webhooks up. Every delivery of a transition a client saw acknowledged
 * then arrives, once, and each config gets its deliveries in transition order.
 *
 * The process is killed the moment the last answer arrives, on either store: a turn's answer
 * waits until the deliveries of its transitions are recorded.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { client, eventually, userMessage, type Json } from '../support/a2a.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { tempDir } from '../support/server.js';
import { PG_URL, postgresMissing } from '../support/services.js';
import { OK, startReceiver, type Receiver, type Received } from '../support/webhook.js';

const NO_PG = await postgresMissing('durable push suite (PostgreSQL cases)');

/** Webhooks at a local receiver (loopback, allowlisted for these tests only), retried fast and long. */
const PUSH_ENV = {
  SERVICE_PUSH_ALLOW_HTTP: 'true',
  SERVICE_PUSH_ALLOWED_HOSTS: '127.0.0.1',
  SERVICE_PUSH_MAX_RETRIES: '1000',
  SERVICE_PUSH_RETRY_DELAY: '0.05',
  // No circuit opens: an open circuit lets a newer state replace older ones waiting (backlog.ts),
  // and this test counts every state; push-fairness.test.ts tests the replacing.
  SERVICE_PUSH_CIRCUIT_FAILURES: '1000000',
  // Queued deliveries are not waited for: SIGTERM leaves them queued.
  SERVICE_SHUTDOWN_GRACE: '0.5',
  // After kill -9, PostgreSQL rows are free once the dead process's lease has passed.
  SERVICE_LEASE_TTL: '1',
};

const TASKS = 4;
/** Per task, the states config A (inline, from the first message) and config B (added after) get. */
const STATES_A = ['working', 'input-required', 'working', 'input-required', 'working', 'completed'];
const STATES_B = ['working', 'input-required', 'working', 'completed'];

/** A receiver that drops every connection while `down`, and records what it accepts once up. */
async function switchableReceiver(): Promise<{ rx: Receiver; accepted: Received[]; up(): void }> {
  const accepted: Received[] = [];
  let down = true;
  const rx = await startReceiver({
    respond: (req) => {
      if (down) return { reset: true };
      accepted.push(req);
      return OK;
    },
  });
  return { rx, accepted, up: () => (down = false) };
}

/**
 * Tasks whose every turn was answered while the webhooks were down: each has config A from its
 * first message and config B registered while it waited for input, and ends completed.
 */
async function acceptedTransitions(url: string, rx: Receiver): Promise<string[]> {
  const a2a = client(url, 'rest');
  return Promise.all(
    Array.from({ length: TASKS }, async (_, i) => {
      const hookA = { id: 'a', url: rx.urlVia('127.0.0.1', `/a/${i}`), token: `tok-a-${i}` };
      const first = await a2a.send({ message: userMessage('ask which?'), configuration: { pushNotificationConfig: hookA } });
      expect(first.result.status.state).toBe('input-required');
      const id: string = first.result.id;
      const b = await a2a.setPush(id, { id: 'b', url: rx.urlVia('127.0.0.1', `/b/${i}`), token: `tok-b-${i}` });
      expect(b.status).toBe(200);
      expect((await a2a.send({ message: userMessage('ask more?', { taskId: id }) })).result.status.state).toBe('input-required');
      expect((await a2a.send({ message: userMessage('done', { taskId: id }) })).result.status.state).toBe('completed');
      return id;
    }),
  );
}

/** What one config's path received: the states, in arrival order, with strictly growing timestamps. */
function statesAt(accepted: Received[], path: string, token: string): string[] {
  const mine = accepted.filter((r) => r.path === path);
  for (const r of mine) expect(r.headers['x-a2a-notification-token']).toBe(token);
  const stamps = mine.map((r) => Date.parse((r.body as Json).status.timestamp));
  for (let i = 1; i < stamps.length; i++) expect(stamps[i], `${path} in transition order`).toBeGreaterThan(stamps[i - 1] as number);
  return mine.map((r) => (r.body as Json).status.state);
}

const EXPECTED = TASKS * (STATES_A.length + STATES_B.length);

async function expectEveryDeliveryOnceInOrder(accepted: Received[], ids: string[]): Promise<void> {
  await eventually(() => (accepted.length >= EXPECTED ? true : undefined), 10_000).catch(() => undefined);
  expect(accepted.length, 'deliveries that arrived after the restart').toBe(EXPECTED);
  ids.forEach((id, i) => {
    expect(statesAt(accepted, `/a/${i}`, `tok-a-${i}`)).toEqual(STATES_A);
    expect(statesAt(accepted, `/b/${i}`, `tok-b-${i}`)).toEqual(STATES_B);
    for (const r of accepted.filter((r) => r.path.endsWith(`/${i}`))) expect((r.body as Json).id).toBe(id);
  });
}

describe.each(
  (
    [
      ['SQLite', 'sqlite'],
      ['PostgreSQL', 'postgres'],
    ] as const
  ).filter(([, kind]) => kind !== 'postgres' || !NO_PG),
)('webhook deliveries across a restart (%s)', (_name, kind) => {
  const temp = tempDir();
  const schemas: string[] = [];
  const running: ServerProcess[] = [];
  const receivers: Receiver[] = [];
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) await p.kill('SIGKILL');
    for (const rx of receivers) await rx.close();
    temp.cleanup();
    if (schemas.length === 0) return;
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await c.end();
  });

  const storeFor = (name: string): string => {
    if (kind === 'sqlite') return `sqlite:${join(temp.dir, `${name}.db`)}`;
    const schema = `a2actor_push_durable_${name}_${process.pid}_${Date.now() % 100000}`;
    schemas.push(schema);
    return `${PG_URL}?schema=${schema}`;
  };
  const serve = async (store: string): Promise<ServerProcess> => {
    const proc = await spawnServer(['examples/scenario-agent.ts', '--store', store], PUSH_ENV);
    running.push(proc);
    return proc;
  };

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`every delivery queued before ${signal === 'SIGTERM' ? 'SIGTERM' : 'kill -9'} is sent after the restart, in order per config`, async () => {
      const { rx, accepted, up } = await switchableReceiver();
      receivers.push(rx);
      const store = storeFor(signal.toLowerCase());
      const first = await serve(store);
      const ids = await acceptedTransitions(first.url, rx);
      // The first attempts were made and refused: the deliveries wait in their retries.
      await eventually(() => (rx.received.length >= TASKS ? true : undefined));
      await first.kill(signal);
      expect(accepted).toEqual([]);

      up();
      const second = await serve(store);
      await expectEveryDeliveryOnceInOrder(accepted, ids);
      await second.kill('SIGTERM');
    });
  }
});
