/**
 * In-memory TaskStore. Tasks are kept compactly as UTF-8 JSON buffers next to a tiny index row, so a
 * store of 100k finished tasks costs little memory and listing filters never parse a task that
 * is not on the page. Counts per state and id lists per context keep `tasks/list` from walking
 * the whole store for its `totalSize`.
 */
import type { PushNotificationConfig, Task, TaskState } from '../protocol/schemas.js';
import type { MessageKey, TaskListQuery, TaskPage, TaskStore } from './types.js';

interface Row {
  state: TaskState;
  statusTimestamp: string;
  /**
   * The task as UTF-8 JSON outside the V8 heap: small Buffers come from Node's shared pool, so
   * a stored task costs its bytes and a small handle, and the garbage collector never walks it.
   */
  json: Buffer;
}

const parse = (row: Row): Task => JSON.parse(row.json.toString('utf8')) as Task;

type StoredPushConfig = PushNotificationConfig & { id: string };

export class MemoryTaskStore implements TaskStore {
  readonly description = 'memory';
  private readonly rows = new Map<string, Row>();
  /** Task ids in ascending order (UUID v7 are created in order). */
  private readonly order: string[] = [];
  /** Tasks per state (for counts). */
  private readonly stateCounts = new Map<TaskState, number>();
  /**
   * Ids per context, ascending (a task never changes context). Most contexts hold one task, so
   * a lone id is kept as itself, not as an array (an array per task costs ~150 bytes).
   */
  private readonly byContext = new Map<string, string | string[]>();
  private readonly messages = new Map<string, string>();
  private readonly pushConfigs = new Map<string, StoredPushConfig[]>();

  async getTask(id: string): Promise<Task | undefined> {
    const row = this.rows.get(id);
    return row ? parse(row) : undefined;
  }

  async saveTask(task: Task, messageKey?: MessageKey): Promise<void> {
    if (messageKey) this.rememberMessage(messageKey, task.id);
    const row: Row = {
      state: task.status.state,
      statusTimestamp: task.status.timestamp,
      json: Buffer.from(JSON.stringify(task), 'utf8'),
    };
    const previous = this.rows.get(task.id);
    if (!previous) {
      insertOrdered(this.order, task.id);
      const inContext = this.byContext.get(task.contextId);
      if (inContext === undefined) this.byContext.set(task.contextId, task.id);
      else if (typeof inContext === 'string') this.byContext.set(task.contextId, inContext < task.id ? [inContext, task.id] : [task.id, inContext]);
      else insertOrdered(inContext, task.id);
    }
    if (previous?.state !== row.state) {
      if (previous) this.stateCounts.set(previous.state, (this.stateCounts.get(previous.state) ?? 1) - 1);
      this.stateCounts.set(row.state, (this.stateCounts.get(row.state) ?? 0) + 1);
    }
    this.rows.set(task.id, row);
  }

  private idsOfContext(contextId: string): readonly string[] {
    const ids = this.byContext.get(contextId);
    return ids === undefined ? [] : typeof ids === 'string' ? [ids] : ids;
  }

  async listTasks(query: TaskListQuery): Promise<TaskPage> {
    const after = query.statusTimestampAfter === undefined ? undefined : Date.parse(query.statusTimestampAfter);
    const matches = (row: Row): boolean =>
      (query.status === undefined || row.state === query.status) &&
      (after === undefined || Date.parse(row.statusTimestamp) >= after);
    // Walk the context's ids when filtering by context, else all ids; both ascending.
    const source = query.contextId === undefined ? this.order : this.idsOfContext(query.contextId);

    const tasks: Task[] = [];
    let lastId: string | undefined;
    const start = query.afterId === undefined ? source.length - 1 : lowerBound(source, query.afterId) - 1;
    for (let i = start; i >= 0; i--) {
      const id = source[i] as string;
      const row = this.rows.get(id) as Row;
      if (!matches(row)) continue;
      if (tasks.length === query.pageSize) {
        lastId = tasks[tasks.length - 1]?.id;
        break;
      }
      tasks.push(parse(row));
    }
    return { tasks, totalSize: this.count(query, source, matches), ...(lastId !== undefined ? { lastId } : {}) };
  }

  /** Matches before paging, from the indexes when they answer it, else by one walk. */
  private count(query: TaskListQuery, source: readonly string[], matches: (row: Row) => boolean): number {
    if (query.statusTimestampAfter === undefined) {
      if (query.contextId === undefined) {
        return query.status === undefined ? this.rows.size : (this.stateCounts.get(query.status) ?? 0);
      }
      if (query.status === undefined) return source.length;
    }
    let n = 0;
    for (const id of source) if (matches(this.rows.get(id) as Row)) n++;
    return n;
  }

  /** Start-up recovery only: one walk is fine. */
  async tasksInStates(states: readonly TaskState[]): Promise<Task[]> {
    const wanted = new Set(states);
    const out: Task[] = [];
    for (const row of this.rows.values()) if (wanted.has(row.state)) out.push(parse(row));
    return out;
  }

  async findTaskIdByMessage(scope: string, messageId: string): Promise<string | undefined> {
    return this.messages.get(`${scope}\u0000${messageId}`);
  }

  private rememberMessage({ scope, messageId }: MessageKey, taskId: string): void {
    // The first task a message produced stays its answer (idempotency).
    const key = `${scope}\u0000${messageId}`;
    if (!this.messages.has(key)) this.messages.set(key, taskId);
  }

  async savePushConfig(taskId: string, config: StoredPushConfig): Promise<void> {
    const list = this.pushConfigs.get(taskId) ?? [];
    const at = list.findIndex((c) => c.id === config.id);
    if (at >= 0) list[at] = { ...config };
    else list.push({ ...config });
    this.pushConfigs.set(taskId, list);
  }

  async listPushConfigs(taskId: string): Promise<StoredPushConfig[]> {
    return (this.pushConfigs.get(taskId) ?? []).map((c) => ({ ...c }));
  }

  async deletePushConfig(taskId: string, configId: string): Promise<boolean> {
    const list = this.pushConfigs.get(taskId);
    const at = list?.findIndex((c) => c.id === configId) ?? -1;
    if (!list || at < 0) return false;
    list.splice(at, 1);
    return true;
  }

  async close(): Promise<void> {}
}

/** Inserts an id into an ascending array (at the end in the usual case: ids are time ordered). */
function insertOrdered(ids: string[], id: string): void {
  const last = ids[ids.length - 1];
  if (last === undefined || last < id) ids.push(id);
  else ids.splice(lowerBound(ids, id), 0, id);
}

/** First index whose id is >= `id`. */
function lowerBound(ids: readonly string[], id: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ids[mid] as string) < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
