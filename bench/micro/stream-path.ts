/**
 * A W4 stream in one process, without sockets: a JSON-RPC `message/stream` request through the
 * shared exchange, the router and operations, the real TaskService (bench echo agent, memory
 * store and event log with the default replay and retention), and the SSE writer on a response
 * that only counts what it is given, until the final event ends it. What our code pays per W4
 * stream, without uWS and the kernel; deterministic enough to run under callgrind for
 * instruction counts: run the tsc build of it (bench/tsconfig.build.json) under
 * `valgrind --tool=callgrind node --single-threaded …/stream-path.js <n> 16` for two sizes and take
 * the difference per stream, which leaves start-up out. The response is plain JS, so what uWS's
 * native calls cost (headers, writes) is not in these counts: `bench/run.ts --profile W4` shows it.
 *
 * `stream-path.ts <streams per round> <concurrency>`: a warm-up round, then five; prints one JSON
 * line with the median and lowest CPU µs per stream, and the bytes, headers and writes per
 * stream (which must not change when only the cost does).
 */
import { createExchange, type WireResponse } from '../../src/http/exchange.js';
import { silentLogger } from '../../src/log.js';
import { observeRoutes } from '../../src/observe/requests.js';
import { createOperations } from '../../src/protocol/operations.js';
import { createRouter } from '../../src/protocol/router.js';
import { PushConfigs } from '../../src/push/configs.js';
import type { CardOptions } from '../../src/protocol/card.js';
import { echoService } from './echo-service.js';
import { postRequest, rpcMessageBody } from './wire-request.js';

const perRound = Number(process.argv[2] ?? '20000');
const concurrency = Number(process.argv[3] ?? '16');
if (!Number.isInteger(perRound) || perRound <= 0 || !Number.isInteger(concurrency) || concurrency <= 0) {
  process.stderr.write('usage: stream-path <streams per round> <concurrency>\n');
  process.exit(2);
}

const { service, store, settings } = echoService();
await service.init();
const ops = createOperations({
  service,
  push: new PushConfigs(store),
  card: { capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false } } as unknown as CardOptions,
});
const route = observeRoutes(createRouter(ops, silentLogger, { maxJsonDepth: 64 }), silentLogger);
const exchange = createExchange(
  { maxBodyBytes: 1 << 20, route, sse: { heartbeatMs: settings.sseHeartbeat * 1000, maxBufferedBytes: 1 << 20 }, logger: silentLogger },
  '127.0.0.1:1',
);

let bytes = 0;
let headers = 0;
let writes = 0;
let seq = 0;

/** A response that writes nowhere; `done` when it is ended (the stream's last event is out). */
function response(done: () => void): WireResponse {
  const res: WireResponse = {
    cork: (fn) => fn(),
    writeStatus: (status) => {
      bytes += status.length;
      return res;
    },
    writeHeader: (name, value) => {
      headers++;
      bytes += name.length + value.length;
      return res;
    },
    write: (chunk) => {
      writes++;
      bytes += chunk.length;
      return true;
    },
    end: (chunk) => {
      bytes += typeof chunk === 'string' ? chunk.length : (chunk?.byteLength ?? 0);
      done();
    },
    endWithoutBody: () => done(),
    onWritable: () => undefined,
    onAborted: () => undefined,
    close: () => {
      throw new Error('a W4 stream was closed, not ended');
    },
  };
  return res;
}

const ACCEPT_SSE = { accept: 'text/event-stream' };

/** One stream, as uws-server.ts hands a request to the exchange. */
function one(): Promise<void> {
  const req = postRequest('/', rpcMessageBody('message/stream', `m-${seq++}`), ACCEPT_SSE);
  return new Promise((resolve) => exchange.handle(req, response(resolve)));
}

async function worker(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await one();
}

async function round(): Promise<number> {
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, () => worker(Math.ceil(perRound / concurrency))));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / perRound;
}

await round();
const before = { bytes, headers, writes, seq };
const rounds: number[] = [];
for (let r = 0; r < 5; r++) rounds.push(await round());
const streams = seq - before.seq;
rounds.sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({
    perRound,
    concurrency,
    medianUs: Number(rounds[2]?.toFixed(2)),
    lowestUs: Number(rounds[0]?.toFixed(2)),
    bytesPerStream: (bytes - before.bytes) / streams,
    headersPerStream: (headers - before.headers) / streams,
    writesPerStream: (writes - before.writes) / streams,
  })}\n`,
);
await service.close();
process.exit(0);
