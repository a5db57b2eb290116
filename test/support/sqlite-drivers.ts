/**
 * The SQLite drivers that load in this Node: node:sqlite on Node 22.13+, better-sqlite3 where its
 * addon was built for this Node (Node 20 here). Store suites run once per driver present.
 */
import { sqliteDriver, type SqliteDriver, type SqliteDriverName } from '../../src/store/sqlite-driver.js';

function tryDriver(name: SqliteDriverName): SqliteDriver | undefined {
  try {
    return sqliteDriver(name);
  } catch {
    return undefined;
  }
}

export const SQLITE_DRIVERS: SqliteDriver[] = (['node', 'better-sqlite3'] as const)
  .map(tryDriver)
  .filter((d): d is SqliteDriver => d !== undefined);
