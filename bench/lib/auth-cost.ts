/**
 * What bearer auth (the `auth` server) or metrics (the `metrics` server) add to a task, measured so that 5 µs can be told from noise: two W1
 * windows on one server differ by up to ±20 µs of CPU per task on this kind of machine, more
 * than the cost itself. So the memory server and the same server with auth on both stay up,
 * and W1 runs on them in alternating order for several rounds; the cost is the difference of
 * the medians.
 */
import type { ServerBuild } from './build.js';
import { startGenerator, startServerProcess } from './children.js';
import type { BenchOptions } from './options.js';
import { headersFor, requests, WORKLOADS } from './workloads.js';
import type { LoadSpec } from './types.js';

export interface AuthCost {
  rounds: number;
  /** CPU µs per task of each round, in run order. */
  memory: number[];
  auth: number[];
  memoryMedian: number;
  authMedian: number;
  /** authMedian - memoryMedian. */
  costMicros: number;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const round1 = (n: number): number => Math.round(n * 10) / 10;

/** The memory server with one feature on, measured against the memory server. */
export type CostVariant = 'auth' | 'metrics';

export async function measureAuthCost(
  build: ServerBuild,
  opts: BenchOptions,
  rounds: number,
  sqlitePath: string,
  variant: CostVariant = 'auth',
): Promise<AuthCost> {
  const memory = await startServerProcess('memory', sqlitePath, { build });
  const auth = await startServerProcess(variant, sqlitePath, { build }).catch(async (err: unknown) => {
    await memory.stop();
    throw err;
  });
  const generator = startGenerator();
  const samples = { memory: [] as number[], auth: [] as number[] };
  try {
    for (let i = 0; i < rounds; i++) {
      // Alternating who goes first cancels whatever drifts over the run.
      const order = i % 2 === 0 ? (['memory', 'auth'] as const) : (['auth', 'memory'] as const);
      // (`auth` below stands for the variant server, whichever it is.)
      for (const kind of order) {
        const server = kind === 'memory' ? memory : auth;
        const spec: LoadSpec = {
          origins: server.urls,
          request: requests.rpcSend(),
          check: WORKLOADS.W1.check,
          connections: opts.connections,
          warmupMs: opts.warmupMs,
          durationMs: opts.durationMs,
          ...headersFor(kind === 'auth' ? variant : kind),
        };
        const m = await generator.run(spec, server);
        if (m.result.errors > 0 || m.result.requests === 0)
          throw new Error(`${variant} cost: ${kind === 'auth' ? variant : kind} W1 round ${i + 1} had ${m.result.errors} errors`);
        samples[kind].push(round1(m.serverCpuMicros / m.result.requests));
      }
    }
  } finally {
    await generator.close();
    await Promise.all([memory.stop(), auth.stop()]);
  }
  const memoryMedian = round1(median(samples.memory));
  const authMedian = round1(median(samples.auth));
  return { rounds, ...samples, memoryMedian, authMedian, costMicros: round1(authMedian - memoryMedian) };
}

export const metricsCostNote = (c: AuthCost): string =>
  `metrics cost: ${c.costMicros >= 0 ? '+' : ''}${c.costMicros} µs CPU per W1 task (target at most +3): median of ${c.rounds} interleaved ` +
  `rounds each, ours metrics ${c.authMedian} µs [${c.auth.join(', ')}] vs ours mem (metrics off) ${c.memoryMedian} µs [${c.memory.join(', ')}], both servers up, order alternating; nothing scrapes during the run.`;

export const authCostNote = (c: AuthCost): string =>
  `bearer auth cost: ${c.costMicros >= 0 ? '+' : ''}${c.costMicros} µs CPU per W1 task (target at most +5): median of ${c.rounds} interleaved ` +
  `rounds each, ours auth ${c.authMedian} µs [${c.auth.join(', ')}] vs ours mem ${c.memoryMedian} µs [${c.memory.join(', ')}], both servers up, order alternating.`;
