/**
 * A Redis outage under a replica: while Redis is away, requests that need it get 503 at once
 * (never a hang), readiness names the event backend, and the replica recovers by itself when
 * Redis is back. Tasks acknowledged before, during and after stay intact in PostgreSQL.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, restCall, userMessage, type Json } from '../support/a2a.js';
import { startPrivateRedis, type PrivateRedis } from '../support/private-redis.js';
import { startServer, type TestServer } from '../support/server.js';
import { PG_URL, postgresMissing, redisServerMissing } from '../support/services.js';

const NO_SERVICES = redisServerMissing('Redis outage suite') || (await postgresMissing('Redis outage suite'));
const schema = `a2actor_redis_outage_${process.pid}_${Date.now() % 100000}`;
const BOUND_MS = 10_000;

const bounded = <T>(p: Promise<T>): Promise<T> =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('a request hung')), BOUND_MS).unref())]);

describe.skipIf(NO_SERVICES)('a Redis outage under a replica', () => {
  let redis: PrivateRedis;
  let server: TestServer;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    server = await startServer({ store: `${PG_URL}?schema=${schema}`, events: redis.url, leaseTtl: 5 } as never);
  });
  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  });

  it('answers 503 at once while Redis is away and recovers by itself', async () => {
    const rpc = client(server.url, 'jsonrpc');
    const rest = client(server.url, 'rest');
    const before = await rpc.send({ message: userMessage('echo before') });
    expect(before.result.status.state).toBe('completed');

    await redis.stop();
    const during = await bounded(rpc.send({ message: userMessage('echo during') }));
    expect(during.status).toBe(503);
    expect(during.error?.code).toBe(-32603);
    const restDuring = await bounded(rest.send({ message: userMessage('echo during') }));
    expect(restDuring.status).toBe(503);
    const sub = await bounded(fetch(`${server.url}/v1/tasks/${before.result.id}:subscribe`, { method: 'POST' }));
    expect([400, 503]).toContain(sub.status); // the task is finished (400) or Redis is needed first (503)
    const ready = await restCall(server.url, 'GET', '/v1/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.error).toMatchObject({ down: ['events'] });
    // Reads that need only PostgreSQL keep working.
    expect((await rest.get(before.result.id)).result.status.state).toBe('completed');

    await redis.start();
    const after: Json = await eventually(
      async () => {
        const r = await bounded(rpc.send({ message: userMessage('echo after') }));
        return r.status === 200 ? r.result : undefined;
      },
      20_000,
      200,
    );
    expect(after.status.state).toBe('completed');
    // Each Redis connection reconnects on its own backoff: the one a send needs may be back
    // before the event log's, which readiness also pings. Ready follows within the window.
    const readyAgain = await eventually(
      async () => ((await restCall(server.url, 'GET', '/v1/health/ready')).status === 200 ? true : undefined),
      20_000,
      200,
    );
    expect(readyAgain).toBe(true);
    expect((await rest.get(before.result.id)).result).toEqual(before.result);
  }, 60_000);
});
