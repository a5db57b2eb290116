/**
 * A plain Node process that embeds a2actor, for test/e2e/library-isolation.test.ts: it watches
 * what the library could change process-wide (V8 flags, process listeners, the undici global
 * dispatcher, globals), then imports createServer, serves one message and one stream over
 * loopback, closes the server and prints one JSON line with what changed.
 *
 * `node --import tsx test/support/embedder.ts [tune] [sqlite:<path>]`: `tune` starts the server
 * with `tuneHeap: true`; the store defaults to `memory`.
 */
import { request } from 'node:http';
import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);
const v8 = require('node:v8') as typeof import('node:v8');

/** Every V8 flag set from here on, whoever sets it. */
const flagsSet: string[] = [];
const setFlagsFromString = v8.setFlagsFromString;
v8.setFlagsFromString = (flags: string) => {
  flagsSet.push(flags);
  setFlagsFromString(flags);
};
// ES modules that import from node:v8 see the wrapper too (their named imports are live bindings).
syncBuiltinESMExports();

const EVENTS = ['unhandledRejection', 'uncaughtException', 'SIGINT', 'SIGTERM', 'exit', 'beforeExit', 'warning'] as const;
const listenerCounts = () => Object.fromEntries(EVENTS.map((e) => [e, process.listenerCount(e)]));
/** Where undici (node's fetch, and the npm package) keeps the global dispatcher. */
const DISPATCHER = Symbol.for('undici.globalDispatcher.1');
const globals = () => [...Reflect.ownKeys(globalThis)].map(String);

const before = {
  listeners: listenerCounts(),
  dispatcher: (globalThis as Record<symbol, unknown>)[DISPATCHER],
  globals: new Set(globals()),
  stackTraceLimit: Error.stackTraceLimit,
};

/** POSTs JSON-RPC to the server over node:http (fetch would create the global dispatcher itself). */
function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const message = (id: string, method: string, text: string) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { message: { kind: 'message', role: 'user', messageId: `m-${id}`, parts: [{ kind: 'text', text }] } },
});

const tune = process.argv.includes('tune');
const store = process.argv.find((a) => a.startsWith('sqlite:')) ?? 'memory';
const { createServer } = await import('../../src/index.js');
const { default: echoAgent } = await import('../../examples/echo-agent.js');
const server = await createServer({
  agent: echoAgent,
  host: '127.0.0.1',
  port: 0,
  store,
  logLevel: 'silent',
  env: process.env.TEST_FRONT_END ? { SERVICE_FRONT_END: process.env.TEST_FRONT_END } : {},
  ...(tune ? { tuneHeap: true } : {}),
});
const sent = await post(server.url, message('1', 'message/send', 'hello there'));
const streamed = await post(server.url, message('2', 'message/stream', 'hello stream'));
const during = listenerCounts();
await server.close();

const after = listenerCounts();
process.stdout.write(
  `${JSON.stringify({
    served: {
      frontEnd: server.frontEnd,
      send: { status: sent.status, completed: sent.text.includes('"completed"') },
      stream: { status: streamed.status, events: streamed.text.split('\n').filter((line) => line.startsWith('data:')).length },
    },
    reported: { heapGrowthPercent: server.heapGrowthPercent, pretenuring: server.pretenuring },
    flagsSet,
    listenersAdded: Object.fromEntries(
      EVENTS.map((e) => [e, Math.max((during[e] ?? 0) - (before.listeners[e] ?? 0), (after[e] ?? 0) - (before.listeners[e] ?? 0))]).filter(
        ([, n]) => n !== 0,
      ),
    ),
    dispatcherReplaced: (globalThis as Record<symbol, unknown>)[DISPATCHER] !== before.dispatcher,
    globalsAdded: globals().filter((k) => !before.globals.has(k)),
    stackTraceLimitChanged: Error.stackTraceLimit !== before.stackTraceLimit,
  })}\n`,
);
