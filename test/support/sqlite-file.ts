/**
 * `node --import tsx test/support/sqlite-file.ts <file> <driver> [task JSON]`: opens the SQLite
 * store in <file> with <driver>, saves the task if one is given, and prints every task in it as
 * one JSON array. Lets a test write a file with one driver and read it with the other, each in
 * the Node that has it.
 */
import type { Task } from '../../src/a2a/schemas.js';
import { SqliteTaskStore } from '../../src/store/sqlite.js';

const [path = '', driver = '', json] = process.argv.slice(2);
if (driver !== 'node' && driver !== 'better-sqlite3') throw new Error(`unknown driver ${driver}`);
const store = new SqliteTaskStore(path, { driver });
if (json) await store.saveTask(JSON.parse(json) as Task);
const { tasks } = await store.listTasks({ pageSize: 100 });
await store.close();
process.stdout.write(JSON.stringify({ driver: store.driver, tasks }));
