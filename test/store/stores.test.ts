import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MapTaskStore } from '../../src/store/map-store.js';
import { MemoryTaskStore } from '../../src/store/memory.js';
import { SqliteTaskStore } from '../../src/store/sqlite.js';
import { rpcCall, userMessage } from '../support/a2a.js';
import { startServer, tempDir } from '../support/server.js';
import { SQLITE_DRIVERS } from '../support/sqlite-drivers.js';
import { expectOwnerlessAfterMigration, storeContract, task } from './contract.js';

const temp = tempDir('a2actor-store-');
afterAll(() => temp.cleanup());
let n = 0;

storeContract('memory', async () => ({ store: new MemoryTaskStore() }));
storeContract('memory-plain', async () => ({ store: new MapTaskStore() }));
for (const driver of SQLITE_DRIVERS) {
  storeContract(`sqlite (${driver.name})`, async () => {
    const path = join(temp.dir, `store-${++n}.db`);
    return { store: new SqliteTaskStore(path, { driver }), reopen: async () => new SqliteTaskStore(path, { driver }) };
  });
}

describe.each(SQLITE_DRIVERS.map((driver) => [driver.name, driver] as const))('SqliteTaskStore migrations (%s)', (_name, driver) => {
  it('a database written before owners existed migrates: its tasks stay readable and belong to nobody', async () => {
    const path = join(temp.dir, `before-owners-${driver.name}.db`);
    const old = task('completed', { contextId: 'c-old' });
    // The file as version 1 of the migrations left it, with one task in it.
    const db = driver.open(path);
    db.exec(`CREATE TABLE tasks (id TEXT PRIMARY KEY, context_id TEXT NOT NULL, state TEXT NOT NULL, status_ts TEXT NOT NULL, body TEXT NOT NULL) WITHOUT ROWID;
      CREATE INDEX tasks_context ON tasks (context_id, id);
      CREATE INDEX tasks_state ON tasks (state, id);
      CREATE TABLE message_keys (scope TEXT NOT NULL, message_id TEXT NOT NULL, task_id TEXT NOT NULL, PRIMARY KEY (scope, message_id)) WITHOUT ROWID;
      CREATE TABLE push_configs (task_id TEXT NOT NULL, config_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (task_id, config_id));`);
    db.prepare('INSERT INTO tasks VALUES (?, ?, ?, ?, ?)').run(
      old.id,
      old.contextId,
      'completed',
      old.status.timestamp,
      JSON.stringify(old),
    );
    db.exec('PRAGMA user_version = 1');
    db.close();

    const store = new SqliteTaskStore(path, { driver });
    // The summaries a list reads are filled in for tasks stored before them.
    expect((await store.listTasks({ pageSize: 10 })).tasks).toEqual([old]);
    expect((await store.listTasks({ pageSize: 10, historyLength: 0 })).tasks).toEqual([{ ...old, history: undefined }]);
    await expectOwnerlessAfterMigration(store, old);
    await store.close();
    const check = driver.open(path);
    expect(check.prepare<{ user_version: number }>('PRAGMA user_version').get()?.user_version).toBe(3);
    // The owner filter is served by an index, not by a scan after paging.
    const plan = check
      .prepare<{ detail: string }>("EXPLAIN QUERY PLAN SELECT id FROM task_summaries WHERE owner = 'alice' ORDER BY id DESC LIMIT 5")
      .all();
    expect(plan.map((r) => r.detail).join(' ')).toMatch(/USING (COVERING )?INDEX task_summaries_owner/);
    check.close();
  });
});

describe('the memory-plain store setting', () => {
  it('a server started with store memory-plain keeps, returns and lists its tasks in the plain store', async () => {
    const server = await startServer({ store: 'memory-plain' });
    try {
      expect(server.store.description).toBe('memory-plain');
      const sent = await rpcCall(server.url, 'message/send', { message: userMessage('echo plain') });
      expect(sent.result.status.state).toBe('completed');
      const read = await rpcCall(server.url, 'tasks/get', { id: sent.result.id });
      expect(read.result).toEqual(sent.result);
      const paused = await rpcCall(server.url, 'message/send', { message: userMessage('ask anything?') });
      expect(paused.result.status.state).toBe('input-required');
      const listed = await rpcCall(server.url, 'tasks/list', { status: 'input-required' });
      expect(listed.result.tasks.map((t: { id: string }) => t.id)).toEqual([paused.result.id]);
    } finally {
      await server.stop();
    }
  });
});
