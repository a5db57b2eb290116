/** Starting real servers on free 127.0.0.1 ports for tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type A2AServer, type CreateServerOptions } from '../../src/index.js';
import scenarioAgent from '../../examples/scenario-agent.js';

export type StoreKind = 'memory' | 'sqlite';

/**
 * The front end the suites run on: `TEST_FRONT_END=node` (set by the `node-http` project in
 * vitest.config.ts) runs them on node:http; unset, the default choice (native uWS here).
 */
export const TEST_FRONT_END = process.env.TEST_FRONT_END === 'node' || process.env.TEST_FRONT_END === 'uws' ? process.env.TEST_FRONT_END : undefined;
/**
 * The stores the suites run on. `TEST_STORES=memory` narrows them for the runs on newer Node
 * majors (.ci/run), where the better-sqlite3 addon built for this machine's Node cannot load.
 */
export const STORE_KINDS: StoreKind[] = (['memory', 'sqlite'] as const).filter(
  (kind) => process.env.TEST_STORES === undefined || process.env.TEST_STORES.split(',').includes(kind),
);

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
    ...(TEST_FRONT_END ? { frontEnd: TEST_FRONT_END } : {}),
    ...rest,
  });
  return Object.assign(server, {
    async stop() {
      await server.close();
      temp?.cleanup();
    },
  });
}
