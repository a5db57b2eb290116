/**
 * Opens the store named by the `store` setting: `memory` (packed), `memory-plain`, `sqlite:<path>`
 * or `postgres://…`.
 */
import { MapTaskStore } from './map-store.js';
import { MemoryTaskStore } from './memory.js';
import { SqliteTaskStore, type SqliteStoreOptions } from './sqlite.js';
import type { TaskStore } from './types.js';
import { loadBackend } from '../load-backend.js';

/** The store a `store` setting names: `memory`, `memory-plain`, `sqlite:<path>` or `postgres://…`. */
export async function openStore(
  spec: string,
  opts: { sqliteSynchronous?: SqliteStoreOptions['synchronous']; sqliteDriver?: SqliteStoreOptions['driver'] } = {},
): Promise<TaskStore> {
  const sqlite: SqliteStoreOptions = { synchronous: opts.sqliteSynchronous ?? 'normal', driver: opts.sqliteDriver ?? 'auto' };
  if (spec === 'memory') return new MemoryTaskStore();
  if (spec === 'memory-plain') return new MapTaskStore();
  if (spec.startsWith('postgres://') || spec.startsWith('postgresql://')) {
    // `?schema=name` keeps a2actor's tables in a schema of their own.
    const url = new URL(spec);
    const schema = url.searchParams.get('schema') ?? undefined;
    url.searchParams.delete('schema');
    const { PostgresTaskStore } = await loadBackend(() => import('./postgres.js'), 'pg', 'the PostgreSQL store');
    return PostgresTaskStore.open({ connectionString: url.toString(), ...(schema ? { schema } : {}) });
  }
  if (spec.startsWith('sqlite:')) return new SqliteTaskStore(spec.slice('sqlite:'.length) || './data/a2actor.db', sqlite);
  if (/\.(db|sqlite3?)$/.test(spec)) return new SqliteTaskStore(spec, sqlite);
  throw new Error(`unknown store "${spec}": use "memory", "memory-plain", "sqlite:<path>" or "postgres://…"`);
}
