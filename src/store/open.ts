/** Opens the store named by the `store` setting: `memory` or `sqlite:<path>`. */
import { MemoryTaskStore } from './memory.js';
import { SqliteTaskStore } from './sqlite.js';
import type { TaskStore } from './types.js';

export function openStore(spec: string): TaskStore {
  if (spec === 'memory') return new MemoryTaskStore();
  if (spec.startsWith('sqlite:')) return new SqliteTaskStore(spec.slice('sqlite:'.length) || './data/a2actor.db');
  if (/\.(db|sqlite3?)$/.test(spec)) return new SqliteTaskStore(spec);
  throw new Error(`unknown store "${spec}": use "memory" or "sqlite:<path>"`);
}
