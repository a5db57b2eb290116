/**
 * PostgreSQL TaskStore (package `pg`): several replicas share one database. The schema is
 * created and migrated at start-up by numbered migrations under an advisory lock, so replicas
 * that start together do not race. Connection failures surface as 503 (`unavailable`) and the
 * pool reconnects by itself when the database is back.
 */
import pg from 'pg';
import { inTransaction } from './pg-transaction.js';
import { a2aError, isA2AError } from '../a2a/errors.js';
import type { Task, TaskState } from '../a2a/schemas.js';
import { GroupCommit } from './group-commit.js';
import { PageBudget, listCost, listEntry, storedSummary } from './list-page.js';
import type { MessageKey, StoredPushConfig, TaskListQuery, TaskPage, TaskStore } from './types.js';
import { PostgresOutboxTable } from './outbox-postgres.js';

/** Numbered migrations; each runs once, in order, recorded in a2actor_migrations. */
const MIGRATIONS: readonly string[] = [
  // Ids sort in byte order (COLLATE "C"): a locale collation may ignore the hyphens of a UUID.
  `CREATE TABLE a2actor_tasks (
     id TEXT COLLATE "C" PRIMARY KEY,
     context_id TEXT NOT NULL,
     state TEXT NOT NULL,
     status_ts TIMESTAMPTZ NOT NULL,
     body JSON NOT NULL
   );
   CREATE INDEX a2actor_tasks_context ON a2actor_tasks (context_id, id);
   CREATE INDEX a2actor_tasks_state ON a2actor_tasks (state, id);
   CREATE TABLE a2actor_message_keys (
     scope TEXT NOT NULL,
     message_id TEXT NOT NULL,
     task_id TEXT NOT NULL,
     PRIMARY KEY (scope, message_id)
   );
   CREATE TABLE a2actor_push_configs (
     task_id TEXT NOT NULL,
     config_id TEXT NOT NULL,
     seq BIGSERIAL,
     body JSON NOT NULL,
     PRIMARY KEY (task_id, config_id)
   );`,
  // The principal that created a task (auth on); NULL for tasks created without auth.
  `ALTER TABLE a2actor_tasks ADD COLUMN owner TEXT;
   CREATE INDEX a2actor_tasks_owner ON a2actor_tasks (owner, id);`,
  // How many tasks each owner has ('' without auth, 'o:<principal>' with it), so tasks/list
  // says its exact totalSize without counting the table. Tasks are never deleted: writes only
  // add. Spread over slots so concurrent writers rarely wait on one row.
  `CREATE TABLE a2actor_task_counts (owner_key TEXT NOT NULL, slot INT NOT NULL, n BIGINT NOT NULL, PRIMARY KEY (owner_key, slot));
   INSERT INTO a2actor_task_counts (owner_key, slot, n) SELECT COALESCE('o:' || owner, ''), 0, COUNT(*) FROM a2actor_tasks GROUP BY 1;`,
  // What a list reads of a task (list-page.ts): its summary and part sizes. The body is stored
  // out of line (TOAST) once large, so reading these never reads it.
  `ALTER TABLE a2actor_tasks ADD COLUMN summary JSON, ADD COLUMN summary_bytes INT NOT NULL DEFAULT 0,
     ADD COLUMN history_bytes INT NOT NULL DEFAULT 0, ADD COLUMN artifacts_bytes INT NOT NULL DEFAULT 0;
   UPDATE a2actor_tasks SET summary = (body::jsonb - 'history' - 'artifacts')::json,
     history_bytes = COALESCE(length((body -> 'history')::text), 0), artifacts_bytes = COALESCE(length((body -> 'artifacts')::text), 0);
   UPDATE a2actor_tasks SET summary_bytes = length(summary::text);`,
];

interface SummaryRow {
  id: string;
  summary_bytes: number;
  history_bytes: number;
  artifacts_bytes: number;
}

/** Slots of a2actor_task_counts per owner; a batch adds to one at random. */
const COUNT_SLOTS = 16;

/**
 * A batch of task writes (group-commit.ts), each with the idempotency record of the message
 * that started its task if it has one: one statement, one transaction, one round trip. The
 * columns come as arrays, so the statement's text (and its prepared plan) fits any batch size.
 */
