/** Leases and cancel signals against the real Redis on 127.0.0.1:6379. */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisCoordinator } from '../../src/cluster/redis-coordinator.js';
import { eventually } from '../support/a2a.js';
import { REDIS_URL, redisMissing } from '../support/services.js';

const NO_REDIS = await redisMissing('Redis coordinator suite');

describe.skipIf(NO_REDIS)('RedisCoordinator', () => {
  const prefix = `a2actor-test-${randomUUID()}`;
  const open: RedisCoordinator[] = [];
  const coordinator = async (leaseTtlMs = 1000) => {
    const c = await RedisCoordinator.open({ url: REDIS_URL, leaseTtlMs, prefix });
    open.push(c);
    return c;
  };
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('one replica at a time holds a task; released leases can be taken', async () => {
    const a = await coordinator();
    const b = await coordinator();
    expect(await a.acquire('t1')).toBe(true);
    expect(await a.acquire('t1')).toBe(true); // re-entrant for its holder
    expect(await b.acquire('t1')).toBe(false);
    expect(await b.isOwned('t1')).toBe(true);
    await b.release('t1'); // not the holder: no effect
    expect(await b.acquire('t1')).toBe(false);
    await a.release('t1');
    expect(await a.isOwned('t1')).toBe(false);
    expect(await b.acquire('t1')).toBe(true);
  });

  it('a held lease is renewed past its TTL; a dead holder’s lease expires', async () => {
    const a = await coordinator(300);
    expect(await a.acquire('t2')).toBe(true);
    await new Promise((r) => setTimeout(r, 900));
    expect(await a.isOwned('t2')).toBe(true);
    // A replica that died: its key is there but nobody renews it.
    const raw = new Redis(REDIS_URL);
    await raw.set(`${prefix}:lease:t3`, 'dead-replica', 'PX', 300);
    raw.disconnect();
    const b = await coordinator(300);
    expect(await b.acquire('t3')).toBe(false);
    await eventually(async () => ((await b.acquire('t3')) ? true : undefined), 3000, 50);
  });

  it('a cancel request reaches every replica', async () => {
    const a = await coordinator();
    const b = await coordinator();
    const heard: string[] = [];
    a.onCancelRequest((id) => heard.push(id));
    await b.requestCancel('t4');
    await eventually(() => (heard.includes('t4') ? true : undefined), 3000);
  });

  it('an unreachable Redis is refused at open', async () => {
    await expect(RedisCoordinator.open({ url: 'redis://127.0.0.1:1', leaseTtlMs: 1000 })).rejects.toThrow();
  });
});
