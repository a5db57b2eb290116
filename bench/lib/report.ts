/**
 * The table `npm run bench` prints and the JSON file it writes. A number is never printed
 * without its workload, its peer and its machine (conventions: "Benchmarks are a product
 * feature"), so the header names the machine and the run's settings.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchReport, Row } from './suite.js';
import { NODE_TARGETS } from './front-end-ratios.js';
import { FEATURE_COST_TARGET_MICROS, type ServerKind } from './types.js';

export const SERVER_LABEL: Record<ServerKind, string> = {
  raw: 'raw uWS',
  memory: 'ours mem',
  plain: 'ours plain',
  node: 'ours node',
  'node-http': 'ours node-http',
  express: 'ours express',
  auth: 'ours auth',
  metrics: 'ours metrics',
  sqlite: 'ours sqlite',
  cluster: 'ours 2×pg',
  peer: 'peer sdk',
  'peer-v1': 'peer sdk v1',
};

const int = (n: number | undefined): string => (n === undefined ? '-' : Math.round(n).toLocaleString('en-US'));
const fixed = (n: number | undefined, digits = 1): string => (n === undefined ? '-' : n.toFixed(digits));
const times = (n: number | undefined): string => (n === undefined ? '-' : `${n.toFixed(2)}x`);
const percent = (n: number | undefined): string => (n === undefined ? '-' : `${Math.round(n * 100)}%`);

/**
 * Issue 19's targets for ours (memory store) over the peer, and for memory growth. The v1.0 rows
 * are held to their v0.3 twin's target, over the v1.0 peer.
 */
const V03_CPU_TARGETS = { W1: 0.45, W2: 0.45, W4: 0.5 };
const CPU_TARGETS: Readonly<Record<string, number>> = {
  ...V03_CPU_TARGETS,
  W1v1: V03_CPU_TARGETS.W1,
  W2v1: V03_CPU_TARGETS.W2,
  W4v1: V03_CPU_TARGETS.W4,
};
const MEMORY_TARGETS: Readonly<Record<string, number>> = { W5: 1.0, W9: 3.0 };
/** The cluster's W1 CPU (replicas plus PostgreSQL and Redis) over single-process SQLite. */
const CLUSTER_TARGET = 3;

const mark = (met: boolean): string => (met ? ' ✓' : ' ✗');

/** The target a row is held to and whether this run met it (none for rows without one). */
export function targetOf(row: Row, rows: readonly Row[]): string | undefined {
  if (row.outcome !== 'measured') return undefined;
  const cpuTarget = CPU_TARGETS[row.workload];
  if (row.server === 'memory' && cpuTarget !== undefined && row.cpuVsPeer !== undefined) {
    const paired =
      row.pairedCpuVsPeer === undefined ? '' : `; interleaved ${row.pairedCpuVsPeer.toFixed(2)}x${mark(row.pairedCpuVsPeer <= cpuTarget)}`;
    return `target CPU x peer ≤ ${cpuTarget}x${mark(row.cpuVsPeer <= cpuTarget)}${paired}`;
  }
  const f = row.frontEnd;
  if (row.server === 'node' && f?.overUws !== undefined) {
    return (
      `interleaved CPU x uWS ${f.overUws.toFixed(2)}x (target ≤ ${NODE_TARGETS.overUws}x)${mark(f.overUws <= NODE_TARGETS.overUws)}, ` +
      `x peer ${f.overPeer.toFixed(2)}x (target ≤ ${NODE_TARGETS.overPeer}x)${mark(f.overPeer <= NODE_TARGETS.overPeer)}`
    );
  }
  if (row.server === 'node-http' && f?.overUws !== undefined) {
    return `interleaved CPU x uWS ${f.overUws.toFixed(2)}x, x peer ${f.overPeer.toFixed(2)}x`;
  }
  if (row.server === 'express' && f?.overNode !== undefined) {
    const base = rows.some((r) => r.server === 'node-http' && r.frontEnd !== undefined) ? 'ours node-http' : 'ours node';
    return `interleaved CPU x ${base} ${f.overNode.toFixed(2)}x, x peer ${f.overPeer.toFixed(2)}x`;
  }
  const memoryTarget = MEMORY_TARGETS[row.workload];
  if (row.server === 'memory' && memoryTarget !== undefined && row.memory) {
    return `target ≤ ${memoryTarget.toFixed(1)} MB per 1,000${mark(row.memory.rssGrowthMbPer1k <= memoryTarget)}`;
  }
  if (row.server === 'cluster' && row.workload === 'W1' && row.cpuMicrosPerUnit !== undefined) {
    const single = rows.find((r) => r.server === 'sqlite' && r.workload === 'W1' && r.outcome === 'measured')?.cpuMicrosPerUnit;
    if (single === undefined || single <= 0) return undefined;
    const ratio = (row.cpuMicrosPerUnit + (row.backendCpuMicrosPerUnit ?? 0)) / single;
    return `replicas + PostgreSQL + Redis CPU ${ratio.toFixed(2)}x ours sqlite (target ≤ ${CLUSTER_TARGET}x)${mark(ratio <= CLUSTER_TARGET)}`;
  }
  return undefined;
}

