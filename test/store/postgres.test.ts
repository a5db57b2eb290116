/** The store contract against real PostgreSQL (127.0.0.1:5432, database `test`), a schema per case. */
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Task } from '../../src/a2a/schemas.js';
import { PostgresTaskStore } from '../../src/store/postgres.js';
import { measuredStore } from '../../src/store/measured.js';
import { createMetrics } from '../../src/observe/metrics.js';
import { PG_URL, postgresMissing } from '../support/services.js';
import { expectOwnerlessAfterMigration, storeContract, task } from './contract.js';

const NO_PG = await postgresMissing('PostgreSQL store suite');
const schemas: string[] = [];
const newSchema = () => {
  const name = `a2actor_test_${process.pid}_${schemas.length}_${Date.now() % 100000}`;
  schemas.push(name);
  return name;
};

afterAll(async () => {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await client.end();
});

describe.skipIf(NO_PG)('on PostgreSQL', () => {
  storeContract('postgres', async () => {
    const schema = newSchema();
    const open = () => PostgresTaskStore.open({ connectionString: PG_URL, schema });
    return { store: await open(), reopen: open };
  });
});

describe.skipIf(NO_PG)('PostgresTaskStore', () => {
  it('replicas starting together migrate once (advisory lock) and share one schema', async () => {
    const schema = newSchema();
    const stores = await Promise.all(Array.from({ length: 4 }, () => PostgresTaskStore.open({ connectionString: PG_URL, schema })));
    const t = task('completed');
    await stores[0]?.saveTask(t);
    expect(await stores[3]?.getTask(t.id)).toEqual(t);
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const { rows } = await client.query(`SELECT version FROM ${schema}.a2actor_migrations ORDER BY version`);
    await client.end();
    expect(rows.map((r) => r.version)).toEqual([1, 2, 3, 4]);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('a database written before owners existed migrates: its tasks stay readable and belong to nobody', async () => {
    const schema = newSchema();
    const old = task('completed', { contextId: 'c-old' });
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    // The schema as version 1 of the migrations left it, with one task in it.
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`SET search_path = ${schema}`);
    await client.query(`CREATE TABLE a2actor_migrations (version INT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
      INSERT INTO a2actor_migrations (version) VALUES (1);
      CREATE TABLE a2actor_tasks (id TEXT COLLATE "C" PRIMARY KEY, context_id TEXT NOT NULL, state TEXT NOT NULL,
        status_ts TIMESTAMPTZ NOT NULL, body JSON NOT NULL);
      CREATE TABLE a2actor_message_keys (scope TEXT NOT NULL, message_id TEXT NOT NULL, task_id TEXT NOT NULL, PRIMARY KEY (scope, message_id));
      CREATE TABLE a2actor_push_configs (task_id TEXT NOT NULL, config_id TEXT NOT NULL, seq BIGSERIAL, body JSON NOT NULL, PRIMARY KEY (task_id, config_id));`);
    await client.query('INSERT INTO a2actor_tasks VALUES ($1, $2, $3, $4, $5)', [
      old.id,
      old.contextId,
      'completed',
      old.status.timestamp,
      JSON.stringify(old),
    ]);
    const store = await PostgresTaskStore.open({ connectionString: PG_URL, schema });
    await expectOwnerlessAfterMigration(store, old);
    const { rows } = await client.query(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname = 'a2actor_tasks_owner'`, [
      schema,
    ]);
    expect(rows).toHaveLength(1);
    await client.end();
    await store.close();
  });

  it('an unreachable database is a 503 unavailable error, not a crash', async () => {
    await expect(
      PostgresTaskStore.open({ connectionString: 'postgres://postgres@127.0.0.1:1/test', connectionTimeoutMillis: 1000 }),
    ).rejects.toThrow();
  });

  it('keeps the password out of its description', async () => {
    const store = await PostgresTaskStore.open({
      connectionString: PG_URL.replace('postgres@', 'postgres:secret-pw@'),
      schema: newSchema(),
    });
    expect(store.description).not.toContain('secret-pw');
    await store.close();
  });
});

describe.skipIf(NO_PG)('PostgresTaskStore group commit', () => {
  it('writes and look-ups made together share statements, and each caller gets its own answer', async () => {
    const store = await PostgresTaskStore.open({ connectionString: PG_URL, schema: newSchema() });
    const tasks = Array.from({ length: 30 }, (_, i) => task(i % 3 ? 'completed' : 'input-required', { contextId: `c${i % 4}` }));
    const statements: string[] = [];
    // Counts the statements sent from here on.
    const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
    const counted = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as { name?: string } | string;
      statements.push(typeof first === 'string' ? first : (first.name ?? ''));
      return query.apply(this, args) as never;
    });
    try {
      await Promise.all(tasks.map((t, i) => store.saveTask(t, { scope: `s${i % 2}`, messageId: `m${i}` })));
      const found = await Promise.all(tasks.map((_, i) => store.findTaskIdByMessage(`s${i % 2}`, `m${i}`)));
      expect(found).toEqual(tasks.map((t) => t.id));
      expect(await store.findTaskIdByMessage('s0', 'm1')).toBeUndefined(); // m1 was remembered in scope s1
    } finally {
      counted.mockRestore();
    }
    // 30 writes and 30 look-ups, two batches of each kind in flight at most: far fewer statements.
    expect(statements.filter((s) => s === 'a2actor_save_tasks').length).toBeLessThan(10);
    expect(statements.filter((s) => s === 'a2actor_find_messages').length).toBeLessThan(10);
    for (const t of tasks) expect(await store.getTask(t.id)).toEqual(t);
    // The kept count adds new tasks only: writing them all again, together, changes nothing.
    expect((await store.listTasks({ pageSize: 5 })).totalSize).toBe(30);
    await Promise.all(tasks.map((t) => store.saveTask(t)));
    expect((await store.listTasks({ pageSize: 5 })).totalSize).toBe(30);
    await store.close();
  });

  it('a write the database refuses fails alone; the others of its batch are stored', async () => {
    const store = await PostgresTaskStore.open({ connectionString: PG_URL, schema: newSchema() });
    const good = [task('completed'), task('completed')];
    // PostgreSQL text cannot hold a NUL character.
    const bad = task('completed', { contextId: 'nul\u0000here' });
    const results = await Promise.allSettled([store.saveTask(good[0] as Task), store.saveTask(bad), store.saveTask(good[1] as Task)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    for (const t of good) expect(await store.getTask(t.id)).toEqual(t);
    expect(await store.getTask(bad.id)).toBeUndefined();
    await store.close();
  });
});

describe.skipIf(NO_PG)('PostgresTaskStore idempotency look-ups', () => {
  it('probe the key index, not the whole table, however much it grew after the statement was prepared', async () => {
    const schema = newSchema();
    // One connection: every look-up runs the one prepared statement, whose generic plan (from
    // the sixth run on) was made while the table was empty and is kept as the table grows.
    const store = await PostgresTaskStore.open({ connectionString: PG_URL, schema, max: 1 });
    const lookUp = (ids: string[]) => Promise.all(ids.map((id) => store.findTaskIdByMessage('', id)));
    const ids = (prefix: string) => Array.from({ length: 30 }, (_, i) => `${prefix}${i + 1}`);
    // Batches of look-ups, as under load.
    for (let round = 0; round < 10; round++) expect(await lookUp(ids(`early-${round}-`))).toEqual(ids('').map(() => undefined));
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO ${schema}.a2actor_message_keys (scope, message_id, task_id) SELECT '', 'm' || g, 't' || g FROM generate_series(1, 20000) g`,
      );
      for (let round = 0; round < 10; round++) expect(await lookUp(ids('m'))).toEqual(ids('t'));
      expect(await store.findTaskIdByMessage('', 'absent')).toBeUndefined();
      // A closed backend has flushed its table statistics.
      await store.close();
      const scans = async () =>
        (
          await client.query<{ seq_scan: string; idx_scan: string }>(
            "SELECT seq_scan, idx_scan FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'a2actor_message_keys'",
            [schema],
          )
        ).rows[0];
      await vi.waitFor(async () => expect(Number((await scans())?.idx_scan)).toBeGreaterThanOrEqual(300), {
        timeout: 5_000,
        interval: 100,
      });
      // One scan of the whole table at most: the one that built its primary key, when it was empty.
      expect(Number((await scans())?.seq_scan)).toBeLessThanOrEqual(1);
    } finally {
      await client.end();
    }
  });
});

describe.skipIf(NO_PG)('PostgresTaskStore timed for metrics', () => {
  it('records its operations as store="postgres" in the store latency histogram', async () => {
    const metrics = createMetrics();
    const store = measuredStore(await PostgresTaskStore.open({ connectionString: PG_URL, schema: newSchema() }), metrics);
    const t = task('completed');
    await store.saveTask(t);
    expect(await store.getTask(t.id)).toEqual(t);
    expect(await store.getTask('absent')).toBeUndefined();
    await store.close();
    const text = await metrics.render({
      liveTasks: 0,
      runningActors: 0,
      openStreams: 0,
      pushInFlight: 0,
      pushQueued: 0,
      bodiesWaiting: 0,
      bodyBytesInFlight: 0,
      ready: {},
    });
    expect(text).toContain('a2actor_store_operation_duration_seconds_count{store="postgres",operation="saveTask"} 1\n');
    expect(text).toContain('a2actor_store_operation_duration_seconds_count{store="postgres",operation="getTask"} 2\n');
  });
});
