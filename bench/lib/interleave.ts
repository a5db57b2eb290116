/**
 * Two servers measured on one workload in alternating rounds, both up the whole time. Two
 * windows on one server differ by up to ±20% of CPU per unit on a shared two-core machine, and
 * the speed of the machine drifts over a run: windows minutes apart (as the main table's rows of
 * two servers are) compare two moments as much as two servers. Alternating who goes first and
 * taking each server's median cancels the drift and most of the noise.
 */
import type { GeneratorProcess, ServerProcess } from './children.js';
import type { BenchOptions } from './options.js';
import type { Check, LoadSpec, RequestTemplate } from './types.js';

export interface Interleaved {
  rounds: number;
  /** CPU µs per unit of each round, in run order. */
  first: number[];
  second: number[];
  firstMedian: number;
  secondMedian: number;
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
export const round1 = (n: number): number => Math.round(n * 10) / 10;

/**
 * One server's window in interleaved rounds: the table's connections, with half its warm-up and
 * window (each round measures every server once, so a round costs what one table row does).
 */
export const roundWindow =
  (request: () => RequestTemplate, check: Check, opts: BenchOptions) =>
  (server: ServerProcess): LoadSpec => ({
    origins: server.urls,
    request: request(),
    check,
    connections: opts.connections,
    warmupMs: Math.max(250, opts.warmupMs / 2),
    durationMs: Math.max(1000, opts.durationMs / 2),
  });

/**
 * `rounds` windows on each of the two servers, alternating which goes first; `specFor` gives the
 * load for a server. Throws when a window had errors or completed nothing (its CPU per unit would
 * mean nothing).
 */
export async function interleave(
  generator: GeneratorProcess,
  servers: readonly [ServerProcess, ServerProcess],
  rounds: number,
  specFor: (server: ServerProcess) => LoadSpec,
  what: string,
): Promise<Interleaved> {
  const [first, second] = await interleaveAll(generator, servers, rounds, specFor, what);
  return {
    rounds,
    first: (first as Sampled).samples,
    second: (second as Sampled).samples,
    firstMedian: (first as Sampled).median,
    secondMedian: (second as Sampled).median,
  };
}

/** One server's CPU µs per unit in each round, and their median. */
export interface Sampled {
  samples: number[];
  median: number;
}

/**
 * `rounds` windows on each server, the order turning by one each round so that each goes first
 * as often as the others; one `Sampled` per server, in the order given.
 */
export async function interleaveAll(
  generator: GeneratorProcess,
  servers: readonly ServerProcess[],
  rounds: number,
  specFor: (server: ServerProcess) => LoadSpec,
  what: string,
): Promise<Sampled[]> {
  const samples: number[][] = servers.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < servers.length; k++) {
      const which = (i + k) % servers.length;
      const server = servers[which] as ServerProcess;
      const m = await generator.run(specFor(server), server);
      if (m.result.errors > 0 || m.result.requests === 0)
        throw new Error(`${what}: ${server.kind} round ${i + 1} had ${m.result.errors} errors and ${m.result.requests} units`);
      (samples[which] as number[]).push(round1(m.serverCpuMicros / m.result.requests));
    }
  }
  return samples.map((s) => ({ samples: s, median: round1(median(s)) }));
}
