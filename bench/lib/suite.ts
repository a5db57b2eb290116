/**
 * The orchestrator: for each server in turn, start it in its own process, start a load
 * generator in another, run every workload that applies (in RUN_ORDER), stop both, and turn
 * what was measured into rows. Nothing runs concurrently with a measurement but the server and
 * the generator.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { actorFloorNote, measureActorFloor, type ActorFloor } from './actor-floor.js';
import { BUILD_ROOT, buildServer, type ServerBuild } from './build.js';
import { BackendUnavailable, CLUSTER_POSTGRES_URL, CLUSTER_REDIS_URL, CLUSTER_REPLICAS } from './cluster.js';
import {
  needsBuild,
  ROOT,
  startGenerator,
  startServerProcess,
  type GeneratorProcess,
  type Measured,
  type ServerProcess,
} from './children.js';
import type { BenchOptions } from './options.js';
import { answerError, createTask, deliversPush, storedTasks } from './probe.js';
import { summarizeProfile, type ProfileSummary } from './profile.js';
import { machineInfo, rssBytes, type MachineInfo } from './proc.js';
import { SERVER_LABEL } from './report.js';
import type { LoadSpec, RequestTemplate, ServerKind, WorkloadId } from './types.js';
import { FRESH_PROCESS, headersFor, RUN_ORDER, V1_REQUESTS, WORKLOADS, requests } from './workloads.js';
import { authCostNote, measureAuthCost, metricsCostNote } from './auth-cost.js';
import { measurePairedRatios, PAIRED_WORKLOADS, pairedNote, type PairedWorkload } from './paired.js';
import { FRONT_END_ROUNDS, FRONT_END_WORKLOADS, frontEndNote, measureFrontEndRatios } from './front-end-ratios.js';

export type Outcome = 'measured' | 'skipped' | 'failed' | 'not-yet-measured';

export interface Row {
  workload: WorkloadId;
  title: string;
  server: ServerKind;
  outcome: Outcome;
  /** Why a row was skipped, failed or is not yet measured. */
  reason?: string;
  /** What one unit is: task, req, stream, delivery. */
  unit: string;
  /** Units per second over the window. */
  rps?: number;
  p50Ms?: number;
  p99Ms?: number;
  errors?: number;
  errorSamples?: string[];
  /** Server CPU (user + system) per unit, microseconds. */
  cpuMicrosPerUnit?: number;
  /** Server RSS at the end of the window (W5: after the settle), MB. */
  rssMb?: number;
  /**
   * The cluster: the CPU of PostgreSQL's and Redis's processes (all of them, whoever else uses
   * them) per unit, microseconds; not in cpuMicrosPerUnit, which is the replicas' sum.
   */
  backendCpuMicrosPerUnit?: number;
  /** Redis's part of backendCpuMicrosPerUnit. */
  redisCpuMicrosPerUnit?: number;
  requests?: number;
  windowMs?: number;
  generatorCpuPercent?: number;
  /** W4. */
  firstEvent?: { p50Ms: number; p99Ms: number };
  /** W5. */
  memory?: { tasks: number; rssBeforeMb: number; rssAfterMb: number; rssGrowthMbPer1k: number; heapGrowthMbPer1k: number };
  /** SOAK: RSS over time under the mixed load (no forced GC). */
  soak?: SoakMemory;
  /** W7: the sends behind the deliveries. */
  push?: { tasks: number; deliveriesPerTask: number };
  /** W8: tasks in the store, as tasks/list counts them. */
  storeTasks?: number;
  /** Ours over the peer: req/s (W5: RSS growth per 1,000 tasks, lower is better). */
  vsPeer?: number;
  /** Ours over the peer: server CPU per unit. */
  cpuVsPeer?: number;
  /** The memory rows of W1, W2, W4 and their v1.0 twins: the same ratio measured in interleaved rounds (bench/lib/paired.ts). */
  pairedCpuVsPeer?: number;
  /**
   * The node rows of W1, W2, W4 (and the Express W1 row): CPU per unit over ours on uWS (Express:
   * over ours node) and over the peer, in interleaved rounds (bench/lib/front-end-ratios.ts).
   */
  frontEnd?: { overUws?: number; overNode?: number; overPeer: number };
  /** The `auth` W1 row: CPU µs per task bearer auth adds (bench/lib/auth-cost.ts, interleaved rounds). */
  authCostMicros?: number;
  /** The `metrics` W1 row: CPU µs per task metrics add (the same interleaved measurement). */
  metricsCostMicros?: number;
  /** req/s over the raw-uWS ceiling for the same method. */
  ofCeiling?: number;
}

