/**
 * The runtime the in-process micros drive (turn.ts, stream-path.ts): a TaskService with the
 * bench's echo agent, a memory store and a memory event log on the default settings, in a
 * process whose V8 pretenuring is set as createServer sets it (`pretenuring: 'off'` by default,
 * so what they measure is what a served task pays; BENCH_PRETENURING=v8 keeps V8's own).
 */
import { resolveSettings, type Settings } from '../../src/config.js';
import { applyPretenuring } from '../../src/heap-tuning.js';
import { silentLogger } from '../../src/log.js';
import type { ServerMetrics } from '../../src/observe/metrics.js';
import { MemoryEventLog } from '../../src/runtime/event-log.js';
import { TaskService } from '../../src/runtime/task-service.js';
import { measuredStore } from '../../src/store/measured.js';
import { MemoryTaskStore } from '../../src/store/memory.js';
import echoAgent from '../agents/echo-agent.js';

export interface EchoService {
  service: TaskService;
  store: MemoryTaskStore;
  settings: Settings;
}

/**
 * A new service (not initialized: wire what the micro needs, then `await service.init()`). With
 * `metrics`, the service and its store are measured as createServer measures them (`store` stays
 * the adapter itself).
 */
export function echoService(opts: { metrics?: ServerMetrics } = {}): EchoService {
  applyPretenuring(process.env.BENCH_PRETENURING === 'v8' ? 'v8' : 'off');
  const settings = resolveSettings({}, {});
  const store = new MemoryTaskStore();
  const { metrics } = opts;
  const service = new TaskService({
    agent: echoAgent,
    store: metrics ? measuredStore(store, metrics) : store,
    ...(metrics ? { metrics } : {}),
    events: new MemoryEventLog(settings.eventReplay, settings.eventRetention * 1000),
    settings,
    logger: silentLogger,
  });
  return { service, store, settings };
}
