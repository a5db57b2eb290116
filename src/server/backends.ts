/**
 * Stage 3 of createServer: the backends. The task store, the V8 tuning that depends on it (only
 * when asked: `tuneHeap`), the event log and the coordinator. A backend that cannot be opened
 * stops the start with its URL (credentials left out), and closes the store opened before it.
 */
import type { Settings } from '../config.js';
import { tuneHeap, type HeapTuning } from '../heap-tuning.js';
import type { Logger } from '../log.js';
import type { ServerMetrics } from '../observe/metrics.js';
import { openCoordinator, openEventLog } from '../cluster/open.js';
import type { Coordinator } from '../runtime/coordinator.js';
import type { TaskEventLog } from '../runtime/event-log.js';
import { measuredStore } from '../store/measured.js';
import { openStore } from '../store/open.js';
import type { TaskStore } from '../store/types.js';

export interface GivenBackends {
  readonly taskStore: TaskStore | undefined;
  readonly eventLog: TaskEventLog | undefined;
  readonly coordinator: Coordinator | undefined;
  /** Set the process's V8 flags from the settings (createServer's `tuneHeap`). */
  readonly tuneHeap: boolean;
}

export interface BackendsStage {
  /** The store adapter itself (`server.store`). */
  readonly store: TaskStore;
  /** The store as the runtime uses it: timed when metrics are on. */
  readonly timedStore: TaskStore;
  readonly events: TaskEventLog;
  readonly coordinator: Coordinator;
  readonly heap: HeapTuning;
}

/** A backend's URL as it may be shown: no user name or password. */
function withoutCredentials(spec: string): string {
  try {
    const url = new URL(spec);
    if (!url.username && !url.password) return spec;
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return spec;
  }
}

/** A backend that failed at start-up, named with its URL (credentials left out). */
const backendError = (what: string, spec: string, err: unknown): Error =>
  new Error(`the ${what} ${withoutCredentials(spec)} could not be opened: ${err instanceof Error ? err.message : String(err)}`, {
    cause: err,
  });

export async function backendsStage(
  given: GivenBackends,
  settings: Settings,
  logger: Logger,
  metrics: ServerMetrics | undefined,
): Promise<BackendsStage> {
  let store: TaskStore;
  try {
    store =
      given.taskStore ??
      (await openStore(settings.store, { sqliteSynchronous: settings.sqliteSynchronous, sqliteDriver: settings.sqliteDriver }));
  } catch (err) {
    throw backendError('store', settings.store, err);
  }
  // Before the load, and only when asked: the flags are the whole process's, not this server's.
  const heap = tuneHeap(given.tuneHeap, settings, store);
  const events =
    given.eventLog ??
    (await openEventLog(settings, logger, metrics).catch(async (err: unknown) => {
      await store.close();
      throw backendError('event log', settings.events, err);
    }));
  let coordinator: Coordinator;
  try {
    coordinator = given.coordinator ?? (await openCoordinator(settings.events, settings.leaseTtl, logger, metrics));
  } catch (err) {
    await store.close();
    throw backendError('event log', settings.events, err);
  }
  // Timed store operations; `server.store` stays the adapter itself.
  const timedStore = metrics ? measuredStore(store, metrics) : store;
  return { store, timedStore, events, coordinator, heap };
}
