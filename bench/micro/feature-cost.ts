/**
 * What bearer auth and metrics add to a W1 task, without sockets. A JSON-RPC `message/send` goes
 * through what createServer wires for it, in one process: the shared exchange, the observer, the
 * router (with the auth gate for `auth`: a static bearer token, so the task has an owner),
 * operations and the real TaskService (bench echo agent, memory store and event log), on a
 * response that writes nowhere. `metrics` adds what createServer adds with metrics on: the
 * request and task counters, the timed store and the exchange's own.
 *
 * The interleaved server rounds (bench/lib/auth-cost.ts) cannot tell a few microseconds from the
 * ±20% two windows of one server differ by on a shared machine, and neither can CPU time here:
 * `npm run bench:feature-cost` (bench/feature-cost.ts) runs this under callgrind, which counts
 * instructions whatever else the machine does. One variant per process: in one process the three
 * would share the optimized code of what they have in common.
 *
 * `feature-cost.ts <plain|auth|metrics> <requests per round>`: a warm-up round, then five; prints
 * one JSON line with the median and lowest CPU µs per request and the requests served. Every
 * reply must hold a completed task (an auth that refused would be cheap, not free).
 */
import { bearerAuth } from '../../src/auth/bearer.js';
import { createAuthGate } from '../../src/auth/gate.js';
import { createExchange, type WireResponse } from '../../src/http/exchange.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/observe/metrics.js';
import { observeRoutes } from '../../src/observe/requests.js';
import type { CardOptions } from '../../src/protocol/card.js';
import { createOperations } from '../../src/protocol/operations.js';
import { createRouter } from '../../src/protocol/router.js';
import { PushConfigs } from '../../src/push/configs.js';
import { FEATURE_VARIANTS, type FeatureVariant } from '../lib/types.js';
import { BENCH_BEARER_TOKEN } from '../lib/workloads.js';
import { echoService } from './echo-service.js';
import { postRequest, rpcMessageBody } from './wire-request.js';

const variant = process.argv[2] as FeatureVariant;
const perRound = Number(process.argv[3] ?? '20000');
if (!FEATURE_VARIANTS.includes(variant) || !Number.isInteger(perRound) || perRound <= 0) {
  process.stderr.write(`usage: feature-cost <${FEATURE_VARIANTS.join('|')}> <requests per round>\n`);
  process.exit(2);
}

const metrics = variant === 'metrics' ? createMetrics() : undefined;
const { service, store, settings } = echoService(metrics ? { metrics } : {});
await service.init();
const ops = createOperations({
  service,
  push: new PushConfigs(store),
  card: { capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false } } as unknown as CardOptions,
});
const gate = variant === 'auth' ? createAuthGate(bearerAuth({ tokens: { [BENCH_BEARER_TOKEN]: 'bench' } }), silentLogger) : undefined;
const router = createRouter(ops, silentLogger, { maxJsonDepth: settings.maxJsonDepth, restDialect: settings.restDialect }, gate);
const exchange = createExchange(
  {
    maxBodyBytes: settings.maxBodyBytes,
    route: observeRoutes(router, silentLogger, metrics),
    sse: { heartbeatMs: settings.sseHeartbeat * 1000, maxBufferedBytes: settings.sseMaxBufferedBytes },
    logger: silentLogger,
    ...(metrics ? { metrics } : {}),
  },
  '127.0.0.1:1',
);

let seq = 0;
let completed = 0;
let onEnd: () => void = () => {};
const COMPLETED = '"state":"completed"';
const res: WireResponse = {
  cork: (fn) => fn(),
  writeStatus: () => res,
  writeHeader: () => res,
  write: () => true,
  end: (chunk) => {
    const text = typeof chunk === 'string' ? chunk : (chunk?.toString() ?? '');
    if (text.includes(COMPLETED)) completed++;
    onEnd();
  },
  endWithoutBody: () => onEnd(),
  onWritable: () => undefined,
  onAborted: () => undefined,
  close: () => {
    throw new Error('a W1 request was closed, not answered');
  },
};

const AUTHORIZATION = { authorization: `Bearer ${BENCH_BEARER_TOKEN}` };

function one(): Promise<void> {
  const req = postRequest('/', rpcMessageBody('message/send', `m-${seq++}`), gate ? AUTHORIZATION : {});
  return new Promise((resolve) => {
    onEnd = resolve;
    exchange.handle(req, res);
  });
}

async function round(): Promise<number> {
  const cpu = process.cpuUsage();
  for (let i = 0; i < perRound; i++) await one();
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / perRound;
}

await round();
const rounds: number[] = [];
for (let r = 0; r < 5; r++) rounds.push(await round());
if (completed !== seq) {
  process.stderr.write(`feature-cost ${variant}: ${seq - completed} of ${seq} replies held no completed task\n`);
  process.exit(1);
}
rounds.sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({ variant, perRound, requests: seq, medianUs: Number(rounds[2]?.toFixed(2)), lowestUs: Number(rounds[0]?.toFixed(2)) })}\n`,
);
await service.close();
process.exit(0);
