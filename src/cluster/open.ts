/** The coordination backend and the event log named by the `events` setting. */
import type { Settings } from '../config.js';
import type { Logger } from '../log.js';
import { MemoryEventLog, type TaskEventLog } from '../runtime/event-log.js';
import { LocalCoordinator, type Coordinator } from '../runtime/coordinator.js';
import { loadBackend } from '../load-backend.js';
import type { Metrics } from '../observe/metrics.js';

export async function openCoordinator(events: string, leaseTtlSeconds: number, logger: Logger, metrics?: Metrics): Promise<Coordinator> {
  if (events === 'memory') return new LocalCoordinator();
  let lastReport = 0;
  const { RedisCoordinator } = await loadBackend(() => import('./redis-coordinator.js'), 'ioredis', 'the Redis event log');
  return RedisCoordinator.open({
    url: events,
    leaseTtlMs: leaseTtlSeconds * 1000,
    ...(metrics ? { metrics } : {}),
    // ioredis reports every failed reconnect; one line per few seconds is enough.
    onError: (err) => {
      if (Date.now() - lastReport < 5000) return;
      lastReport = Date.now();
      logger.warn('redis.unavailable', { error: err.message });
    },
  });
}

export async function openEventLog(
  settings: Pick<Settings, 'events' | 'eventReplay' | 'eventRetention'> &
    Partial<Pick<Settings, 'eventReplayMaxBytes' | 'eventRetainedMaxBytes'>>,
  logger: Logger,
  metrics?: Metrics,
): Promise<TaskEventLog> {
  const local = new MemoryEventLog(settings.eventReplay, settings.eventRetention * 1000, {
    perTask: settings.eventReplayMaxBytes,
    retained: settings.eventRetainedMaxBytes,
  });
  if (settings.events === 'memory') return local;
  const { RedisEventLog } = await loadBackend(() => import('./redis-event-log.js'), 'ioredis', 'the Redis event log');
  return RedisEventLog.open({
    url: settings.events,
    local,
    capacity: settings.eventReplay,
    retentionMs: settings.eventRetention * 1000,
    logger,
    ...(metrics ? { metrics } : {}),
  });
}