export interface SoakMemory {
  /** Seconds since the load began, and the server's RSS then, MB (heap: V8's heap used and committed, external: off-heap buffers). */
  samples: SoakSample[];
  peakMb: number;
  /** The median of the last third of the samples. */
  settledMb: number;
  /** Peak over settled (target: at most 1.5). */
  peakOverSettled: number;
}

export interface SoakSample {
  atS: number;
  rssMb: number;
  heapUsedMb?: number;
  heapTotalMb?: number;
  externalMb?: number;
}

/** RSS is read this often during the soak. */
const SOAK_SAMPLE_MS = 10_000;

/** Peak and settled figures of an RSS curve. */
export function soakMemory(samples: SoakSample[]): SoakMemory {
  const peakMb = Math.max(0, ...samples.map((s) => s.rssMb));
  const tail = samples
    .slice(samples.length - Math.max(1, Math.floor(samples.length / 3)))
    .map((s) => s.rssMb)
    .sort((a, b) => a - b);
  const settledMb = tail.length === 0 ? 0 : ((tail[(tail.length - 1) >> 1] as number) + (tail[tail.length >> 1] as number)) / 2;
  return { samples, peakMb, settledMb: round(settledMb), peakOverSettled: settledMb > 0 ? round(peakMb / settledMb, 2) : 0 };
}

export interface BenchReport {
  schema: 'a2actor-bench/1';
  startedAt: string;
  elapsedSeconds: number;
  machine: MachineInfo;
  options: Omit<BenchOptions, 'outDir'>;
  /** What each server kind was in this run, and the command line it ran with. */
  servers: Partial<Record<ServerKind, string>>;
  /** The tsc build our servers ran from, when one did. */
  build?: { dir: string; seconds: number };
  rows: Row[];
  /** `--profile` runs: one per profiled server. */
  profiles?: ProfileSummary[];
  /** The XState actor of one task alone (bench/micro/task-actor.ts), beside our W1. */
  actorFloor?: ActorFloor;
  notes: string[];
}

/** Said under every table: the servers do not all run the same way, and why that is fair. */
const PROCESSES_NOTE =
  'Processes: ours runs the tsc build (bench/.build/) under plain node, as production runs dist/; the peer and raw uWS run ' +
  "their thin entry files through tsx over precompiled code (@a2a-js/sdk's dist/, uWS's native addon); the load generator runs through tsx.";

/** Said under a table with cluster rows: what "ours 2×pg" is and how its figures add up. */
const CLUSTER_NOTE =
  `ours 2×pg: ${CLUSTER_REPLICAS} replicas of ours (a process each, the same build) on one PostgreSQL (${CLUSTER_POSTGRES_URL}, a fresh schema per run, ` +
  `dropped after) and one Redis (${CLUSTER_REDIS_URL}), all on this machine's cores with the generator; the generator deals its connections ` +
  `round-robin over the replicas, so unit/s is the service's. CPU µs/unit and RSS MB are the sums over the replica processes; ` +
  "the note adds PostgreSQL's and Redis's own CPU per unit (all their processes, anyone else's use of them included).";

const MB = 1024 * 1024;
const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** W7's batch: a tenth of W5's tasks, at least 100. */
export const pushBatch = (opts: BenchOptions): number => Math.max(100, Math.round(opts.tasks / 10));

/** Workloads that create one task per successful request (they fill the store W8 lists). */
const CREATES_TASKS: ReadonlySet<WorkloadId> = new Set(['W1', 'W2', 'W4', 'W1v1', 'W2v1', 'W4v1', 'W5', 'W7', 'W9']);
/** The soak's clients (issue 19's figure), whatever --connections says. */
const SOAK_CONNECTIONS = 32;

