/**
 * The plain in-memory TaskStore (`store: 'memory-plain'`): a Map from task id to the task's JSON
 * text and the few fields the listing filters read, plus the ids in ascending order. It is the
 * reference the packed memory store (memory.ts) is held equal to (test/store/memory-equal.test.ts),
 * and the store to reach for when reading what the contract means: every answer is computed the
 * obvious way, by walking what is stored.
 *
 * Tasks are kept as JSON text, not as objects: a read parses a fresh copy, so no caller can change
 * a stored task by changing what it got back, and a string is one heap object where a task's
 * object graph is dozens for the garbage collector to mark.
 */
import type { Task, TaskState } from '../a2a/schemas.js';
import { PageBudget, listedText } from './list-page.js';
import { PushConfigMap } from './push-config-map.js';
import type { MessageKey, StoredPushConfig, TaskListQuery, TaskPage, TaskStore } from './types.js';

interface StoredTask {
  json: string;
  contextId: string;
  state: TaskState;
  /** The status timestamp, ms since the epoch (what `statusTimestampAfter` compares). */
  time: number;
  /** Set when the task was first written with an owner; never changed after. */
  owner: string | undefined;
}

export class MapTaskStore implements TaskStore {
  readonly description = 'memory-plain';
  readonly keepsTasksInProcess = true;
  private readonly tasks = new Map<string, StoredTask>();
  /** Task ids in ascending order: UUID v7 ids sort in creation order, newest last. */
  private readonly ids: string[] = [];
  /** Idempotency records: `messageKeyOf(scope, messageId)` -> the task the message produced. */
  private readonly messages = new Map<string, string>();
  private readonly pushConfigs = new PushConfigMap();

  async getTask(id: string, owner?: string): Promise<Task | undefined> {
    const stored = this.tasks.get(id);
    if (stored === undefined || (owner !== undefined && stored.owner !== owner)) return undefined;
    return JSON.parse(stored.json) as Task;
  }

  async saveTask(task: Task, messageKey?: MessageKey, json?: string, owner?: string): Promise<void> {
    if (messageKey) {
      const key = messageKeyOf(messageKey.scope, messageKey.messageId);
      // The first task a message produced stays its answer (idempotency).
      if (!this.messages.has(key)) this.messages.set(key, task.id);
    }
    const known = this.tasks.get(task.id);
    if (known === undefined) this.ids.splice(lowerBound(this.ids, task.id), 0, task.id);
    this.tasks.set(task.id, {
      json: json ?? JSON.stringify(task),
      // A task never changes context or owner: both are the ones it was created with.
      contextId: known?.contextId ?? task.contextId,
      state: task.status.state,
      time: Date.parse(task.status.timestamp),
      owner: known === undefined ? owner : known.owner,
    });
  }

  async listTasks(query: TaskListQuery): Promise<TaskPage> {
    const after = query.statusTimestampAfter === undefined ? undefined : Date.parse(query.statusTimestampAfter);
    const matches = (t: StoredTask): boolean =>
      (query.owner === undefined || t.owner === query.owner) &&
      (query.contextId === undefined || t.contextId === query.contextId) &&
      (query.status === undefined || t.state === query.status) &&
      (after === undefined || t.time >= after);
    const tasks: Task[] = [];
    const budget = new PageBudget(query);
    let lastId: string | undefined;
    let full = false;
    let totalSize = 0;
    for (let i = this.ids.length - 1; i >= 0; i--) {
      const id = this.ids[i] as string;
      const stored = this.tasks.get(id) as StoredTask;
      if (!matches(stored)) continue;
      totalSize++;
      // Keyset paging: the page starts at the first match older than the previous page's last.
      if (query.afterId !== undefined && id >= query.afterId) continue;
      if (full) continue;
      // Only the parts the page returns are parsed (list-page.ts).
      const listed = budget.full ? undefined : listedText(stored.json, query);
      if (listed !== undefined && budget.take(listed.cost)) tasks.push(listed.entry());
      else {
        full = true;
        lastId = tasks[tasks.length - 1]?.id;
      }
    }
    return { tasks, totalSize, ...(lastId !== undefined ? { lastId } : {}) };
  }

  async tasksInStates(states: readonly TaskState[]): Promise<Task[]> {
    const out: Task[] = [];
    for (const stored of this.tasks.values()) if (states.includes(stored.state)) out.push(JSON.parse(stored.json) as Task);
    return out;
  }

  async findTaskIdByMessage(scope: string, messageId: string): Promise<string | undefined> {
    return this.messages.get(messageKeyOf(scope, messageId));
  }

  async savePushConfig(taskId: string, config: StoredPushConfig): Promise<void> {
    this.pushConfigs.save(taskId, config);
  }

  async listPushConfigs(taskId: string): Promise<StoredPushConfig[]> {
    return this.pushConfigs.list(taskId);
  }

  async deletePushConfig(taskId: string, configId: string): Promise<boolean> {
    return this.pushConfigs.delete(taskId, configId);
  }

  async close(): Promise<void> {}
}

/** One key per (scope, message id), unambiguous whatever characters either holds. */
const messageKeyOf = (scope: string, messageId: string): string => JSON.stringify([scope, messageId]);

/** First index whose id is >= `id` (`ids.length` if none). */
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
