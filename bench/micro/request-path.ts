/**
 * The request path around the runtime, alone: the shared exchange (framing, body, reply
 * writing), the observer, the router (body parse, depth check, version, routing), JSON-RPC or
 * REST handling and the operations' params checks, with a stub TaskService that answers every
 * send at once with a fixed task JSON, and a response that writes nowhere. What the W1/W2 bench
 * tasks pay for HTTP and protocol handling, without the runtime, the store or the socket.
 *
 * `request-path.ts <rpc|rest|rest-proto> <requests>`: a warm-up of a fifth, then five rounds;
 * prints one JSON line with the median and the lowest CPU µs per request. `rest-proto` is REST
 * with SERVICE_REST_DIALECT=proto, its body a blocking send as the official SDK's REST client
 * sends it.
 */
import { createExchange, type WireResponse } from '../../src/http/exchange.js';
import { silentLogger } from '../../src/log.js';
import { observeRoutes } from '../../src/observe/requests.js';
import { createOperations } from '../../src/protocol/operations.js';
import { createRouter } from '../../src/protocol/router.js';
import type { PushConfigs } from '../../src/push/configs.js';
import type { CardOptions } from '../../src/protocol/card.js';
import type { TaskService } from '../../src/runtime/task-service.js';
import { BENCH_TEXT as TEXT, postRequest, rpcMessageBody } from './wire-request.js';

const kind = process.argv[2] ?? 'rpc';
const requests = Number(process.argv[3] ?? '200000');
if ((kind !== 'rpc' && kind !== 'rest' && kind !== 'rest-proto') || !Number.isInteger(requests) || requests <= 0) {
  process.stderr.write('usage: request-path <rpc|rest|rest-proto> <requests>\n');
  process.exit(2);
}

const task = {
  kind: 'task' as const,
  id: 'b7b9a0d2-2f3e-4d55-9a77-0c1c1b6f1e11',
  contextId: '0d7c6c8e-31a4-4f0b-8a2c-3f7f5d0c7e21',
  status: { state: 'completed' as const, timestamp: '2025-01-01T00:00:00.000Z' },
  artifacts: [{ artifactId: 'echo', name: 'echo', parts: [{ kind: 'text' as const, text: TEXT }] }],
  history: [{ kind: 'message' as const, role: 'user' as const, messageId: 'm', parts: [{ kind: 'text' as const, text: TEXT }] }],
};
const taskJson = JSON.stringify(task);
const service = {
  ready: true,
  isDraining: false,
  sendMessage: () => Promise.resolve({ kind: 'task', task, json: taskJson }),
} as unknown as TaskService;
const ops = createOperations({
  service,
  push: {} as PushConfigs,
  card: { capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false } } as unknown as CardOptions,
});
const restDialect = kind === 'rest-proto' ? 'proto' : 'a2a';
const route = observeRoutes(createRouter(ops, silentLogger, { maxJsonDepth: 64, restDialect }), silentLogger);
const exchange = createExchange(
  { maxBodyBytes: 1 << 20, route, sse: { heartbeatMs: 15_000, maxBufferedBytes: 1 << 20 }, logger: silentLogger },
  '127.0.0.1:1',
);

const restBody = (id: string) => JSON.stringify({ message: { messageId: id, role: 'ROLE_USER', content: [{ text: TEXT }] } });
const protoBody = (id: string) =>
  JSON.stringify({ message: { messageId: id, role: 'ROLE_USER', content: [{ text: TEXT }] }, configuration: { blocking: true } });

let written = 0;
let onEnd: () => void = () => {};
const res: WireResponse = {
  cork: (fn) => fn(),
  writeStatus: () => res,
  writeHeader: () => res,
  write: () => true,
  end: (body) => {
    written += typeof body === 'string' ? body.length : (body?.length ?? 0);
    onEnd();
  },
  endWithoutBody: () => onEnd(),
  onWritable: () => undefined,
  onAborted: () => undefined,
  close: () => undefined,
};

let seq = 0;
/** One request through the exchange, as uws-server.ts builds it (headers object, copied body). */
function one(): Promise<void> {
  const id = `m-${seq++}`;
  const req =
    kind === 'rpc'
      ? postRequest('/', rpcMessageBody('message/send', id))
      : postRequest('/v1/message:send', kind === 'rest' ? restBody(id) : protoBody(id));
  return new Promise((resolve) => {
    onEnd = resolve;
    exchange.handle(req, res);
  });
}

async function run(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await one();
}

const ROUNDS = 5;
const perRound = Math.ceil(requests / ROUNDS);
await run(perRound);
const rounds: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const cpu = process.cpuUsage();
  await run(perRound);
  const used = process.cpuUsage(cpu);
  rounds.push((used.user + used.system) / perRound);
}
const sorted = [...rounds].sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({ kind, perRound, medianUs: Number(sorted[2]?.toFixed(2)), lowestUs: Number(sorted[0]?.toFixed(2)), written })}\n`,
);
