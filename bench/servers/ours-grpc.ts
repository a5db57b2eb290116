/**
 * a2actor's gRPC listener serving the bench echo agent, in its own process, with the memory
 * store, logging and metrics off, and the process tuned as `a2actor serve` tunes it (as
 * bench/servers/ours.ts runs). It prints its gRPC target.
 */
import { createServer } from '../../src/index.js';
import echoAgent from '../agents/echo-agent.js';
import { announce } from './grpc-child.js';

const server = await createServer({
  agent: echoAgent,
  host: '127.0.0.1',
  port: 0,
  grpcPort: 0,
  store: 'memory',
  logLevel: 'silent',
  metrics: false,
  env: {},
  // Tuned as `a2actor serve` tunes its process (src/heap-tuning.ts).
  tuneHeap: true,
});
announce(`127.0.0.1:${server.grpcPort}`, () => server.close());
