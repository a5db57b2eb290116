/** Starting real servers on free 127.0.0.1 ports for tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createServer, type A2AServer, type CreateServerOptions } from '../../src/index.js';
import scenarioAgent from '../../examples/scenario-agent.js';

export type StoreKind = 'memory' | 'sqlite';

/**
 * The front end the suites run on: `TEST_FRONT_END=node` (set by the `node-http` project in
 * vitest.config.ts) runs them on the node front end, `node-http` (the `node-http-server` project)
 * on node:http's own server; unset, the default choice (native uWS here).
 */
export const TEST_FRONT_END =
  process.env.TEST_FRONT_END === 'node' || process.env.TEST_FRONT_END === 'node-http' || process.env.TEST_FRONT_END === 'uws'
    ? process.env.TEST_FRONT_END
    : undefined;

/**
 * `TEST_MOUNT=express` or `TEST_MOUNT=http` (the `express-mount` and `http-mount` projects in
 * vitest.config.ts): every server the suites start has no listener of its own and is reached
 * through `server.nodeHandler()` mounted under a path of an Express app or a bare node:http
 * server, so the same suites run through the mount. `url` then includes the mount path.
 */
const TEST_MOUNT = process.env.TEST_MOUNT === 'express' || process.env.TEST_MOUNT === 'http' ? process.env.TEST_MOUNT : undefined;
const MOUNT_PATH = '/mounted/a2a';

/** Serves `server` through a host app on a free loopback port; returns its URL and how to stop it. */
async function mountInHostApp(
  server: A2AServer,
  kind: 'express' | 'http',
): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  let host: http.Server;
  if (kind === 'express') {
    const app = express();
    app.get('/', (_req, res) => void res.send('the host app'));
    app.use(MOUNT_PATH, server.nodeHandler());
    host = http.createServer(app);
  } else {
    const handler = server.nodeHandler({ mountPath: MOUNT_PATH });
    host = http.createServer((req, res) => {
      if (req.url === MOUNT_PATH || req.url?.startsWith(`${MOUNT_PATH}/`) || req.url?.startsWith(`${MOUNT_PATH}?`)) handler(req, res);
      else res.writeHead(404).end('not ours');
    });
  }
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  const port = (host.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${MOUNT_PATH}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        host.closeAllConnections();
        host.close(() => resolve());
      }),
  };
}
/**
 * The stores the suites run on; `TEST_STORES=memory` narrows them for a quick run. SQLite runs
 * on every Node: better-sqlite3 where its addon loads, node:sqlite on Node 22.13+.
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
    // V8 tuned as `a2actor serve` tunes its process: the suites run the server the CLI runs.
    tuneHeap: true,
    ...(TEST_FRONT_END ? { frontEnd: TEST_FRONT_END } : {}),
    ...(TEST_MOUNT ? { frontEnd: 'none' as const } : {}),
    ...rest,
  });
  const mount = TEST_MOUNT ? await mountInHostApp(server, TEST_MOUNT) : undefined;
  // Object.assign would read `url`/`port` off the server: the mounted ones are set over them.
  return Object.assign(server, {
    ...(mount ? { url: mount.url, port: mount.port } : {}),
    async stop() {
      await mount?.close();
      await server.close();
      temp?.cleanup();
    },
  });
}
