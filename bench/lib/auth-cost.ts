/**
 * What bearer auth (the `auth` server) or metrics (the `metrics` server) add to a task, measured so that 5 µs can be told from noise: two W1
 * windows on one server differ by up to ±20 µs of CPU per task on this kind of machine, more
 * than the cost itself. So the memory server and the same server with auth on both stay up,
 * and W1 runs on them in alternating order for several rounds; the cost is the difference of
 * the medians.
 */
import type { ServerBuild } from './build.js';
import { startGenerator, startServerProcess } from './children.js';
import { interleave, round1 } from './interleave.js';
import type { BenchOptions } from './options.js';
import { FEATURE_COST_TARGET_MICROS } from './types.js';
import { headersFor, requests, WORKLOADS } from './workloads.js';

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
  const withFeature = await startServerProcess(variant, sqlitePath, { build }).catch(async (err: unknown) => {
    await memory.stop();
    throw err;
  });
  const generator = startGenerator();
  try {
    const measured = await interleave(
      generator,
      [memory, withFeature],
      rounds,
      (server) => ({
        origins: server.urls,
        request: requests.rpcSend(),
        check: WORKLOADS.W1.check,
        connections: opts.connections,
        warmupMs: opts.warmupMs,
        durationMs: opts.durationMs,
        ...headersFor(server.kind),
      }),
      `${variant} cost: W1`,
    );
    return {
      rounds,
      memory: measured.first,
      auth: measured.second,
      memoryMedian: measured.firstMedian,
      authMedian: measured.secondMedian,
      costMicros: round1(measured.secondMedian - measured.firstMedian),
    };
  } finally {
    await generator.close();
    await Promise.all([memory.stop(), withFeature.stop()]);
  }
}

export const metricsCostNote = (c: AuthCost): string =>
  `metrics cost: ${c.costMicros >= 0 ? '+' : ''}${c.costMicros} µs CPU per W1 task (target at most +${FEATURE_COST_TARGET_MICROS.metrics}): median of ${c.rounds} interleaved ` +
  `rounds each, ours metrics ${c.authMedian} µs [${c.auth.join(', ')}] vs ours mem (metrics off) ${c.memoryMedian} µs [${c.memory.join(', ')}], both servers up, order alternating; nothing scrapes during the run.`;

export const authCostNote = (c: AuthCost): string =>
  `bearer auth cost: ${c.costMicros >= 0 ? '+' : ''}${c.costMicros} µs CPU per W1 task (target at most +${FEATURE_COST_TARGET_MICROS.auth}): median of ${c.rounds} interleaved ` +
  `rounds each, ours auth ${c.authMedian} µs [${c.auth.join(', ')}] vs ours mem ${c.memoryMedian} µs [${c.memory.join(', ')}], both servers up, order alternating.`;