function rowOf(id: WorkloadId, kind: ServerKind, m: Measured, unitCount = m.result.requests): Row {
  const w = WORKLOADS[id];
  const r = m.result;
  const perSecond = (unitCount / r.windowMs) * 1000;
  return {
    workload: id,
    title: w.title,
    server: kind,
    outcome: 'measured',
    unit: w.unit,
    rps: Math.round(perSecond),
    p50Ms: r.latencyMs.p50,
    p99Ms: r.latencyMs.p99,
    errors: r.errors,
    ...(r.errorSamples.length > 0 ? { errorSamples: r.errorSamples } : {}),
    ...(unitCount > 0 ? { cpuMicrosPerUnit: round(m.serverCpuMicros / unitCount) } : {}),
    ...(unitCount > 0 && m.backendCpuMicros !== undefined ? { backendCpuMicrosPerUnit: round(m.backendCpuMicros / unitCount) } : {}),
    ...(unitCount > 0 && m.redisCpuMicros !== undefined ? { redisCpuMicrosPerUnit: round(m.redisCpuMicros / unitCount) } : {}),
    rssMb: round(m.serverRssBytes / MB),
    requests: r.requests,
    windowMs: r.windowMs,
    generatorCpuPercent: r.generatorCpuPercent,
    ...(r.firstEventMs ? { firstEvent: { p50Ms: r.firstEventMs.p50, p99Ms: r.firstEventMs.p99 } } : {}),
  };
}

const unmeasured = (id: WorkloadId, kind: ServerKind, outcome: Outcome, reason: string): Row => ({
  workload: id,
  title: WORKLOADS[id].title,
  server: kind,
  outcome,
  reason,
  unit: WORKLOADS[id].unit,
});

interface ServerRun {
  server: ServerProcess;
  generator: GeneratorProcess;
  tasksCreated: number;
  /** Each workload's last measured window, for the profile summary. */
  windows: Partial<Record<WorkloadId, Measured['window']>>;
}

