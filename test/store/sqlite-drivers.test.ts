/**
 * SERVICE_SQLITE_DRIVER: node:sqlite (built into Node 22.13+, nothing to compile) or
 * better-sqlite3 (an optional peer, what Node 20 needs), behind one interface; one file format.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/a2a/schemas.js';
import { resolveSettings } from '../../src/config.js';
import { openStore } from '../../src/store/open.js';
import { SqliteTaskStore } from '../../src/store/sqlite.js';
import { nodeBinary } from '../support/node-binary.js';
import { tempDir } from '../support/server.js';
import { SQLITE_DRIVERS } from '../support/sqlite-drivers.js';
import { task } from './contract.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const temp = tempDir('a2actor-drivers-');
afterAll(() => temp.cleanup());

const has = (name: string) => SQLITE_DRIVERS.some((d) => d.name === name);
const nodeSqliteHere = process.getBuiltinModule('node:sqlite') !== undefined;

describe('the SQLite driver setting', () => {
  it('is auto by default, node or better-sqlite3 when asked, and refuses anything else naming its variable', () => {
    expect(resolveSettings({}, {}).sqliteDriver).toBe('auto');
    expect(resolveSettings({}, { SERVICE_SQLITE_DRIVER: 'node' }).sqliteDriver).toBe('node');
    expect(resolveSettings({}, { SERVICE_SQLITE_DRIVER: 'better-sqlite3' }).sqliteDriver).toBe('better-sqlite3');
    expect(() => resolveSettings({}, { SERVICE_SQLITE_DRIVER: 'sqlite3' })).toThrow(/SERVICE_SQLITE_DRIVER: use "auto", "node"/);
  });

  it('auto opens the file with node:sqlite where this Node has it, else with better-sqlite3', async () => {
    const store = await openStore(`sqlite:${join(temp.dir, 'auto.db')}`);
    try {
      expect((store as SqliteTaskStore).driver).toBe(nodeSqliteHere ? 'node' : 'better-sqlite3');
    } finally {
      await store.close();
    }
  });

  it.each(SQLITE_DRIVERS.map((d) => [d.name] as const))('%s, when asked, is the one that opens the file', async (name) => {
    const store = await openStore(`sqlite:${join(temp.dir, `forced-${name}.db`)}`, { sqliteDriver: name });
    try {
      expect((store as SqliteTaskStore).driver).toBe(name);
    } finally {
      await store.close();
    }
  });

  it.skipIf(nodeSqliteHere)('node, on a Node without node:sqlite, fails naming what to do', () => {
    expect(() => new SqliteTaskStore(join(temp.dir, 'none.db'), { driver: 'node' })).toThrow(
      /needs node:sqlite.*SERVICE_SQLITE_DRIVER=better-sqlite3 \(npm install better-sqlite3\)/,
    );
  });
});

describe('one file, either driver', () => {
  /** Runs test/support/sqlite-file.ts on `node` with `driver`; returns the tasks the file holds. */
  async function openWith(node: string, driver: string, path: string, save?: Task): Promise<Task[]> {
    const args = ['--no-warnings', '--import', 'tsx', 'test/support/sqlite-file.ts', path, driver, ...(save ? [JSON.stringify(save)] : [])];
    const { stdout } = await run(node, args, { cwd: ROOT, timeout: 60_000 });
    const out = JSON.parse(stdout) as { driver: string; tasks: Task[] };
    expect(out.driver).toBe(driver);
    return out.tasks;
  }

  // better-sqlite3's addon is built for one Node (20 here) and node:sqlite needs 22.13+: each
  // side runs in a Node that has its driver.
  it.skipIf(!has('better-sqlite3'))(
    'a database written by better-sqlite3 opens with node:sqlite, and the other way round',
    async () => {
      const withNodeSqlite = nodeSqliteHere ? process.execPath : await nodeBinary(22);
      const path = join(temp.dir, 'shared.db');
      const first = task('completed', { contextId: 'c-better' });
      const second = task('input-required', { contextId: 'c-node' });
      expect(await openWith(process.execPath, 'better-sqlite3', path, first)).toEqual([first]);
      expect(await openWith(withNodeSqlite, 'node', path, second)).toEqual([second, first]);
      expect(await openWith(process.execPath, 'better-sqlite3', path)).toEqual([second, first]);
    },
    180_000,
  );
});
