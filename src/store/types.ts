/**
 * The TaskStore port. Adapters: memory, SQLite (embedded default); PostgreSQL drops in with the
 * same contract (test/store/contract.ts runs against every adapter).
 *
 * Ordering of `listTasks`: newest task first by id. Task ids are UUID v7 (time ordered), so the
 * order is creation order and keyset pages stay stable while new tasks are inserted: a new task
 * sorts before every page already handed out.
 */
import type { ProtocolVersion } from '../a2a/versions.js';
import type { PushNotificationConfig, Task, TaskState } from '../a2a/schemas.js';
import type { OutboxTable } from './outbox-table.js';

/**
 * A push config as stored: its id is always set (generated when the client gave none).
 * `protocolVersion` is the A2A version it was registered in, absent for
 * v0.3 (so configs stored before v1.0 was served stay v0.3).
 */
export type StoredPushConfig = PushNotificationConfig & {
  /** The config's id, generated when the client gave none. */
  id: string;
  /** The A2A version the config was registered in; absent for v0.3. */
  protocolVersion?: ProtocolVersion;
};

/** A message as idempotency sees it: its id within a scope (the task, the context, or none). */
export interface MessageKey {
  /** The task id, the context id, or empty for a message that names neither. */
  scope: string;
  /** The client's `messageId`. */
  messageId: string;
}

/** One page of `tasks/list`, as the protocol layer asks a store for it. */
export interface TaskListQuery {
  /** Only the tasks this principal created (with auth on); absent = every task. */
  owner?: string;
  /** Only the tasks of this context. */
  contextId?: string;
  /** Only the tasks in this state. */
  status?: TaskState;
  /** ISO timestamp: only tasks whose status timestamp is at or after it. */
  statusTimestampAfter?: string;
  /** Tasks per page, newest first. */
  pageSize: number;
  /** The id of the last task of the previous page (decoded from the page token). */
  afterId?: string;
  /** History per task: absent = all, 0 = none (the entry has no `history`), N = the last N. */
  historyLength?: number | undefined;
  /** Artifacts per task: absent or true = included, false = left out. */
  includeArtifacts?: boolean | undefined;
  /**
   * Characters of task JSON the page may return (src/store/list-page.ts has the rule): the
   * store reads only what it returns, and stops the page before this is passed.
   */
  maxBytes?: number | undefined;
}

/** A page of tasks, and what the client needs to ask for the next one. */
export interface TaskPage {
  /** Each task as the query's view asks: its history and artifacts only when asked for. */
  tasks: Task[];
  /** Id of the last task when more pages follow. */
  lastId?: string;
  /** Matches before paging. */
  totalSize: number;
}

/** Where tasks and push configs are kept: memory, SQLite, PostgreSQL, or a store of your own. */
export interface TaskStore {
  /** Short description for the start-up log, e.g. `sqlite:./data/a2actor.db`. */
  readonly description: string;
  /**
   * Every stored task stays in this process's memory (the memory store), so the live heap grows
   * with every task: src/heap-tuning.ts leaves V8's own heap growth to such a store.
   */
  readonly keepsTasksInProcess?: boolean;
  /** With `owner`, only a task that principal created (others read as absent, never as refused). */
  getTask(id: string, owner?: string): Promise<Task | undefined>;
  /**
   * Insert or replace the whole task; with `messageKey`, also record (in the same write) that
   * this message produced this task, for idempotency. A key already recorded keeps its task.
   * `json`, when the caller has it already, is `JSON.stringify(task)`: the runtime serializes a
   * finished task once for the store and the response. `owner` is recorded when the task is
   * first inserted and never changes after (later writes may omit it).
   */
  saveTask(task: Task, messageKey?: MessageKey, json?: string, owner?: string): Promise<void>;
  /** One page of tasks, newest first (keyset pages on `afterId`). */
  listTasks(query: TaskListQuery): Promise<TaskPage>;
  /** Tasks in any of these states (start-up recovery). */
  tasksInStates(states: readonly TaskState[]): Promise<Task[]>;

  /** Idempotency: the task a (scope, messageId) already produced. */
  findTaskIdByMessage(scope: string, messageId: string): Promise<string | undefined>;

  /** Push configs, in creation order per task. */
  savePushConfig(taskId: string, config: StoredPushConfig): Promise<void>;
  /** The task's push configs, in creation order. */
  listPushConfigs(taskId: string): Promise<StoredPushConfig[]>;
  /** Removes one push config; false when the task had none with that id. */
  deletePushConfig(taskId: string, configId: string): Promise<boolean>;

  /**
   * The table of webhook deliveries accepted and not finished (src/push/outbox.ts), in this
   * store's database; `leaseMs`: how long rows stay held by a replica that stops renewing.
   * Stores that keep nothing across a restart omit it (the push layer keeps the rows in process).
   */
  deliveryOutbox?(leaseMs: number): Promise<OutboxTable>;

  /** Readiness: throws when the store cannot be reached (stores that cannot fail omit it). */
  ping?(): Promise<void>;

  /** Releases the connection or file; the store is not used after. */
  close(): Promise<void>;
}
