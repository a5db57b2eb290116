/**
 * SQLite TaskStore (WAL): the embedded, durable default. The whole task is one JSON column; the
 * columns beside it exist only to filter and page. Calls are synchronous underneath (node:sqlite
 * or better-sqlite3, sqlite-driver.ts), wrapped in the async port so PostgreSQL fits the same
 * contract.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Task, TaskState } from '../a2a/schemas.js';
import { PageBudget, listCost, listEntry, listedText, storedSummary, type StoredSummary } from './list-page.js';
import type { MessageKey, StoredPushConfig, TaskListQuery, TaskPage, TaskStore } from './types.js';
import { SqliteOutboxTable } from './outbox-sqlite.js';
import { isSqliteBusy, sqliteDriver, type SqliteDatabase, type SqliteDriver, type SqliteDriverName } from './sqlite-driver.js';

/** `synchronous` of the WAL (SERVICE_SQLITE_SYNCHRONOUS): `full` also survives a power loss. */
export type SqliteSynchronous = 'normal' | 'full';

/** How the SQLite store opens its file. */
export interface SqliteStoreOptions {
  /** SERVICE_SQLITE_SYNCHRONOUS (`normal` by default). */
  synchronous?: SqliteSynchronous;
  /** SERVICE_SQLITE_DRIVER (`auto` by default), or a loaded driver (sqlite-driver.ts). */
  driver?: SqliteDriverName | 'auto' | SqliteDriver;
}

/** Versioned migrations: each runs once, in order, recorded in `user_version`. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE tasks (
     id TEXT PRIMARY KEY,
     context_id TEXT NOT NULL,
     state TEXT NOT NULL,
     status_ts TEXT NOT NULL,
     body TEXT NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX tasks_context ON tasks (context_id, id);
   CREATE INDEX tasks_state ON tasks (state, id);
   CREATE TABLE message_keys (
     scope TEXT NOT NULL,
     message_id TEXT NOT NULL,
     task_id TEXT NOT NULL,
     PRIMARY KEY (scope, message_id)
   ) WITHOUT ROWID;
   CREATE TABLE push_configs (
     task_id TEXT NOT NULL,
     config_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (task_id, config_id)
   );`,
  // The principal that created a task (auth on); NULL for tasks created without auth.
  `ALTER TABLE tasks ADD COLUMN owner TEXT;
   CREATE INDEX tasks_owner ON tasks (owner, id);`,
  // A list reads this table alone (list-page.ts): each task's filter columns, its summary and
  // its part sizes. \`tasks\` is keyed WITHOUT ROWID, and SQLite reads a whole overflowing row to
  // compare its key in a seek: every row a list touched there cost the task's full size.
  `CREATE TABLE task_summaries (
     id TEXT PRIMARY KEY,
     context_id TEXT NOT NULL,
     state TEXT NOT NULL,
     status_ts TEXT NOT NULL,
     owner TEXT,
     summary TEXT NOT NULL,
     summary_bytes INTEGER NOT NULL,
     history_bytes INTEGER NOT NULL,
     artifacts_bytes INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX task_summaries_context ON task_summaries (context_id, id);
   CREATE INDEX task_summaries_state ON task_summaries (state, id);
   CREATE INDEX task_summaries_owner ON task_summaries (owner, id);
   -- Only lists and start-up recovery filtered by these, and they read task_summaries now.
   DROP INDEX tasks_context;
   DROP INDEX tasks_state;
   DROP INDEX tasks_owner;
   INSERT INTO task_summaries
     SELECT id, context_id, state, status_ts, owner, json_remove(body, '$.history', '$.artifacts'),
       length(json_remove(body, '$.history', '$.artifacts')), COALESCE(length(json_extract(body, '$.history')), 0),
       COALESCE(length(json_extract(body, '$.artifacts')), 0)
     FROM tasks;`,
];

/** A task's row in `tasks` (the named values of the upsert). */
interface TaskRow {
  id: string;
  contextId: string;
  state: string;
  ts: string;
  body: string;
  owner: string | null;
}

interface SummaryRow {
  id: string;
  summary_bytes: number;
  history_bytes: number;
  artifacts_bytes: number;
}

/** Tasks in one SQLite file (WAL), durable across restarts; one process per file. */
export class SqliteTaskStore implements TaskStore {
  readonly description: string;
  /** Which driver opened the file (SERVICE_SQLITE_DRIVER). */
  readonly driver: SqliteDriverName;
  private readonly db: SqliteDatabase;
  private readonly stmt;
  /** The task, its summary and its idempotency record in one transaction (one WAL commit). */
  private readonly save: (row: TaskRow, summary: StoredSummary, key: MessageKey | undefined) => void;

