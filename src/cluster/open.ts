/** The coordination backend named by the `events` setting. */
import type { Logger } from '../log.js';
import { LocalCoordinator, type Coordinator } from './coordinator.js';
import { RedisCoordinator } from './redis-coordinator.js';

export async function openCoordinator(events: string, leaseTtlSeconds: number, logger: Logger): Promise<Coordinator> {
  if (events === 'memory') return new LocalCoordinator();
  let lastReport = 0;
  return RedisCoordinator.open({
    url: events,
    leaseTtlMs: leaseTtlSeconds * 1000,
    // ioredis reports every failed reconnect; one line per few seconds is enough.
    onError: (err) => {
      if (Date.now() - lastReport < 5000) return;
      lastReport = Date.now();
      logger.warn('redis.unavailable', { error: err.message });
    },
  });
}
