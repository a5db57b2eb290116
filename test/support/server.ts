/** Starting real servers on free 127.0.0.1 ports for tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type A2AServer, type CreateServerOptions } from '../../src/index.js';
import scenarioAgent from '../../examples/scenario-agent.js';

export type StoreKind = 'memory' | 'sqlite';
export const STORE_KINDS: StoreKind[] = ['memory', 'sqlite'];

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'a2actor-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestServer extends A2AServer {
  /** Closes the server and removes its temporary files. */
  stop(): Promise<void>;
}

/** The scenario agent (or another) on a free port, with a memory or a fresh SQLite store. */
export async function startServer(
  opts: Partial<CreateServerOptions> & { storeKind?: StoreKind; sqlitePath?: string } = {},
): Promise<TestServer> {
  const { storeKind = 'memory', sqlitePath, ...rest } = opts;
  const temp = storeKind === 'sqlite' && !sqlitePath ? tempDir() : undefined;
  const store = storeKind === 'memory' ? 'memory' : `sqlite:${sqlitePath ?? join(temp?.dir ?? '.', 'tasks.db')}`;
  const server = await createServer({
    agent: scenarioAgent,
    host: '127.0.0.1',
    port: 0,
    store,
    logLevel: 'silent',
    env: {},
    ...rest,
  });
  return Object.assign(server, {
    async stop() {
      await server.close();
      temp?.cleanup();
    },
  });
}
