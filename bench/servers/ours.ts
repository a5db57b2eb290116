/**
 * a2actor serving the bench echo agent, in its own process: `ours.ts <store> [<events> [node|express]]`, the
 * store `memory`, `memory-plain`, `sqlite:<path>` or `postgres://…?schema=<name>`, the events `memory` (default)
 * or `redis://…` (one replica of several: bench/lib/cluster.ts). Logging is off (as in
 * production at high load, and as the peer does), and webhooks may go to http://127.0.0.1 so W7
 * can deliver to the generator's local receiver.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { bearerAuth, createServer, type NodeRequestHandler } from '../../src/index.js';
import echoAgent from '../agents/echo-agent.js';
import { BENCH_BEARER_TOKEN } from '../lib/workloads.js';
import { serve } from './child.js';

const store = process.argv[2] ?? 'memory';
const events = process.argv[3] ?? 'memory';
/**
 * `auto` (native uWS here), `node` (the node front end), `node-http` (node:http's own server), or
 * `express`: no listener of ours, `server.nodeHandler()` mounted at the root of an Express app on a
 * node:http server of its own.
 */
const frontArg = process.argv[4];
const mountedInExpress = frontArg === 'express';
const frontEnd = frontArg === 'node' || frontArg === 'node-http' ? frontArg : mountedInExpress ? 'none' : 'auto';
/** `auth`: bearer authentication on (one static token), to measure what it costs. */
const withAuth = process.argv[5] === 'auth';
/**
 * `metrics`: Prometheus metrics on (the shipped default). Every other run has them off, so
 * its numbers stay comparable with reports from before metrics existed; the `metrics` server
 * kind and its interleaved cost note (bench/lib/auth-cost.ts) say what they add.
 */
const withMetrics = process.argv[5] === 'metrics';

/** What createServer did with V8's heap growth (`tuneHeap`, src/heap-tuning.ts), for the report. */
const heapGrowthLabel = (percent: number | 'node-flag'): string =>
  percent === 'node-flag' ? "node's own --heap-growing-percent" : percent === 0 ? "V8's own heap growth" : `heap growth ${percent}%`;

/** The store as the report names it: PostgreSQL's description leaves out the schema. */
function storeOf(description: string): string {
  if (!/^postgres(ql)?:\/\//.test(store)) return description;
  const schema = new URL(store).searchParams.get('schema');
  return schema === null ? description : `${description}?schema=${schema}`;
}

await serve(async () => {
  const server = await createServer({
    agent: withAuth ? { ...echoAgent, auth: bearerAuth({ tokens: { [BENCH_BEARER_TOKEN]: 'bench' } }) } : echoAgent,
    host: '127.0.0.1',
    port: 0,
    store,
    events,
    logLevel: 'silent',
    env: {},
    pushAllowHttp: true,
    pushAllowedHosts: ['127.0.0.1'],
    frontEnd,
    metrics: withMetrics,
    // Tuned as `a2actor serve` tunes its process (src/heap-tuning.ts).
    tuneHeap: true,
  });
  const parts = [
    'a2actor',
    storeOf(server.store.description),
    ...(events === 'memory' ? [] : [`events ${events}`]),
    mountedInExpress ? 'mounted in Express (node:http)' : `front end ${server.frontEnd}`,
    ...(withAuth ? ['bearer auth'] : []),
    withMetrics ? 'metrics on' : 'metrics off',
    // createServer sets V8's heap growth as `a2actor serve` does (src/heap-tuning.ts).
    heapGrowthLabel(server.heapGrowthPercent),
  ];
  if (!mountedInExpress) return { url: server.url, description: parts.join(', '), close: () => server.close() };
  const host = await expressHost(server.nodeHandler());
  return {
    url: host.url,
    description: parts.join(', '),
    async close() {
      await host.close();
      await server.close();
    },
  };
});

/** An Express app with nothing but the handler mounted at its root, listening on a free loopback port. */
async function expressHost(handler: NodeRequestHandler): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  app.use(handler);
  const host = http.createServer(app);
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  const { port } = host.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        host.closeAllConnections();
        host.close(() => resolve());
      }),
  };
}