async function runWorkload(id: WorkloadId, run: ServerRun, opts: BenchOptions, log: (line: string) => void): Promise<Row> {
  const { server } = run;
  const w = WORKLOADS[id];
  const spec = (request: RequestTemplate, extra: Partial<LoadSpec> = {}): LoadSpec => ({
    origins: server.urls,
    request,
    check: w.check,
    connections: opts.connections,
    warmupMs: opts.warmupMs,
    durationMs: opts.durationMs,
    ...headersFor(server.kind),
    ...extra,
  });
  const measure = async (s: LoadSpec): Promise<Measured> => {
    const m = await run.generator.run(s, server);
    if (CREATES_TASKS.has(id)) run.tasksCreated += m.result.completedTotal;
    run.windows[id] = m.window;
    return m;
  };

  switch (id) {
    case 'C1':
      return rowOf(id, server.kind, await measure(spec(requests.rpcSend())));
    case 'C6':
      return rowOf(id, server.kind, await measure(spec(requests.card())));
    case 'W1':
      return rowOf(id, server.kind, await measure(spec(requests.rpcSend())));
    case 'W2':
      return rowOf(id, server.kind, await measure(spec(requests.restSend())));
    case 'W3': {
      const taskId = await createTask(server.url);
      run.tasksCreated++;
      return rowOf(id, server.kind, await measure(spec(requests.rpcGet(taskId))));
    }
    case 'W4':
      return rowOf(id, server.kind, await measure(spec(requests.rpcStream())));
    case 'W6':
      return rowOf(id, server.kind, await measure(spec(requests.card())));
    case 'W1v1':
    case 'W2v1':
    case 'W4v1': {
      const request = V1_REQUESTS[id]();
      // Timed only where the server answers v1.0: until ours does, its rows say so (with the
      // answer it gave) instead of timing a window of errors. The peer must answer.
      const refused = await answerError(server.url, request, w.check, headersFor(server.kind).headers);
      if (refused !== undefined) {
        if (!OURS_KINDS.has(server.kind)) throw new Error(`one v1.0 request: ${refused}`);
        return unmeasured(id, server.kind, 'not-yet-measured', `not yet measured: this build does not answer v1.0 (${refused})`);
      }
      run.tasksCreated++;
      return rowOf(id, server.kind, await measure(spec(request)));
    }
    case 'W7': {
      // Timed only where the server delivers at all: push delivery is still being built, and
      // until it lands this row says so instead of printing a zero.
      if (!(await deliversPush(server.url))) {
        return unmeasured(id, server.kind, 'not-yet-measured', 'not yet measured: no webhook delivery in this build');
      }
      run.tasksCreated++;
      // A fixed batch, timed until its last webhook arrived: the server's delivery rate, backlog
      // included, and nothing left queued to disturb the next workload.
      const batch = pushBatch(opts);
      log(`  ${server.kind} W7: ${batch.toLocaleString('en-US')} tasks with a webhook each`);
      const m = await measure(
        spec(requests.rpcSendWithPush(), { pushReceiver: true, totalRequests: batch, durationMs: opts.fillCapMs, warmupMs: 0 }),
      );
      const row = rowOf(id, server.kind, m, m.result.deliveries ?? 0);
      const tasks = m.result.completedTotal;
      return {
        ...row,
        unit: 'delivery',
        push: {
          tasks,
          deliveriesPerTask: tasks > 0 ? round((m.result.deliveriesTotal ?? 0) / tasks, 2) : 0,
        },
      };
    }
    case 'W5':
    case 'W9': {
      const [count, request, what] =
        id === 'W5' ? [opts.tasks, requests.rpcSend(), 'tasks'] : [opts.pausedTasks, requests.rpcAsk(), 'tasks to pause'];
      if (id === 'W9') {
        // A few thousand tasks are too few to hide what a fresh process spends once (compiled
        // code, sockets, the first chunks of every table): a fifth as many paused first, not
        // counted, so the growth read is what each further paused task holds.
        const warmup = Math.max(200, Math.round(count / 5));
        log(`  ${server.kind} W9: warming up with ${warmup.toLocaleString('en-US')} paused tasks (not counted)`);
        await run.generator.run(spec(request, { totalRequests: warmup, durationMs: opts.fillCapMs, warmupMs: 0 }), server);
      }
      const before = await server.settle();
      log(`  ${server.kind} ${id}: driving ${count.toLocaleString('en-US')} ${what} (at most ${opts.fillCapMs / 1000} s)`);
      const m = await measure(spec(request, { totalRequests: count, durationMs: opts.fillCapMs, warmupMs: 0 }));
      const after = await server.settle();
      const tasks = m.result.requests;
      const per1k = (bytes: number) => (tasks > 0 ? round((bytes / MB / tasks) * 1000, 2) : 0);
      const row = rowOf(id, server.kind, m);
      return {
        ...row,
        rssMb: round(after.rssBytes / MB),
        memory: {
          tasks,
          rssBeforeMb: round(before.rssBytes / MB),
          rssAfterMb: round(after.rssBytes / MB),
          rssGrowthMbPer1k: per1k(after.rssBytes - before.rssBytes),
          heapGrowthMbPer1k: per1k(after.heapUsedBytes - before.heapUsedBytes),
        },
      };
    }
    case 'SOAK': {
      const started = Date.now();
      const samples: SoakSample[] = [];
      const sample = async () => {
        try {
          const atS = Math.round((Date.now() - started) / 1000);
          const rssMb = round(server.pids.reduce((sum, pid) => sum + rssBytes(pid), 0) / MB);
          const usage = server.pids.length === 1 ? await server.memory() : undefined;
          const heap = usage && {
            heapUsedMb: round(usage.heapUsed / MB),
            heapTotalMb: round(usage.heapTotal / MB),
            externalMb: round(usage.external / MB),
          };
          samples.push({ atS, rssMb, ...heap });
          log(
            `  ${server.kind} SOAK: ${atS} s, RSS ${rssMb} MB${heap ? ` (heap ${heap.heapUsedMb} of ${heap.heapTotalMb}, external ${heap.externalMb})` : ''}`,
          );
        } catch {
          // The server exited: the generator's errors say why.
        }
      };
      await sample();
      const sampler = setInterval(() => void sample(), SOAK_SAMPLE_MS);
      let m: Measured;
      try {
        m = await measure(spec(requests.rpcSend(), { mix: 'soak', connections: SOAK_CONNECTIONS, warmupMs: 0, durationMs: opts.soakMs }));
      } finally {
        clearInterval(sampler);
      }
      await sample();
      return { ...rowOf(id, server.kind, m), soak: soakMemory(samples) };
    }
    case 'W8': {
      const pageSize = 50;
      const stored = await storedTasks(server.url);
      if (stored < pageSize) return unmeasured(id, server.kind, 'skipped', `the store holds ${stored} tasks, fewer than a page`);
      const row = rowOf(id, server.kind, await measure(spec(requests.rpcList(pageSize), { pageSize })));
      return { ...row, storeTasks: stored };
    }
  }
}

