/**
 * A PostgreSQL restart under load: 200 clients keep sending while the database goes away and
 * comes back. Requests during the outage get 503 (never a 500, never a hang), readiness names
 * the store, and afterwards every task that was acknowledged is intact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, restCall, userMessage, type Json } from '../support/a2a.js';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.js';
import { startServer, type TestServer } from '../support/server.js';
import { postgresServerMissing } from '../support/services.js';

const NO_POSTGRES_SERVER = postgresServerMissing('PostgreSQL outage suite');

const CLIENTS = 200;
const REQUEST_TIMEOUT_MS = 20_000;

describe.skipIf(NO_POSTGRES_SERVER)('a PostgreSQL restart during a load of 200 concurrent senders', () => {
  let pg: PrivatePostgres;
  let server: TestServer;
  beforeAll(async () => {
    pg = await startPrivatePostgres();
    server = await startServer({ store: pg.url, storeRetryWindow: 15 } as never);
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await pg?.destroy();
  });

  it('answers 503 while it is down, recovers by itself, and loses no acknowledged task', async () => {
    const acknowledged = new Map<string, Json>();
    const statuses = new Map<number, number>();
    let phase: 'before' | 'outage' | 'after' = 'before';
    const sawDuring = new Set<number>();
    let stop = false;
    let sent = 0;

    const sender = async (n: number) => {
      const rpc = client(server.url, n % 2 ? 'jsonrpc' : 'rest');
      for (let i = 0; !stop && i < 200; i++) {
        sent++;
        const started = Date.now();
        const r = await Promise.race([
          rpc.send({ message: userMessage(`echo ${n}-${i}`) }),
          new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), REQUEST_TIMEOUT_MS).unref()),
        ]);
        if (r === 'hung') throw new Error(`a request hung for ${Date.now() - started} ms`);
        const status = r.error ? (r.status === 200 ? 200 : r.status) : r.status;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (phase === 'outage') sawDuring.add(r.error ? r.status : 200);
        if (!r.error && r.result.status.state === 'completed') acknowledged.set(r.result.id, r.result);
        else if (r.error) {
          expect(r.status).toBe(503);
          await new Promise((res) => setTimeout(res, 20));
        }
      }
    };
    const load = Promise.all(Array.from({ length: CLIENTS }, (_, n) => sender(n)));

    await eventually(() => (acknowledged.size >= 300 ? true : undefined), 30_000);
    const beforeOutage = new Set(acknowledged.keys());
    phase = 'outage';
    await pg.stop();
    const ready = await restCall(server.url, 'GET', '/v1/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.error).toMatchObject({ status: 'unavailable', down: ['store'] });
    await eventually(() => (sawDuring.has(503) ? true : undefined), 15_000);
    await pg.start();
    phase = 'after';
    const countAtRecovery = acknowledged.size;
    await eventually(() => (acknowledged.size >= countAtRecovery + 300 ? true : undefined), 60_000, 50);
    stop = true;
    await load;

    expect(sent).toBeGreaterThan(600);
    expect([...statuses.keys()].sort()).toEqual([200, 503]);
    expect((await restCall(server.url, 'GET', '/v1/health/ready')).status).toBe(200);

    // Every acknowledged task is intact in the store: before, during and after the outage.
    const rest = client(server.url, 'rest');
    for (const [id, task] of acknowledged) {
      const stored = await rest.get(id);
      expect(stored.status, `task ${id}${beforeOutage.has(id) ? ' (before the outage)' : ''}`).toBe(200);
      expect(stored.result.status.state).toBe('completed');
      expect(stored.result.artifacts).toEqual(task.artifacts);
    }
    expect(server.stats()).toMatchObject({ liveTasks: 0, runningActors: 0 });
  }, 180_000);
});