const SAVE_TASKS = `WITH written AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::json[], $6::text[], $7::text[], $8::text[],
        $10::json[], $11::int[], $12::int[], $13::int[])
      AS r(id, context_id, state, status_ts, body, owner, scope, message_id, summary, summary_bytes, history_bytes, artifacts_bytes)
  ), remembered AS (
    INSERT INTO a2actor_message_keys (scope, message_id, task_id)
    SELECT scope, message_id, id FROM written WHERE scope IS NOT NULL ON CONFLICT DO NOTHING
  ), saved AS (
    INSERT INTO a2actor_tasks (id, context_id, state, status_ts, body, owner, summary, summary_bytes, history_bytes, artifacts_bytes)
    SELECT id, context_id, state, status_ts, body, owner, summary, summary_bytes, history_bytes, artifacts_bytes FROM written
    ON CONFLICT (id) DO UPDATE SET context_id = EXCLUDED.context_id, state = EXCLUDED.state,
      status_ts = EXCLUDED.status_ts, body = EXCLUDED.body, summary = EXCLUDED.summary, summary_bytes = EXCLUDED.summary_bytes,
      history_bytes = EXCLUDED.history_bytes, artifacts_bytes = EXCLUDED.artifacts_bytes
    -- xmax is 0 on a row this statement inserted, set on one it updated: new tasks are counted.
    RETURNING owner, xmax = 0 AS inserted
  )
  INSERT INTO a2actor_task_counts (owner_key, slot, n)
  SELECT COALESCE('o:' || owner, ''), $9, COUNT(*) FROM saved WHERE inserted GROUP BY 1 ORDER BY 1
  ON CONFLICT (owner_key, slot) DO UPDATE SET n = a2actor_task_counts.n + EXCLUDED.n`;

/**
 * A batch of idempotency look-ups: one probe of the key's primary key per message. A plain join
 * would leave the join method to the planner, and a prepared statement keeps its generic plan
 * until the table is analyzed again: planned while the table was small (a fresh database), it
 * hash-joins the whole table on every look-up, at a cost that grows with every task stored, for
 * as long as no ANALYZE comes (never, with autovacuum off). The LATERAL subquery with its LIMIT
 * cannot be flattened into a join, so each message is one index probe whatever the table's size.
 */
const FIND_MESSAGES = `SELECT q.scope, q.message_id, k.task_id FROM unnest($1::text[], $2::text[]) AS q(scope, message_id)
  CROSS JOIN LATERAL (
    SELECT task_id FROM a2actor_message_keys WHERE scope = q.scope AND message_id = q.message_id LIMIT 1
  ) AS k`;

/** Batches of one kind on their way at once, per replica (the pool holds `max` connections). */
const BATCHES_IN_FLIGHT = 2;
const MAX_BATCH = 100;

interface TaskWrite {
  task: Task;
  messageKey: MessageKey | undefined;
  json: string | undefined;
  owner: string | undefined;
}

/** Any number the migrations lock on; the same for every replica. */
const MIGRATION_LOCK = 0x2a2ac70;

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

/** Errors that mean "the database is not reachable right now" (503), not "this request is bad". */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08') || code.startsWith('57P'))) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    err.message,
  );
}

export interface PostgresStoreOptions {
  connectionString: string;
  /** Pool size (default 10). */
  max?: number;
  /** How long to wait for a connection before answering 503 (default 5 s). */
  connectionTimeoutMillis?: number;
  /** A schema of its own (created if missing), e.g. for several services in one database. */
  schema?: string;
}

export class PostgresTaskStore implements TaskStore {
  readonly description: string;
  private readonly pool: pg.Pool;
  private readonly schema: string | undefined;
  private readonly writes: GroupCommit<TaskWrite, void>;
  private readonly lookups: GroupCommit<MessageKey, string | undefined>;

  private constructor(opts: PostgresStoreOptions) {
    const url = new URL(opts.connectionString);
    url.password = '';
    this.description = `postgres://${url.host}${url.pathname}`;
    if (opts.schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(opts.schema)) throw new Error(`invalid schema name: ${opts.schema}`);
    this.schema = opts.schema;
    this.pool = new pg.Pool({
      connectionString: opts.connectionString,
      ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
      max: opts.max ?? 10,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: opts.connectionTimeoutMillis ?? 5_000,
    });
    // An idle client losing its connection (database restart) must not crash the process.
    this.pool.on('error', () => {});
    this.writes = new GroupCommit({
      run: (batch) => this.saveBatch(batch),
      maxInFlight: BATCHES_IN_FLIGHT,
      maxBatch: MAX_BATCH,
      key: (write) => write.task.id,
    });
    this.lookups = new GroupCommit({ run: (batch) => this.findBatch(batch), maxInFlight: BATCHES_IN_FLIGHT, maxBatch: MAX_BATCH });
  }

