/**
 * What the node:http front end costs over native uWS, measured interleaved (issue 36): ours on
 * uWS, ours on node:http and the 0.3.14 peer all up, and each of W1, W2 and W4 run on them in
 * rounds whose order turns (bench/lib/interleave.ts). W1 adds ours mounted in Express, which
 * must cost only what Express adds. The targets: node:http at most 1.10x uWS and 0.6x the peer
 * in CPU per unit.
 */
import type { ServerBuild } from './build.js';
import { startGenerator, startServerProcess, type ServerProcess } from './children.js';
import { interleaveAll, median, round1, roundWindow } from './interleave.js';
import type { BenchOptions } from './options.js';
import type { ServerKind, WorkloadId } from './types.js';
import { requests, WORKLOADS } from './workloads.js';

export const FRONT_END_WORKLOADS = ['W1', 'W2', 'W4'] as const satisfies readonly WorkloadId[];
export type FrontEndWorkload = (typeof FRONT_END_WORKLOADS)[number];

/**
 * Rounds of the set (three with `--quick`). The gap it measures is a few percent, and on a
 * shared two-core machine a whole window of one server now and then runs half again as slow:
 * with five rounds, two such windows of one server and none of another moved a median by a
 * third. Nine keep the median among windows of the machine's usual speed.
 */
export const FRONT_END_ROUNDS = { full: 9, quick: 3 } as const;

/** The node front end's CPU per unit over uWS's, and over the peer's, at most. */
export const NODE_TARGETS = { overUws: 1.1, overPeer: 0.6 } as const;

export interface FrontEndRatio {
  workload: FrontEndWorkload;
  rounds: number;
  /** CPU µs per unit in each round, and the median, per server kind measured. */
  servers: Partial<Record<ServerKind, { samples: number[]; median: number }>>;
  /** Of the medians. */
  nodeOverUws: number;
  /** The median of each round's own node over uWS: the two windows of a round are minutes closer. */
  nodeOverUwsByRound: number;
  nodeOverPeer: number;
  /** With node:http's own server up (`node-http`): its CPU over uWS's, and over the peer's. */
  nodeHttpOverUws?: number;
  nodeHttpOverPeer?: number;
  /**
   * W1 with the Express kind up: Express-mounted over node:http's own server (what Express adds;
   * over the node front end when node-http was not measured), and over the peer.
   */
  expressOverNode?: number;
  expressOverPeer?: number;
}

const REQUEST = { W1: requests.rpcSend, W2: requests.restSend, W4: requests.rpcStream } as const;

const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;

/** The median over rounds of `top[i] / bottom[i]` (NaN without both). */
const roundRatios = (top: readonly number[] | undefined, bottom: readonly number[] | undefined): number =>
  top && bottom ? median(top.map((t, i) => t / (bottom[i] as number))) : Number.NaN;

/** `express`: W1 also runs on ours mounted in Express; `nodeHttp`: node:http's own server runs too. */
export async function measureFrontEndRatios(
  build: ServerBuild,
  opts: BenchOptions,
  rounds: number,
  sqlitePath: string,
  workloads: readonly FrontEndWorkload[],
  express: boolean,
  nodeHttp: boolean,
): Promise<FrontEndRatio[]> {
  const kinds: ServerKind[] = [
    'node',
    'memory',
    'peer',
    ...(nodeHttp ? (['node-http'] as const) : []),
    ...(express && workloads.includes('W1') ? (['express'] as const) : []),
  ];
  const started: ServerProcess[] = [];
  const generator = startGenerator();
  const out: FrontEndRatio[] = [];
  try {
    for (const kind of kinds) started.push(await startServerProcess(kind, sqlitePath, { build }));
    for (const workload of workloads) {
      const servers = workload === 'W1' ? started : started.filter((s) => s.kind !== 'express');
      const sampled = await interleaveAll(
        generator,
        servers,
        rounds,
        roundWindow(REQUEST[workload], WORKLOADS[workload].check, opts),
        `node front end interleaved ${workload}`,
      );
      const byKind: FrontEndRatio['servers'] = {};
      servers.forEach((s, i) => {
        byKind[s.kind] = sampled[i];
      });
      const med = (kind: ServerKind): number => byKind[kind]?.median ?? Number.NaN;
      out.push({
        workload,
        rounds,
        servers: byKind,
        nodeOverUws: ratio(med('node'), med('memory')),
        nodeOverUwsByRound: ratio(roundRatios(byKind.node?.samples, byKind.memory?.samples), 1),
        nodeOverPeer: ratio(med('node'), med('peer')),
        ...(byKind['node-http']
          ? { nodeHttpOverUws: ratio(med('node-http'), med('memory')), nodeHttpOverPeer: ratio(med('node-http'), med('peer')) }
          : {}),
        ...(byKind.express
          ? {
              expressOverNode: ratio(med('express'), med(byKind['node-http'] ? 'node-http' : 'node')),
              expressOverPeer: ratio(med('express'), med('peer')),
            }
          : {}),
      });
    }
  } finally {
    await generator.close();
    await Promise.all(started.map((s) => s.stop()));
  }
  return out;
}

const LABEL: Partial<Record<ServerKind, string>> = {
  node: 'ours node',
  'node-http': 'ours node-http',
  memory: 'ours mem (uWS)',
  peer: 'peer',
  express: 'ours express',
};

/** The note under the table: every round of every server. */
export const frontEndNote = (r: FrontEndRatio): string =>
  `interleaved front ends ${r.workload} (${WORKLOADS[r.workload].title}), CPU µs per ${WORKLOADS[r.workload].unit}, medians of ${r.rounds} rounds ` +
  `whose order turns: ${Object.entries(r.servers)
    .map(([kind, s]) => `${LABEL[kind as ServerKind] ?? kind} ${round1(s.median)} [${s.samples.join(', ')}]`)
    .join(
      '; ',
    )}; node over uWS ${r.nodeOverUws.toFixed(2)}x (median of the rounds' own ratios ${r.nodeOverUwsByRound.toFixed(2)}x), over peer ${r.nodeOverPeer.toFixed(2)}x` +
  (r.nodeHttpOverUws === undefined ? '' : `; node-http over uWS ${r.nodeHttpOverUws.toFixed(2)}x`) +
  (r.expressOverNode === undefined
    ? ''
    : `; Express-mounted over ${r.nodeHttpOverUws === undefined ? 'node' : 'node-http'} ${r.expressOverNode.toFixed(2)}x`);
