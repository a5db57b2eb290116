/**
 * A TaskStore whose operations are timed into `a2actor_store_operation_duration_seconds`: the
 * adapters stay as they are, and with metrics off the server uses the store unwrapped.
 */
import type { Metrics, StoreKind } from '../observe/metrics.js';
import type { TaskStore } from './types.js';

/** The store kind from its description (`memory`, `memory-plain`, `sqlite:…`, `postgres://…`): a bounded label. */
export function storeKindOf(store: TaskStore): StoreKind {
  const d = store.description;
  if (d === 'memory' || d === 'memory-plain') return 'memory';
  if (d.startsWith('sqlite:')) return 'sqlite';
  if (d.startsWith('postgres')) return 'postgres';
  return 'other';
}

export function measuredStore(store: TaskStore, metrics: Metrics): TaskStore {
  const kind = storeKindOf(store);
  const ping = store.ping?.bind(store);
  // No async wrapper: it would add a promise and an await to every store call. The call's own
  // promise is returned, and the timing rides on a reaction to it (which also handles a rejection,
  // so nothing goes unhandled). A synchronous throw passes through as the unwrapped store's does.
  const timed =
    <A extends unknown[], R>(operation: string, fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      const started = performance.now();
      const done = () => metrics.storeOpDone(kind, operation, (performance.now() - started) / 1000);
      let result: Promise<R>;
      try {
        result = fn(...args);
      } catch (err) {
        done();
        throw err;
      }
      result.then(done, done);
      return result;
    };
  return {
    description: store.description,
    getTask: timed('getTask', (id, owner) => store.getTask(id, owner)),
    saveTask: timed('saveTask', (task, key, json, owner) => store.saveTask(task, key, json, owner)),
    listTasks: timed('listTasks', (q) => store.listTasks(q)),
    tasksInStates: timed('tasksInStates', (states) => store.tasksInStates(states)),
    findTaskIdByMessage: timed('findTaskIdByMessage', (scope, id) => store.findTaskIdByMessage(scope, id)),
    savePushConfig: timed('savePushConfig', (taskId, config) => store.savePushConfig(taskId, config)),
    listPushConfigs: timed('listPushConfigs', (taskId) => store.listPushConfigs(taskId)),
    deletePushConfig: timed('deletePushConfig', (taskId, id) => store.deletePushConfig(taskId, id)),
    // Readiness probes are not store work: left untimed.
    ...(ping ? { ping } : {}),
    close: () => store.close(),
  };
}
