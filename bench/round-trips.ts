/**
 * `npm run bench:round-trips [-- --tasks <n> --connections <n>]`: how many round trips one W1
 * task (JSON-RPC message/send to the echo agent, blocking) costs the cluster's backends. Two
 * replicas of ours run in this process on the PostgreSQL and the Redis of bench/lib/cluster.ts
 * (a fresh schema, dropped after); the pg client's `query` and ioredis's command sending are
 * counted in the replicas themselves, so other users of the shared servers do not blur the
 * figures. After a warm-up, the tasks are sent round-robin over both replicas and every count
 * is divided by the tasks; the background work of a run this short (lease renewals, the orphan
 * sweep) is included, whatever falls into the window.
 *
 * A round trip is one exchange the code waits on: a pg query, a single Redis command, or a
 * Redis pipeline / MULTI…EXEC (its commands are listed apart). Redis subscriptions are commands
 * too; the messages a subscriber receives are not.
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createServer, type A2AServer } from '../src/index.js';
import echoAgent from './agents/echo-agent.js';
import { CLUSTER_POSTGRES_URL, CLUSTER_REDIS_URL, CLUSTER_REPLICAS } from './lib/cluster.js';

interface Tally {
  roundTrips: number;
  commands: number;
  /** Round trips by statement (pg) or by command list (Redis). */
  by: Map<string, number>;
}

const tally = (): Tally => ({ roundTrips: 0, commands: 0, by: new Map() });
let counting = false;
let postgres = tally();
let redis = tally();

const bump = (t: Tally, what: string, commands = 1): void => {
  if (!counting) return;
  t.roundTrips++;
  t.commands += commands;
  t.by.set(what, (t.by.get(what) ?? 0) + 1);
};

/** pg: every query (simple or extended protocol, named or not) is one exchange. */
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0];
  const text =
    typeof first === 'string' ? first : ((first as { text?: string; name?: string } | null)?.name ?? (first as { text?: string })?.text);
  bump(postgres, (text ?? '?').replace(/\s+/g, ' ').trim().slice(0, 70));
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

/** ioredis: a command alone is one exchange; a pipeline's commands share one stream object and one write. */
type Sent = { name: string };
const pipelines = new WeakMap<object, string[]>();
const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, command: Sent, stream?: { isPipeline?: boolean }) {
  if (counting) {
    if (stream?.isPipeline) {
      const names = pipelines.get(stream);
      if (names) names.push(command.name);
      else {
        const list = [command.name];
        pipelines.set(stream, list);
        // Counted once the whole pipeline has been handed over (same tick).
        queueMicrotask(() => bump(redis, `pipeline of ${[...new Set(list)].join(', ')}`, list.length));
      }
    } else bump(redis, command.name);
  }
  return (sendCommand as (this: Redis, ...a: unknown[]) => unknown).call(this, command, stream) as ReturnType<typeof sendCommand>;
} as typeof Redis.prototype.sendCommand;

const { values } = parseArgs({ options: { tasks: { type: 'string' }, connections: { type: 'string' }, warmup: { type: 'string' } } });
const TASKS = Number(values.tasks ?? 2000);
const CONNECTIONS = Number(values.connections ?? 16);
const WARMUP = Number(values.warmup ?? 300);

const schema = `a2actor_bench_${process.pid}_rt${Date.now().toString(36)}`;
const servers: A2AServer[] = [];
for (let i = 0; i < CLUSTER_REPLICAS; i++) {
  servers.push(
    await createServer({
      agent: echoAgent,
      host: '127.0.0.1',
      port: 0,
      store: `${CLUSTER_POSTGRES_URL}?schema=${schema}`,
      events: CLUSTER_REDIS_URL,
      logLevel: 'silent',
      env: {},
      metrics: false,
      // As `a2actor serve` tunes its process (src/heap-tuning.ts).
      tuneHeap: true,
    }),
  );
}

let sent = 0;
const send = async (n: number): Promise<void> => {
  const next = async (): Promise<void> => {
    while (sent < n) {
      const i = sent++;
      const url = servers[i % servers.length]?.url ?? '';
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: i,
        method: 'message/send',
        params: {
          message: { kind: 'message', role: 'user', messageId: `rt-${i}-${Date.now()}`, parts: [{ kind: 'text', text: 'hello' }] },
        },
      });
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const reply = (await res.json()) as { result?: { status?: { state?: string } } };
      if (reply.result?.status?.state !== 'completed') throw new Error(`task ${i}: ${JSON.stringify(reply)}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, next));
};

try {
  await send(WARMUP);
  sent = 0;
  postgres = tally();
  redis = tally();
  counting = true;
  await send(TASKS);
  // Hand-overs (lease release) and the last events' Stream writes trail the replies.
  await new Promise((resolve) => setTimeout(resolve, 200));
  counting = false;
} finally {
  for (const s of servers) await s.close();
  const c = new pg.Client({ connectionString: CLUSTER_POSTGRES_URL });
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await c.end();
}

const per = (n: number): string => (n / TASKS).toFixed(2);
const show = (label: string, t: Tally): string =>
  [
    `${label}: ${per(t.roundTrips)} round trips per task (${per(t.commands)} commands)`,
    ...[...t.by.entries()].sort((a, b) => b[1] - a[1]).map(([what, n]) => `  ${per(n).padStart(6)}  ${what}`),
  ].join('\n');
process.stdout.write(
  `W1 on ${CLUSTER_REPLICAS} replicas, ${TASKS} tasks after ${WARMUP} warm-up, ${CONNECTIONS} in flight\n` +
    `${show('PostgreSQL', postgres)}\n${show('Redis', redis)}\n`,
);