/** Our server kinds: each is compared with the peer. */
const OURS_KINDS: ReadonlySet<ServerKind> = new Set([
  'memory',
  'plain',
  'node',
  'node-http',
  'express',
  'auth',
  'metrics',
  'sqlite',
  'cluster',
]);

/** The measured row of a workload on a server kind, if this run has one. */
const measuredRow = (rows: readonly Row[], id: WorkloadId | undefined, kind: ServerKind): Row | undefined =>
  id === undefined ? undefined : rows.find((r) => r.workload === id && r.server === kind && r.outcome === 'measured');

/** Fills in the cross-row figures: ours against the peer and against the ceiling. */
export function compare(rows: Row[]): Row[] {
  return rows.map((row) => {
    if (row.outcome !== 'measured') return row;
    const out: Row = { ...row };
    const ceiling = measuredRow(rows, WORKLOADS[row.workload].ceiling, 'raw');
    if (ceiling?.rps && row.rps !== undefined) out.ofCeiling = round(row.rps / ceiling.rps, 3);
    const peer = OURS_KINDS.has(row.server) ? measuredRow(rows, row.workload, WORKLOADS[row.workload].peer ?? 'peer') : undefined;
    if (peer) {
      if (row.workload === 'W5' || row.workload === 'W9') {
        const ours = row.memory?.rssGrowthMbPer1k;
        const theirs = peer.memory?.rssGrowthMbPer1k;
        if (ours !== undefined && theirs !== undefined && theirs > 0) out.vsPeer = round(ours / theirs, 2);
      } else if (peer.rps && row.rps !== undefined) {
        out.vsPeer = round(row.rps / peer.rps, 2);
      }
      if (peer.cpuMicrosPerUnit && row.cpuMicrosPerUnit !== undefined)
        out.cpuVsPeer = round(row.cpuMicrosPerUnit / peer.cpuMicrosPerUnit, 2);
    }
    return out;
  });
}

/** Workloads that run on `kind` in this run, in order; rows saying why the rest do not. */
function planFor(kind: ServerKind, opts: BenchOptions): { run: WorkloadId[]; skipped: Row[] } {
  const run: WorkloadId[] = [];
  const skipped: Row[] = [];
  for (const id of RUN_ORDER) {
    const w = WORKLOADS[id];
    // The ceilings run with every full run; a profile run is about one workload of ours.
    const selected = id === 'C1' || id === 'C6' ? opts.profile === undefined : opts.workloads.includes(id);
    if (!selected) continue;
    if (w.servers.includes(kind)) run.push(id);
    else if (w.skipped[kind]) skipped.push(unmeasured(id, kind, 'skipped', w.skipped[kind] ?? ''));
  }
  return { run, skipped };
}

/** The profile a server wrote when it exited; node writes it on the way out, so it may trail the exit. */
async function profileWritten(dir: string): Promise<string | undefined> {
  for (let waited = 0; waited <= 3_000; waited += 100) {
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (file) return join(dir, file);
    await sleep(100);
  }
  return undefined;
}

