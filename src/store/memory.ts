/**
 * In-memory TaskStore. Tasks are kept compactly as JSON strings next to a tiny index row, so a
 * store of 100k finished tasks costs little memory and listing filters never parse a task that
 * is not on the page.
 */
import type { PushNotificationConfig, Task, TaskState } from '../protocol/schemas.js';
import type { TaskListQuery, TaskPage, TaskStore } from './types.js';

interface Row {
  contextId: string;
  state: TaskState;
  statusTimestamp: string;
  json: string;
}

type StoredPushConfig = PushNotificationConfig & { id: string };

export class MemoryTaskStore implements TaskStore {
  readonly description = 'memory';
  private readonly rows = new Map<string, Row>();
  /** Task ids in ascending order (UUID v7 are created in order). */
  private readonly order: string[] = [];
  private readonly messages = new Map<string, string>();
  private readonly pushConfigs = new Map<string, StoredPushConfig[]>();

  async getTask(id: string): Promise<Task | undefined> {
    const row = this.rows.get(id);
    return row ? (JSON.parse(row.json) as Task) : undefined;
  }

  async saveTask(task: Task): Promise<void> {
    const row: Row = {
      contextId: task.contextId,
      state: task.status.state,
      statusTimestamp: task.status.timestamp,
      json: JSON.stringify(task),
    };
    if (!this.rows.has(task.id)) this.insertOrdered(task.id);
    this.rows.set(task.id, row);
  }

  private insertOrdered(id: string): void {
    const last = this.order[this.order.length - 1];
    if (last === undefined || last < id) {
      this.order.push(id);
      return;
    }
    this.order.splice(this.lowerBound(id), 0, id);
  }

  /** First index whose id is >= `id`. */
  private lowerBound(id: string): number {
    let lo = 0;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.order[mid] as string) < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  async listTasks(query: TaskListQuery): Promise<TaskPage> {
    const matches = (row: Row): boolean =>
      (query.contextId === undefined || row.contextId === query.contextId) &&
      (query.status === undefined || row.state === query.status) &&
      (query.statusTimestampAfter === undefined || Date.parse(row.statusTimestamp) >= Date.parse(query.statusTimestampAfter));

    let totalSize = 0;
    const tasks: Task[] = [];
    let lastId: string | undefined;
    const start = query.afterId === undefined ? this.order.length - 1 : this.lowerBound(query.afterId) - 1;
    // totalSize counts every match, so the scan covers the whole index; rows are small.
    for (let i = this.order.length - 1; i >= 0; i--) {
      const id = this.order[i] as string;
      const row = this.rows.get(id) as Row;
      if (!matches(row)) continue;
      totalSize++;
      if (i > start) continue;
      if (tasks.length < query.pageSize) tasks.push(JSON.parse(row.json) as Task);
      else if (lastId === undefined) lastId = tasks[tasks.length - 1]?.id;
    }
    return { tasks, totalSize, ...(lastId !== undefined ? { lastId } : {}) };
  }

  async tasksInStates(states: readonly TaskState[]): Promise<Task[]> {
    const wanted = new Set(states);
    return [...this.rows.values()].filter((r) => wanted.has(r.state)).map((r) => JSON.parse(r.json) as Task);
  }

  async findTaskIdByMessage(scope: string, messageId: string): Promise<string | undefined> {
    return this.messages.get(`${scope}\u0000${messageId}`);
  }

  async rememberMessage(scope: string, messageId: string, taskId: string): Promise<void> {
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
