/**
 * The SQLite store on node:sqlite against better-sqlite3, in the same Node: the final write of a
 * W1 echo task (idempotency look-up, then `saveTask` with its message key: one transaction over
 * three tables), a `getTask`, and a 20-task `listTasks`. CPU per operation from process.cpuUsage,
 * the median of five rounds after a warm-up, each driver on a fresh file in a temporary directory.
 *
 * `node --import tsx bench/micro/sqlite-drivers.ts [tasks per round] [better-sqlite3 dir]`
 *
 * better-sqlite3 is a native addon built for one Node: on a Node it was not built for, give the
 * directory of a build that fits (an `npm install better-sqlite3` made with that Node).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { newId } from '../../src/a2a/ids.js';
import type { Task } from '../../src/a2a/schemas.js';
import { SqliteTaskStore } from '../../src/store/sqlite.js';
import { betterSqlite3Driver, sqliteDriver, type SqliteDriver } from '../../src/store/sqlite-driver.js';

const perRound = Number(process.argv[2] ?? '5000');
const betterDir = process.argv[3];

function echoTask(now: number): Task {
  const id = newId();
  const contextId = newId();
  const at = new Date(now).toISOString();
  const text = 'hello from the bench';
  return {
    kind: 'task',
    id,
    contextId,
    status: { state: 'completed', timestamp: at },
    history: [{ kind: 'message', role: 'user', parts: [{ kind: 'text', text }], messageId: newId(), taskId: id, contextId }],
    artifacts: [{ artifactId: 'echo', parts: [{ kind: 'text', text }], name: 'echo' }],
    metadata: { stateTransitions: [{ state: 'completed', timestamp: at }] },
  } as Task;
}

function drivers(): SqliteDriver[] {
  const found: SqliteDriver[] = [];
  try {
    found.push(sqliteDriver('node'));
  } catch {
    process.stdout.write(`node:sqlite: not in Node ${process.versions.node}\n`);
  }
  try {
    found.push(
      betterDir
        ? betterSqlite3Driver(createRequire(import.meta.url)(resolve(betterDir)) as Parameters<typeof betterSqlite3Driver>[0])
        : sqliteDriver('better-sqlite3'),
    );
  } catch (err) {
    process.stdout.write(`better-sqlite3: does not load here (${err instanceof Error ? err.message.split('\n')[0] : String(err)})\n`);
  }
  return found;
}

/** µs of CPU per operation for each part, one round. */
async function round(store: SqliteTaskStore): Promise<{ write: number; get: number; list: number }> {
  const now = Date.now();
  const tasks = Array.from({ length: perRound }, () => echoTask(now));
  const cpu = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  let start = cpu();
  for (const task of tasks) {
    const messageId = task.history?.[0]?.messageId ?? '';
    if ((await store.findTaskIdByMessage('', messageId)) !== undefined) throw new Error('message seen twice');
    await store.saveTask(task, { scope: '', messageId }, JSON.stringify(task));
  }
  const write = (cpu() - start) / perRound;
  start = cpu();
  for (const task of tasks) if (!(await store.getTask(task.id))) throw new Error('lost a task');
  const get = (cpu() - start) / perRound;
  const lists = Math.max(1, Math.floor(perRound / 20));
  start = cpu();
  for (let i = 0; i < lists; i++) await store.listTasks({ pageSize: 20, historyLength: 0 });
  const list = (cpu() - start) / lists;
  return { write, get, list };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const dir = mkdtempSync(join(tmpdir(), 'a2actor-sqlite-bench-'));
const rows: { driver: string; write: number; get: number; list: number }[] = [];
try {
  for (const driver of drivers()) {
    const store = new SqliteTaskStore(join(dir, `${driver.name}.db`), { driver });
    await round(store);
    const rounds = [];
    for (let r = 0; r < 5; r++) rounds.push(await round(store));
    await store.close();
    rows.push({
      driver: driver.name,
      write: median(rounds.map((r) => r.write)),
      get: median(rounds.map((r) => r.get)),
      list: median(rounds.map((r) => r.list)),
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const base = rows.find((r) => r.driver === 'better-sqlite3');
process.stdout.write(`Node ${process.versions.node}, ${perRound} W1 tasks per round, CPU µs per operation (median of 5)\n`);
process.stdout.write('driver           write   get    list(20)  write vs better-sqlite3\n');
for (const r of rows) {
  const ratio = base ? (r.write / base.write).toFixed(2) : '-';
  process.stdout.write(
    `${r.driver.padEnd(16)} ${r.write.toFixed(1).padStart(6)} ${r.get.toFixed(1).padStart(6)} ${r.list.toFixed(1).padStart(8)}  ${ratio}\n`,
  );
}
