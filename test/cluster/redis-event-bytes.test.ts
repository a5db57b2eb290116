/**
 * The Redis Stream of a task's events is bounded as the local log is: by count and by the bytes
 * of its events' JSON, the oldest going first, so another replica's replay never holds more.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/a2a/schemas.js';
import { RedisEventLog } from '../../src/cluster/redis-event-log.js';
import { silentLogger } from '../../src/log.js';
import { MemoryEventLog } from '../../src/runtime/event-log.js';
import { eventually } from '../support/a2a.js';
import { startPrivateRedis, type PrivateRedis } from '../support/private-redis.js';
import { redisServerMissing } from '../support/services.js';

const NO_REDIS_SERVER = redisServerMissing('Redis event log suite');

const chunk = (i: number): StreamEvent => ({
  kind: 'artifact-update',
  taskId: 't',
  contextId: 'c',
  artifact: { artifactId: 'a', parts: [{ kind: 'text', text: `${i} ${'x'.repeat(200)}` }] },
  append: i > 1,
});

describe.skipIf(NO_REDIS_SERVER)('the Redis event log', () => {
  let redis: PrivateRedis;
  let reader: Redis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    await redis.start();
    reader = new Redis(redis.url);
  });
  afterAll(async () => {
    reader?.disconnect();
    await redis?.stop();
  });

  it('keeps in the Stream only the newest events that fit the byte bound', async () => {
    const size = JSON.stringify(chunk(10)).length;
    const local = new MemoryEventLog(1000, 60_000, { perTask: size * 10 });
    const log = await RedisEventLog.open({
      url: redis.url,
      local,
      capacity: 1000,
      retentionMs: 60_000,
      logger: silentLogger,
      prefix: 'bytes',
    });
    try {
      log.open('t', { afterSeq: 0, watched: false });
      for (let i = 1; i <= 100; i++) log.append('t', chunk(i));
      const firstKept = local.firstSeq('t');
      expect(firstKept).toBeGreaterThan(80);
      log.close('t');
      const entries = await eventually(async () => {
        const found = await reader.xrange('bytes:events:t', '-', '+');
        return found.at(-1)?.[0] === '0-100' ? found : undefined;
      });
      const bytes = entries.reduce((n, [, fields]) => n + (fields[1]?.length ?? 0), 0);
      expect(bytes).toBeLessThanOrEqual(size * 10 + 10);
      expect(entries[0]?.[0]).toBe(`0-${firstKept}`);
      expect(entries.length).toBeGreaterThanOrEqual(9);
    } finally {
      log.dispose();
    }
  });
});