  /** Connects and migrates; throws if the database cannot be reached at start-up. */
  static async open(opts: PostgresStoreOptions): Promise<PostgresTaskStore> {
    const store = new PostgresTaskStore(opts);
    try {
      await store.migrate();
    } catch (err) {
      await store.pool.end();
      throw err;
    }
    return store;
  }

  private async migrate(): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      if (this.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await client.query(
        'CREATE TABLE IF NOT EXISTS a2actor_migrations (version INT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      const { rows } = await client.query<{ v: number | null }>('SELECT MAX(version) AS v FROM a2actor_migrations');
      for (let v = rows[0]?.v ?? 0; v < MIGRATIONS.length; v++) {
        await client.query(MIGRATIONS[v] as string);
        await client.query('INSERT INTO a2actor_migrations (version) VALUES ($1)', [v + 1]);
      }
    });
  }

  /** One query; connection failures become the 503 `unavailable` error. A named one is prepared once per connection. */
  private async query<R extends pg.QueryResultRow>(sql: string | pg.QueryConfig, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return typeof sql === 'string' ? await this.pool.query<R>(sql, params) : await this.pool.query<R>({ ...sql, values: params });
    } catch (err) {
      if (isA2AError(err)) throw err;
      if (isConnectionError(err)) throw a2aError('unavailable', 'the task store (PostgreSQL) is not reachable');
      throw err;
    }
  }

  async getTask(id: string, owner?: string): Promise<Task | undefined> {
    const { rows } =
      owner === undefined
        ? await this.query<{ body: Task }>({ name: 'a2actor_get_task', text: 'SELECT body FROM a2actor_tasks WHERE id = $1' }, [id])
        : await this.query<{ body: Task }>(
            { name: 'a2actor_get_owned_task', text: 'SELECT body FROM a2actor_tasks WHERE id = $1 AND owner = $2' },
            [id, owner],
          );
    return rows[0]?.body;
  }

  saveTask(task: Task, messageKey?: MessageKey, json?: string, owner?: string): Promise<void> {
    return this.writes.submit({ task, messageKey, json, owner });
  }

  /** Writes a batch; if it fails for a reason other than the connection, each write is tried alone. */
  private async saveBatch(batch: TaskWrite[]): Promise<ReadonlyArray<void | Promise<void>>> {
    try {
      await this.saveRows(batch);
      return [];
    } catch (err) {
      if (batch.length === 1 || isA2AError(err)) throw err;
      return batch.map((write) => this.saveRows([write]));
    }
  }

  private async saveRows(batch: TaskWrite[]): Promise<void> {
    const column = <T>(pick: (w: TaskWrite) => T): T[] => batch.map(pick);
    const bodies = column((w) => w.json ?? JSON.stringify(w.task));
    const summaries = batch.map((w, i) => storedSummary(w.task, bodies[i] as string));
    await this.query({ name: 'a2actor_save_tasks', text: SAVE_TASKS }, [
      column((w) => w.task.id),
      column((w) => w.task.contextId),
      column((w) => w.task.status.state),
      column((w) => w.task.status.timestamp),
      bodies,
      // The owner is written once, with the task's first row (an update leaves it).
      column((w) => w.owner ?? null),
      column((w) => w.messageKey?.scope ?? null),
      column((w) => w.messageKey?.messageId ?? null),
      Math.floor(Math.random() * COUNT_SLOTS),
      summaries.map((m) => m.summary),
      summaries.map((m) => m.summaryBytes),
      summaries.map((m) => m.historyBytes),
      summaries.map((m) => m.artifactsBytes),
    ]);
  }

  /** A page and the total in one statement; the total of a list filtered by owner only (or not at all) is kept, not counted. */
  async listTasks(query: TaskListQuery): Promise<TaskPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, value: unknown) => {
      params.push(value);
      where.push(clause.replace('?', `$${params.length}`));
    };
    if (query.owner !== undefined) add('owner = ?', query.owner);
    const byOwnerOnly = query.contextId === undefined && query.status === undefined && query.statusTimestampAfter === undefined;
    if (query.contextId !== undefined) add('context_id = ?', query.contextId);
    if (query.status !== undefined) add('state = ?', query.status);
    if (query.statusTimestampAfter !== undefined) add('status_ts >= ?', query.statusTimestampAfter);
    const total = byOwnerOnly
      ? `SELECT COALESCE(SUM(n), 0) FROM a2actor_task_counts${query.owner === undefined ? '' : " WHERE owner_key = 'o:' || $1"}`
      : `SELECT COUNT(*) FROM a2actor_tasks WHERE ${where.join(' AND ')}`;
    if (query.afterId !== undefined) add('id < ?', query.afterId);
    params.push(query.pageSize + 1);
    // One row at least (the total), with a null id when the page is empty. The page is chosen by
    // the stored sizes alone; then only what it returns is read.
    const { rows } = await this.query<{ total: string } & (SummaryRow | { id: null })>(
      `SELECT c.total, p.id, p.summary_bytes, p.history_bytes, p.artifacts_bytes FROM (${total}) AS c(total)
       LEFT JOIN LATERAL (SELECT id, summary_bytes, history_bytes, artifacts_bytes FROM a2actor_tasks
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${params.length}) p ON true
       ORDER BY p.id DESC`,
      params,
    );
    const budget = new PageBudget(query);
    const page: SummaryRow[] = [];
    for (const r of rows) {
      if (r.id === null) continue;
      const cost = listCost({ summaryBytes: r.summary_bytes, historyBytes: r.history_bytes, artifactsBytes: r.artifacts_bytes }, query);
      if (!budget.take(cost)) break;
      page.push(r);
    }
    const more = page.length < rows.filter((r) => r.id !== null).length;
    const last = page[page.length - 1];
    const tasks = await this.listEntries(page, query);
    return { tasks, totalSize: Number(rows[0]?.total ?? 0), ...(more && last ? { lastId: last.id } : {}) };
  }

  /** The page's entries: summaries, and the history and artifacts only when the query returns them. */
  private async listEntries(page: readonly SummaryRow[], query: TaskListQuery): Promise<Task[]> {
    if (page.length === 0) return [];
    const history = query.historyLength === 0 ? 'NULL' : "(body -> 'history')::text";
    const artifacts = query.includeArtifacts === false ? 'NULL' : "(body -> 'artifacts')::text";
    // A row written before summaries existed, by a replica not yet upgraded, is read whole.
    const { rows } = await this.query<{ summary: string; history: string | null; artifacts: string | null }>(
      `SELECT COALESCE(summary, body)::text AS summary, ${history} AS history, ${artifacts} AS artifacts FROM a2actor_tasks
       WHERE id = ANY($1) ORDER BY id DESC`,
      [page.map((r) => r.id)],
    );
    return rows.map((r) => listEntry(JSON.parse(r.summary) as Task, r.history, r.artifacts, query));
  }

  async tasksInStates(states: readonly TaskState[]): Promise<Task[]> {
    if (states.length === 0) return [];
    const { rows } = await this.query<{ body: Task }>('SELECT body FROM a2actor_tasks WHERE state = ANY($1)', [states]);
    return rows.map((r) => r.body);
  }

  findTaskIdByMessage(scope: string, messageId: string): Promise<string | undefined> {
    return this.lookups.submit({ scope, messageId });
  }

  private async findBatch(batch: MessageKey[]): Promise<Array<string | undefined>> {
    const { rows } = await this.query<{ scope: string; message_id: string; task_id: string }>(
      { name: 'a2actor_find_messages', text: FIND_MESSAGES },
      [batch.map((k) => k.scope), batch.map((k) => k.messageId)],
    );
    const found = new Map(rows.map((r) => [`${r.scope}\u0000${r.message_id}`, r.task_id]));
    return batch.map((k) => found.get(`${k.scope}\u0000${k.messageId}`));
  }

  async savePushConfig(taskId: string, config: StoredPushConfig): Promise<void> {
    await this.query(
      `INSERT INTO a2actor_push_configs (task_id, config_id, body) VALUES ($1, $2, $3)
       ON CONFLICT (task_id, config_id) DO UPDATE SET body = EXCLUDED.body`,
      [taskId, config.id, JSON.stringify(config)],
    );
  }

  async listPushConfigs(taskId: string): Promise<StoredPushConfig[]> {
    const { rows } = await this.query<{ body: StoredPushConfig }>('SELECT body FROM a2actor_push_configs WHERE task_id = $1 ORDER BY seq', [
      taskId,
    ]);
    return rows.map((r) => r.body);
  }

  async deletePushConfig(taskId: string, configId: string): Promise<boolean> {
    const r = await this.query('DELETE FROM a2actor_push_configs WHERE task_id = $1 AND config_id = $2', [taskId, configId]);
    return (r.rowCount ?? 0) > 0;
  }

  deliveryOutbox(leaseMs: number): Promise<PostgresOutboxTable> {
    return PostgresOutboxTable.open(this.pool, leaseMs);
  }

  /** Cheap liveness check for readiness probes. */
  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