function noteOf(row: Row, rows: readonly Row[]): string {
  if (row.outcome !== 'measured') return row.reason ?? row.outcome;
  const notes: string[] = [];
  const target = targetOf(row, rows);
  if (target) notes.push(target);
  if (row.firstEvent) notes.push(`first event p50 ${fixed(row.firstEvent.p50Ms, 2)} / p99 ${fixed(row.firstEvent.p99Ms, 2)} ms`);
  if (row.memory) {
    const m = row.memory;
    const sign = m.rssGrowthMbPer1k >= 0 ? '+' : '';
    notes.push(
      `${sign}${m.rssGrowthMbPer1k.toFixed(2)} MB RSS per 1,000 tasks over ${int(m.tasks)} (heap ${m.heapGrowthMbPer1k >= 0 ? '+' : ''}${m.heapGrowthMbPer1k.toFixed(2)})`,
    );
  }
  if (row.soak) {
    const k = row.soak;
    notes.push(
      `RSS peak ${fixed(k.peakMb)} MB, settled ${fixed(k.settledMb)} MB, peak/settled ${k.peakOverSettled.toFixed(2)} (target ≤ 1.5)${k.peakOverSettled <= 1.5 ? ' ✓' : ''}; ` +
        `curve ${k.samples.map((x) => Math.round(x.rssMb)).join(' ')} MB`,
    );
  }
  if (row.push) notes.push(`${int(row.push.tasks)} tasks, ${row.push.deliveriesPerTask.toFixed(2)} deliveries per task`);
  if (row.storeTasks !== undefined) notes.push(`over ${int(row.storeTasks)} stored tasks`);
  if (row.backendCpuMicrosPerUnit !== undefined) {
    const redis = row.redisCpuMicrosPerUnit;
    const split = redis === undefined ? '' : ` (PostgreSQL ${fixed(row.backendCpuMicrosPerUnit - redis)}, Redis ${fixed(redis)})`;
    notes.push(`PostgreSQL+Redis CPU ${fixed(row.backendCpuMicrosPerUnit)} µs/unit${split}`);
  }
  if (row.authCostMicros !== undefined) {
    notes.push(
      `auth adds ${row.authCostMicros >= 0 ? '+' : ''}${fixed(row.authCostMicros)} µs CPU/task (interleaved, see below; target ≤ +${FEATURE_COST_TARGET_MICROS.auth})${row.authCostMicros <= FEATURE_COST_TARGET_MICROS.auth ? ' ✓' : ''}`,
    );
  }
  if (row.metricsCostMicros !== undefined) {
    notes.push(
      `metrics add ${row.metricsCostMicros >= 0 ? '+' : ''}${fixed(row.metricsCostMicros)} µs CPU/task (interleaved, see below; target ≤ +${FEATURE_COST_TARGET_MICROS.metrics})${row.metricsCostMicros <= FEATURE_COST_TARGET_MICROS.metrics ? ' ✓' : ''}`,
    );
  }
  if (row.errorSamples?.length) notes.push(`first error: ${row.errorSamples[0]}`);
  // The generator shares the cores: when it is saturated, req/s understates the server.
  if ((row.generatorCpuPercent ?? 0) >= 90) notes.push(`generator at ${row.generatorCpuPercent}% CPU`);
  return notes.join('; ');
}