/**
 * Runs the suite. Our servers run from a tsc build: pass one (`buildServer()`) to share it
 * between runs, or the suite compiles its own and removes it at the end (a profile run keeps it,
 * since the profile's URLs point into it).
 */
export async function runSuite(opts: BenchOptions, log: (line: string) => void = () => {}, prebuilt?: ServerBuild): Promise<BenchReport> {
  const started = Date.now();
  const machine = machineInfo();
  const temp = mkdtempSync(join(tmpdir(), 'a2actor-bench-'));
  const rows: Row[] = [];
  const servers: Partial<Record<ServerKind, string>> = {};
  const profiles: ProfileSummary[] = [];
  const notes: string[] = [];
  let build = prebuilt;
  let profileRoot: string | undefined;
  let actorFloor: ActorFloor | undefined;
  try {
    if (build === undefined && opts.servers.some((kind) => needsBuild(kind) && planFor(kind, opts).run.length > 0)) {
      log('building our server with tsc (bench/tsconfig.build.json) ...');
      build = await buildServer();
      log(`  built in ${build.seconds} s into ${relative(ROOT, build.dir)}`);
    }
    if (opts.profile !== undefined) {
      mkdirSync(BUILD_ROOT, { recursive: true });
      profileRoot = mkdtempSync(join(BUILD_ROOT, 'profile-'));
    }
    for (const kind of opts.servers) {
      const plan = planFor(kind, opts);
      if (plan.run.length === 0) {
        rows.push(...plan.skipped);
        continue;
      }
      const profileDir = profileRoot === undefined ? undefined : join(profileRoot, kind);
      if (profileDir !== undefined) mkdirSync(profileDir);
      let server: ServerProcess;
      try {
        server = await startServerProcess(kind, join(temp, `${kind}.db`), { build, cpuProfileDir: profileDir });
      } catch (err) {
        // PostgreSQL or Redis is not running here: the cluster rows say so, the run goes on.
        if (!(err instanceof BackendUnavailable)) throw err;
        log(`${kind}: skipped: ${err.message}`);
        rows.push(...plan.run.map((id) => unmeasured(id, kind, 'skipped', err.message)), ...plan.skipped);
        continue;
      }
      servers[kind] = `${server.description}; ${server.runtime}`;
      log(`${kind}: ${server.description} at ${server.urls.join(', ')} (pid ${server.pids.join(', ')}): ${server.runtime}`);
      const run: ServerRun = { server, generator: startGenerator(), tasksCreated: 0, windows: {} };
      try {
        for (const [index, id] of plan.run.entries()) {
          if (FRESH_PROCESS.has(id) && index > 0) {
            // W5 and W9 read RSS growth: on a process that earlier workloads left with garbage and
            // heap headroom, new tasks partly fill that space and the growth reads low (or
            // negative). A fresh process of the same server (same database file) measures it.
            // The soak's curve starts from a fresh process and an empty database.
            await run.generator.close();
            await server.stop();
            const db = join(temp, id === 'SOAK' ? `${kind}-soak.db` : `${kind}.db`);
            server = await startServerProcess(kind, db, { build, cpuProfileDir: profileDir });
            run.server = server;
            run.generator = startGenerator();
            log(`  ${kind}: restarted for ${id} at ${server.urls.join(', ')} (pid ${server.pids.join(', ')})`);
          }
          let row: Row;
          try {
            row = await runWorkload(id, run, opts, log);
          } catch (err) {
            const reason = err instanceof Error ? (err.message.split('\n')[0] ?? err.message) : String(err);
            row = unmeasured(id, kind, 'failed', reason);
            // The generator may be mid-run: replace it so the next workload starts clean.
            await run.generator.close();
            run.generator = startGenerator();
          }
          rows.push(row);
          log(
            `  ${kind} ${id} ${WORKLOADS[id].title}: ${row.outcome === 'measured' ? `${row.rps} ${row.unit}/s, p99 ${row.p99Ms} ms, ${row.errors} errors, ${row.cpuMicrosPerUnit ?? '?'} µs CPU` : `${row.outcome} (${row.reason})`}`,
          );
        }
      } finally {
        await run.generator.close();
        // A polite stop: the server exits by itself, which is when node writes a CPU profile.
        await server.stop();
      }
      rows.push(...plan.skipped);
      if (profileDir !== undefined && opts.profile !== undefined && plan.run.includes(opts.profile)) {
        const path = await profileWritten(profileDir);
        if (path === undefined) {
          notes.push(`profile: ${kind} wrote no .cpuprofile into ${relative(ROOT, profileDir)} (did it exit by itself?)`);
        } else {
          profiles.push(
            summarizeProfile(path, {
              server: kind,
              workload: opts.profile,
              root: ROOT,
              buildDir: build?.dir,
              window: run.windows[opts.profile],
            }),
          );
          if (server.pids.length > 1)
            notes.push(
              `profile: ${SERVER_LABEL[kind]} is the first of its ${server.pids.length} replicas (pid ${server.pids[0]}), which served its share of the load`,
            );
          log(`  ${kind}: CPU profile ${relative(ROOT, path)}`);
        }
      }
    }
    // What auth costs, measured apart: a single pair of W1 windows cannot resolve it (auth-cost.ts).
    if (
      build !== undefined &&
      opts.profile === undefined &&
      opts.servers.includes('memory') &&
      opts.servers.includes('auth') &&
      opts.workloads.includes('W1')
    ) {
      try {
        const cost = await measureAuthCost(build, opts, opts.quick ? 2 : 4, join(temp, 'auth-cost.db'));
        log(`bearer auth cost: ${cost.costMicros} µs CPU per task (auth ${cost.auth.join(', ')}; mem ${cost.memory.join(', ')})`);
        const row = rows.find((r) => r.workload === 'W1' && r.server === 'auth' && r.outcome === 'measured');
        if (row) row.authCostMicros = cost.costMicros;
        notes.push(authCostNote(cost));
      } catch (err) {
        notes.push(err instanceof Error ? err.message : String(err));
      }
    }
    // What metrics cost, the same way (nothing scrapes: the cost is the hot path's counters).
    if (
      build !== undefined &&
      opts.profile === undefined &&
      opts.servers.includes('memory') &&
      opts.servers.includes('metrics') &&
      opts.workloads.includes('W1')
    ) {
      try {
        const cost = await measureAuthCost(build, opts, opts.quick ? 2 : 4, join(temp, 'metrics-cost.db'), 'metrics');
        log(`metrics cost: ${cost.costMicros} µs CPU per task (metrics ${cost.auth.join(', ')}; mem ${cost.memory.join(', ')})`);
        const row = rows.find((r) => r.workload === 'W1' && r.server === 'metrics' && r.outcome === 'measured');
        if (row) row.metricsCostMicros = cost.costMicros;
        notes.push(metricsCostNote(cost));
      } catch (err) {
        notes.push(err instanceof Error ? err.message : String(err));
      }
    }
    // The CPU ratios again, in interleaved rounds: the table's two rows were minutes apart. Each
    // peer's workloads in one go, where the table measured both ours and that peer.
    if (build !== undefined && opts.profile === undefined) {
      const peerOf = (id: PairedWorkload): ServerKind => WORKLOADS[id].peer ?? 'peer';
      const paired = PAIRED_WORKLOADS.filter((id) => measuredRow(rows, id, 'memory') && measuredRow(rows, id, peerOf(id)));
      for (const peer of new Set(paired.map(peerOf))) {
        try {
          const workloads = paired.filter((id) => peerOf(id) === peer);
          for (const p of await measurePairedRatios(build, opts, opts.quick ? 2 : 5, join(temp, 'paired.db'), workloads, peer)) {
            log(`interleaved ${p.workload}: ours ${p.first.join(', ')} vs ${peer} ${p.second.join(', ')} µs CPU = ${p.ratio}x`);
            const row = rows.find((r) => r.workload === p.workload && r.server === 'memory' && r.outcome === 'measured');
            if (row) row.pairedCpuVsPeer = p.ratio;
            notes.push(pairedNote(p));
          }
        } catch (err) {
          notes.push(err instanceof Error ? err.message : String(err));
        }
      }
    }
    // The node front end over uWS and over the peer, interleaved, where the table measured all three.
    if (build !== undefined && opts.profile === undefined) {
      const workloads = FRONT_END_WORKLOADS.filter((id) =>
        ['node', 'memory', 'peer'].every((kind) => measuredRow(rows, id, kind as ServerKind)),
      );
      if (workloads.length > 0) {
        try {
          const express = measuredRow(rows, 'W1', 'express') !== undefined;
          const nodeHttp = workloads.some((id) => measuredRow(rows, id, 'node-http') !== undefined);
          for (const r of await measureFrontEndRatios(
            build,
            opts,
            opts.quick ? FRONT_END_ROUNDS.quick : FRONT_END_ROUNDS.full,
            join(temp, 'front-end.db'),
            workloads,
            express,
            nodeHttp,
          )) {
            log(`interleaved front ends ${r.workload}: node over uWS ${r.nodeOverUws}x, over peer ${r.nodeOverPeer}x`);
            const node = rows.find((row) => row.workload === r.workload && row.server === 'node' && row.outcome === 'measured');
            if (node) node.frontEnd = { overUws: r.nodeOverUws, overPeer: r.nodeOverPeer };
            const plain = rows.find((row) => row.workload === r.workload && row.server === 'node-http' && row.outcome === 'measured');
            if (plain && r.nodeHttpOverUws !== undefined && r.nodeHttpOverPeer !== undefined)
              plain.frontEnd = { overUws: r.nodeHttpOverUws, overPeer: r.nodeHttpOverPeer };
            const mounted = rows.find((row) => row.workload === r.workload && row.server === 'express' && row.outcome === 'measured');
            if (mounted && r.expressOverNode !== undefined && r.expressOverPeer !== undefined)
              mounted.frontEnd = { overNode: r.expressOverNode, overPeer: r.expressOverPeer };
            notes.push(frontEndNote(r));
          }
        } catch (err) {
          notes.push(err instanceof Error ? err.message : String(err));
        }
      }
    }
    // After every server has stopped, from the same build: nothing else runs beside it.
    if (build !== undefined && opts.profile === undefined && opts.servers.includes('memory') && opts.workloads.includes('W1')) {
      try {
        actorFloor = await measureActorFloor(build, opts.quick ? 3000 : 20_000, opts.quick ? 2 : 10);
        log(`task actor floor: ${actorFloor.cpuMicrosPerTask} µs CPU per task over ${actorFloor.tasks} tasks`);
      } catch (err) {
        notes.push(err instanceof Error ? err.message : String(err));
      }
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
    // Ours ran from the build; a profile's frames point into it, so a profile run keeps it.
    if (build !== undefined && build !== prebuilt && opts.profile === undefined) build.remove();
  }
  const { outDir: _outDir, ...options } = opts;
  notes.push(...new Set(rows.map((r) => WORKLOADS[r.workload].note).filter((n): n is string => n !== undefined)));
  if (Object.keys(servers).length > 0) notes.push(PROCESSES_NOTE);
  if (servers.cluster !== undefined) notes.push(CLUSTER_NOTE);
  if (actorFloor !== undefined) {
    const cpuOf = (id: WorkloadId | undefined, kind: ServerKind) => measuredRow(rows, id, kind)?.cpuMicrosPerUnit;
    notes.push(
      actorFloorNote(actorFloor, { ours: cpuOf('W1', 'memory'), peer: cpuOf('W1', 'peer'), ceiling: cpuOf(WORKLOADS.W1.ceiling, 'raw') }),
    );
  }
  return {
    schema: 'a2actor-bench/1',
    startedAt: new Date(started).toISOString(),
    elapsedSeconds: Math.round((Date.now() - started) / 1000),
    machine,
    options,
    servers,
    ...(build === undefined ? {} : { build: { dir: relative(ROOT, build.dir), seconds: build.seconds } }),
    rows: compare(rows),
    ...(opts.profile === undefined ? {} : { profiles }),
    ...(actorFloor === undefined ? {} : { actorFloor }),
    notes,
  };
}
