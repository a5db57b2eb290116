/**
 * Issue 19's CPU ratios, measured interleaved: the memory server and a peer both up, and each
 * of W1, W2 and W4 (with the 0.3.14 peer) or W1v1, W2v1 and W4v1 (with the 1.3.0 peer) run on
 * them in alternating rounds (bench/lib/interleave.ts). The main table's two rows of a workload
 * were taken minutes apart, so on a machine whose speed drifts they also compare two moments;
 * this ratio does not. Shorter windows than the table's keep it to about a minute and a half per
 * peer.
 */
import type { ServerBuild } from './build.js';
import { startGenerator, startServerProcess } from './children.js';
import { interleave, round1, roundWindow, type Interleaved } from './interleave.js';
import type { BenchOptions } from './options.js';
import { SERVER_LABEL } from './report.js';
import type { ServerKind, WorkloadId } from './types.js';
import { requests, V1_REQUESTS, WORKLOADS } from './workloads.js';

/** The workloads with a CPU target over their peer (report.ts holds the targets). */
export const PAIRED_WORKLOADS = ['W1', 'W2', 'W4', 'W1v1', 'W2v1', 'W4v1'] as const satisfies readonly WorkloadId[];
export type PairedWorkload = (typeof PAIRED_WORKLOADS)[number];

export interface PairedRatio extends Interleaved {
  workload: PairedWorkload;
  /** The server kind ours was measured against. */
  peer: ServerKind;
  /** Ours (first) over the peer (second), of the medians. */
  ratio: number;
}

const REQUEST = { W1: requests.rpcSend, W2: requests.restSend, W4: requests.rpcStream, ...V1_REQUESTS } as const;

export async function measurePairedRatios(
  build: ServerBuild,
  opts: BenchOptions,
  rounds: number,
  sqlitePath: string,
  workloads: readonly PairedWorkload[],
  peerKind: ServerKind = 'peer',
): Promise<PairedRatio[]> {
  const ours = await startServerProcess('memory', sqlitePath, { build });
  const peer = await startServerProcess(peerKind, sqlitePath).catch(async (err: unknown) => {
    await ours.stop();
    throw err;
  });
  const generator = startGenerator();
  const out: PairedRatio[] = [];
  try {
    for (const workload of workloads) {
      const measured = await interleave(
        generator,
        [ours, peer],
        rounds,
        roundWindow(REQUEST[workload], WORKLOADS[workload].check, opts),
        `interleaved ${workload}`,
      );
      out.push({ workload, peer: peerKind, ...measured, ratio: Math.round((measured.firstMedian / measured.secondMedian) * 100) / 100 });
    }
  } finally {
    await generator.close();
    await Promise.all([ours.stop(), peer.stop()]);
  }
  return out;
}

/** The v0.3 peer is "the peer" in the notes, as it has always been; any other is named. */
const peerName = (kind: ServerKind): string => (kind === 'peer' ? 'peer' : SERVER_LABEL[kind]);

export const pairedNote = (p: PairedRatio): string =>
  `interleaved ${p.workload} (${WORKLOADS[p.workload].title}): ours mem ${p.firstMedian} µs [${p.first.join(', ')}] vs ${peerName(p.peer)} ${p.secondMedian} µs ` +
  `[${p.second.join(', ')}] CPU per ${WORKLOADS[p.workload].unit}, medians of ${p.rounds} alternating rounds each with both servers up = ${round1(p.ratio * 100) / 100}x`;