const COLUMNS = [
  'workload',
  'server',
  'unit/s',
  'p50 ms',
  'p99 ms',
  'errors',
  'CPU µs/unit',
  'RSS MB',
  'x peer',
  'CPU x peer',
  'of ceiling',
  'note',
] as const;
/** Numeric columns align right. */
const RIGHT = new Set<string>(['unit/s', 'p50 ms', 'p99 ms', 'errors', 'CPU µs/unit', 'RSS MB', 'x peer', 'CPU x peer', 'of ceiling']);

export function formatTable(report: BenchReport): string {
  const { machine, options } = report;
  const lines: string[] = [];
  lines.push(
    `a2actor bench: Node ${machine.node}, ${machine.cpuModel}, ${machine.cores} cores; ${options.connections} connections, ` +
      `${options.durationMs / 1000} s windows after ${options.warmupMs / 1000} s warm-up` +
      (options.quick ? ' (--quick: a smoke run, too short to compare numbers)' : ''),
  );
  for (const [kind, description] of Object.entries(report.servers))
    lines.push(`  ${SERVER_LABEL[kind as ServerKind].padEnd(12)}${description}`);
  if (report.build) lines.push(`  ${''.padEnd(12)}(ours compiled with tsc in ${report.build.seconds} s into ${report.build.dir})`);
  lines.push('');

  const cells: string[][] = [];
  let previous = '';
  for (const row of report.rows) {
    const label = `${row.workload} ${row.title}`;
    const measured = row.outcome === 'measured';
    cells.push([
      label === previous ? '' : label,
      SERVER_LABEL[row.server],
      measured ? int(row.rps) : '-',
      measured ? fixed(row.p50Ms, 2) : '-',
      measured ? fixed(row.p99Ms, 2) : '-',
      measured ? int(row.errors) : '-',
      fixed(row.cpuMicrosPerUnit),
      fixed(row.rssMb),
      times(row.vsPeer),
      times(row.cpuVsPeer),
      percent(row.ofCeiling),
      noteOf(row, report.rows),
    ]);
    previous = label;
  }
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...cells.map((r) => (r[i] ?? '').length)));
  const render = (r: readonly string[]) =>
    r
      .map((cell, i) => {
        const width = widths[i] ?? 0;
        return i === r.length - 1 ? cell : RIGHT.has(COLUMNS[i] ?? '') ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  lines.push(render(COLUMNS));
  lines.push(render(widths.map((w) => '-'.repeat(w))));
  for (const r of cells) lines.push(render(r));
  lines.push('');
  lines.push('unit/s: units (tasks, requests, streams, deliveries) completed per second; p50/p99: latency of one unit;');
  lines.push('CPU µs/unit: server user+system CPU (from /proc) per unit; x peer: ours over the peer (W5: RSS growth, lower is better);');
  lines.push(
    "CPU x peer: our CPU per unit over the peer's (lower is better); the peer of the v1.0 rows (W1v1, W2v1, W4v1) is peer sdk v1;",
  );
  lines.push("of ceiling: unit/s over the raw uWS server's req/s.");
  for (const note of report.notes) lines.push(note);
  lines.push(`elapsed ${report.elapsedSeconds} s`);
  return lines.join('\n');
}

/** Writes the report as `<dir>/<timestamp>.json` and returns the path. */
export function writeReport(report: BenchReport, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${report.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}