  /** Opens (or creates and migrates) the database at `path`. */
  constructor(path: string, opts: SqliteStoreOptions = {}) {
    this.description = `sqlite:${path}`;
    const driver = typeof opts.driver === 'object' ? opts.driver : sqliteDriver(opts.driver ?? 'auto');
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = driver.open(path);
    this.driver = driver.name;
    this.takeOwnership(path);
    // NORMAL in WAL mode survives a process crash (SIGKILL); only power loss can drop the tail.
    // FULL syncs the log at every commit, so not even that.
    this.db.exec(`PRAGMA synchronous = ${opts.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    this.db.exec('PRAGMA busy_timeout = 5000');
    this.migrate();
    const db = this.db;
    this.stmt = {
      get: db.prepare<{ body: string }>('SELECT body FROM tasks WHERE id = ?'),
      getOwned: db.prepare<{ body: string }>('SELECT body FROM tasks WHERE id = ? AND owner = ?'),
      // The owner is written once, with the task's first row.
      upsert: db.prepare(
        `INSERT INTO tasks (id, context_id, state, status_ts, body, owner) VALUES (@id, @contextId, @state, @ts, @body, @owner)
         ON CONFLICT(id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state,
           status_ts = excluded.status_ts, body = excluded.body`,
      ),
      // Like \`upsert\`: the owner is written once, with the task's first row.
      upsertSummary: db.prepare(
        `INSERT INTO task_summaries (id, context_id, state, status_ts, owner, summary, summary_bytes, history_bytes, artifacts_bytes)
         VALUES (@id, @contextId, @state, @ts, @owner, @summary, @summaryBytes, @historyBytes, @artifactsBytes)
         ON CONFLICT(id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state, status_ts = excluded.status_ts,
           summary = excluded.summary, summary_bytes = excluded.summary_bytes, history_bytes = excluded.history_bytes,
           artifacts_bytes = excluded.artifacts_bytes`,
      ),
      findMessage: db.prepare<{ task_id: string }>('SELECT task_id FROM message_keys WHERE scope = ? AND message_id = ?'),
      rememberMessage: db.prepare('INSERT OR IGNORE INTO message_keys (scope, message_id, task_id) VALUES (?, ?, ?)'),
      savePush: db.prepare(
        `INSERT INTO push_configs (task_id, config_id, seq, body)
         VALUES (@taskId, @configId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM push_configs WHERE task_id = @taskId), @body)
         ON CONFLICT(task_id, config_id) DO UPDATE SET body = excluded.body`,
      ),
      listPush: db.prepare<{ body: string }>('SELECT body FROM push_configs WHERE task_id = ? ORDER BY seq'),
      deletePush: db.prepare('DELETE FROM push_configs WHERE task_id = ? AND config_id = ?'),
    };
    const stmt = this.stmt;
    this.save = db.transaction((row: TaskRow, summary: StoredSummary, key: MessageKey | undefined) => {
      stmt.upsert.run({ ...row });
      const { id, contextId, state, ts, owner } = row;
      stmt.upsertSummary.run({ id, contextId, state, ts, owner, ...summary });
      if (key) stmt.rememberMessage.run(key.scope, key.messageId, row.id);
    });
  }

  /**
   * One process owns the file: it holds SQLite's exclusive lock for as long as it runs (the OS
   * releases it when the process ends, however it ends). A second process would otherwise run
   * its start-up sweep over the first one's running tasks and mark them failed.
   */
  private takeOwnership(path: string): void {
    try {
      // A process that is just exiting (a restart) may hold the lock a moment longer.
      this.db.exec('PRAGMA busy_timeout = 250; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL');
      this.db.exec('BEGIN EXCLUSIVE; COMMIT;');
    } catch (err) {
      this.db.close();
      if (!isSqliteBusy(err)) throw err;
      throw new Error(
        `the SQLite database ${path} is in use by another process. A SQLite file belongs to one server process; ` +
          'to run several processes on the same tasks, use PostgreSQL and Redis (--store postgres://… --events redis://…).',
        { cause: err },
      );
    }
  }

  private migrate(): void {
    const current = this.db.prepare<{ user_version: number }>('PRAGMA user_version').get()?.user_version ?? 0;
    for (let v = current; v < MIGRATIONS.length; v++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[v] as string);
        this.db.exec(`PRAGMA user_version = ${v + 1}`);
      })();
    }
  }

  async getTask(id: string, owner?: string): Promise<Task | undefined> {
    const row = owner === undefined ? this.stmt.get.get(id) : this.stmt.getOwned.get(id, owner);
    return row ? (JSON.parse(row.body) as Task) : undefined;
  }

  async saveTask(task: Task, messageKey?: MessageKey, json?: string, owner?: string): Promise<void> {
    const body = json ?? JSON.stringify(task);
    const row = {
      owner: owner ?? null,
      id: task.id,
      contextId: task.contextId,
      state: task.status.state,
      ts: task.status.timestamp,
      body,
    };
    this.save(row, storedSummary(task, body), messageKey);
  }

  /** One page of tasks, newest first. */
  async listTasks(query: TaskListQuery): Promise<TaskPage> {
    const where: string[] = [];
    const args: Record<string, string | number> = {};
    if (query.owner !== undefined) {
      where.push('owner = @owner');
      args.owner = query.owner;
    }
    if (query.contextId !== undefined) {
      where.push('context_id = @contextId');
      args.contextId = query.contextId;
    }
    if (query.status !== undefined) {
      where.push('state = @state');
      args.state = query.status;
    }
    if (query.statusTimestampAfter !== undefined) {
      // Stored timestamps are ISO-8601 UTC with milliseconds, so text order is time order.
      where.push('status_ts >= @after');
      args.after = new Date(query.statusTimestampAfter).toISOString();
    }
    const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
    // Lists read task_summaries alone (the migration says why).
    const total = this.db.prepare<{ n: number }>(`SELECT COUNT(*) AS n FROM task_summaries ${filter}`).get(args) ?? { n: 0 };
    const pageWhere = [...where];
    if (query.afterId !== undefined) {
      pageWhere.push('id < @afterId');
      args.afterId = query.afterId;
    }
    // The page is chosen by the stored sizes alone; then only what it returns is read.
    const rows = this.db
      .prepare<SummaryRow>(
        `SELECT id, summary_bytes, history_bytes, artifacts_bytes FROM task_summaries
         ${pageWhere.length ? `WHERE ${pageWhere.join(' AND ')}` : ''} ORDER BY id DESC LIMIT @limit`,
      )
      .all({ ...args, limit: query.pageSize + 1 });
    const budget = new PageBudget(query);
    const page: SummaryRow[] = [];
    for (const r of rows) {
      const cost = listCost({ summaryBytes: r.summary_bytes, historyBytes: r.history_bytes, artifactsBytes: r.artifacts_bytes }, query);
      if (!budget.take(cost)) break;
      page.push(r);
    }
    const last = page[page.length - 1];
    return { tasks: this.listEntries(page, query), totalSize: total.n, ...(page.length < rows.length && last ? { lastId: last.id } : {}) };
  }

  /** The page's entries: summaries, and the history and artifacts only when the query returns them. */
  private listEntries(page: readonly SummaryRow[], query: TaskListQuery): Task[] {
    if (page.length === 0) return [];
    // Cutting the parts out of the body text here costs less than SQLite's json_extract, which
    // parses the whole body.
    const partsWanted = query.historyLength !== 0 || query.includeArtifacts !== false;
    const body = partsWanted ? '(SELECT body FROM tasks WHERE tasks.id = s.id)' : 'NULL';
    const rows = this.db
      .prepare<{ summary: string; body: string | null }>(
        `SELECT s.summary, ${body} AS body FROM task_summaries s WHERE s.id IN (${page.map(() => '?').join(',')}) ORDER BY s.id DESC`,
      )
      .all(...page.map((r) => r.id));
    return rows.map((r) =>
      r.body === null ? listEntry(JSON.parse(r.summary) as Task, undefined, undefined, query) : listedText(r.body, query).entry(),
    );
  }

  async tasksInStates(states: readonly TaskState[]): Promise<Task[]> {
    if (states.length === 0) return [];
    const rows = this.db
      .prepare<{ body: string }>(
        `SELECT t.body FROM task_summaries s JOIN tasks t ON t.id = s.id WHERE s.state IN (${states.map(() => '?').join(',')})`,
      )
      .all(...states);
    return rows.map((r) => JSON.parse(r.body) as Task);
  }

  async findTaskIdByMessage(scope: string, messageId: string): Promise<string | undefined> {
    return this.stmt.findMessage.get(scope, messageId)?.task_id;
  }

  async savePushConfig(taskId: string, config: StoredPushConfig): Promise<void> {
    this.stmt.savePush.run({ taskId, configId: config.id, body: JSON.stringify(config) });
  }

  /** The task's push configs, in creation order. */
  async listPushConfigs(taskId: string): Promise<StoredPushConfig[]> {
    return this.stmt.listPush.all(taskId).map((r) => JSON.parse(r.body) as StoredPushConfig);
  }

  /** Removes one push config; false when there was none. */
  async deletePushConfig(taskId: string, configId: string): Promise<boolean> {
    return Number(this.stmt.deletePush.run(taskId, configId).changes) > 0;
  }

  /** One process owns the file, so there is no lease to keep. */
  async deliveryOutbox(): Promise<SqliteOutboxTable> {
    return new SqliteOutboxTable(this.db);
  }

  /** Closes the database file. */
  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
