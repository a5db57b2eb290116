/**
 * SERVICE_SQLITE_SYNCHRONOUS: `normal` (the default) survives a process crash, `full` also a
 * power loss; the setting reaches the connection's `synchronous` pragma.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveSettings } from '../../src/config.js';
import { openStore } from '../../src/store/open.js';
import type { SqliteDatabase } from '../../src/store/sqlite-driver.js';
import type { TaskStore } from '../../src/store/types.js';
import { tempDir } from '../support/server.js';

const temp = tempDir('a2actor-sync-');
afterAll(() => temp.cleanup());

/** The pragma as the store's own connection has it (the file is locked to that connection). */
const synchronousOf = (store: TaskStore): number =>
  (store as unknown as { db: SqliteDatabase }).db.prepare<{ synchronous: number }>('PRAGMA synchronous').get()?.synchronous ?? -1;

describe('SQLite synchronous setting', () => {
  it('is normal by default, full when asked, and refuses anything else naming its variable', () => {
    expect(resolveSettings({}, {}).sqliteSynchronous).toBe('normal');
    expect(resolveSettings({}, { SERVICE_SQLITE_SYNCHRONOUS: 'full' }).sqliteSynchronous).toBe('full');
    expect(() => resolveSettings({}, { SERVICE_SQLITE_SYNCHRONOUS: 'off' })).toThrow(/SERVICE_SQLITE_SYNCHRONOUS: use "normal" or "full"/);
  });

  it.each([
    ['normal', 1],
    ['full', 2],
  ] as const)('%s reaches the connection (pragma %i)', async (setting, pragma) => {
    const store = await openStore(`sqlite:${join(temp.dir, `${setting}.db`)}`, { sqliteSynchronous: setting });
    try {
      expect(synchronousOf(store)).toBe(pragma);
    } finally {
      await store.close();
    }
  });
});
