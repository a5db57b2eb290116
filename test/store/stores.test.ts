import { join } from 'node:path';
import { afterAll } from 'vitest';
import { MemoryTaskStore } from '../../src/store/memory.js';
import { SqliteTaskStore } from '../../src/store/sqlite.js';
import { tempDir } from '../support/server.js';
import { storeContract } from './contract.js';

const temp = tempDir('a2actor-store-');
afterAll(() => temp.cleanup());
let n = 0;

storeContract('memory', async () => ({ store: new MemoryTaskStore() }));
storeContract('sqlite', async () => {
  const path = join(temp.dir, `store-${++n}.db`);
  return { store: new SqliteTaskStore(path), reopen: async () => new SqliteTaskStore(path) };
});
