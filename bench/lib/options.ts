/**
 * Command-line options of `npm run bench`. Every default keeps the whole suite under ten
 * minutes on two cores; `--quick` is the one-minute smoke run.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_SERVER_KINDS, DEFAULT_WORKLOAD_IDS, SERVER_KINDS, WORKLOAD_IDS, type ServerKind, type WorkloadId } from './types.js';

export interface BenchOptions {
  quick: boolean;
  /** Not measured: JIT, connections and caches warm up. */
  warmupMs: number;
  /** The measured window of every time-bound workload. */
  durationMs: number;
  /** Requests in flight at once (64 is where the reference numbers were taken). */
  connections: number;
  /** W5: completed tasks the memory workload drives (W8 then lists over at least as many). */
  tasks: number;
  /** W5: the fill stops here even if `tasks` were not all completed. */
  fillCapMs: number;
  /** W9: tasks left paused in `input-required`. */
  pausedTasks: number;
  /** SOAK: how long the mixed load runs. */
  soakMs: number;
  servers: ServerKind[];
  workloads: WorkloadId[];
  /** Where the JSON report goes; undefined = nowhere. */
  outDir: string | undefined;
  /** Runs the servers under --cpu-prof and summarizes this workload's window. */
  profile: WorkloadId | undefined;
}

export const USAGE = `usage: npm run bench -- [options]
  --quick               one-minute smoke run (1 s windows, 3,000 tasks for W5)
  --duration <s>        measured window per workload (default 8, quick 1)
  --warmup <s>          unmeasured warm-up before each window (default 2, quick 0.25)
  --connections <n>     concurrent requests (default 64)
  --tasks <n>           tasks for W5 (and the store W8 lists) (default 100000, quick 3000)
  --paused <n>          tasks W9 leaves paused in input-required (default 5000, quick 1000)
  --soak-minutes <m>    how long SOAK runs its mixed load (default 2, quick 0.5)
  --servers <list>      of ${SERVER_KINDS.join(',')} (default all but plain; ours-memory, ours-plain, ours-node, ours-node-http, ours-express, ours-auth, ours-metrics, ours-sqlite, ours-cluster also name ours;
                        plain: the plain memory store (store memory-plain), W1, W5 and W9 only;
                        cluster: two replicas on PostgreSQL 127.0.0.1:5432 and Redis 127.0.0.1:6379;
                        peer: @a2a-js/sdk 0.3.14; peer-v1: @a2a-js/sdk 1.3.0 in native v1.0, the v1.0 workloads' peer)
  --workloads <list>    of ${WORKLOAD_IDS.join(',')} (default all but SOAK, which runs only when named:
                        32 clients of mixed load on ours for --soak-minutes, RSS every 10 s;
                        W1v1, W2v1, W4v1: W1, W2, W4 in A2A v1.0, on ours mem and peer-v1)
  --profile <workload>  run it with the server under --cpu-prof and print where the CPU went
                        (servers default to memory, workloads to that one; no ceiling runs)
  --out <dir>           where the JSON report goes (default bench/results)
  --no-write            print the table only`;

/** The names the table prints for our servers, accepted on the command line too. */
const SERVER_ALIASES: Readonly<Record<string, ServerKind>> = {
  'ours-memory': 'memory',
  'ours-mem': 'memory',
  'ours-plain': 'plain',
  'ours-node': 'node',
  'ours-node-http': 'node-http',
  'ours-express': 'express',
  'ours-auth': 'auth',
  'ours-metrics': 'metrics',
  'ours-sqlite': 'sqlite',
  'ours-cluster': 'cluster',
};

export class OptionsError extends Error {}

const positive = (name: string, raw: string | undefined, fallback: number, integer = false): number => {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new OptionsError(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got "${raw}"`);
  }
  return value;
};

function listOf<T extends string>(
  name: string,
  raw: string | undefined,
  allowed: readonly T[],
  aliases: Readonly<Record<string, T>> = {},
  defaults: readonly T[] = allowed,
): T[] {
  if (raw === undefined) return [...defaults];
  const picked = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => aliases[s] ?? s);
  const wrong = picked.filter((p) => !(allowed as readonly string[]).includes(p));
  if (wrong.length > 0 || picked.length === 0)
    throw new OptionsError(`--${name}: unknown "${wrong.join(',')}" (allowed: ${allowed.join(',')})`);
  // In the canonical order, whatever order they were given in.
  return allowed.filter((a) => picked.includes(a));
}

/** Parses argv (without node and script); throws OptionsError with a message for the user. */
export function parseOptions(argv: string[], defaultOutDir: string): BenchOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: false,
      options: {
        quick: { type: 'boolean', default: false },
        duration: { type: 'string' },
        warmup: { type: 'string' },
        connections: { type: 'string' },
        tasks: { type: 'string' },
        paused: { type: 'string' },
        'soak-minutes': { type: 'string' },
        servers: { type: 'string' },
        workloads: { type: 'string' },
        out: { type: 'string' },
        profile: { type: 'string' },
        'no-write': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    throw new OptionsError(err instanceof Error ? err.message : String(err));
  }
  const v = parsed.values;
  if (v.help) return 'help';
  const quick = v.quick === true;
  const profile = v.profile === undefined ? undefined : listOf('profile', v.profile, WORKLOAD_IDS);
  if (profile !== undefined && profile.length !== 1) throw new OptionsError(`--profile takes one workload, got "${v.profile}"`);
  const profiled = profile?.[0];
  // A profile run defaults to our memory server and that one workload; --workloads may add the
  // ones it depends on (W8 lists the store W5 fills), and the profiled one always runs.
  const workloads =
    v.workloads === undefined && profiled === undefined
      ? [...DEFAULT_WORKLOAD_IDS]
      : listOf('workloads', v.workloads ?? profiled, WORKLOAD_IDS);
  return {
    quick,
    warmupMs: positive('warmup', v.warmup, quick ? 0.25 : 2) * 1000,
    durationMs: positive('duration', v.duration, quick ? 1 : 8) * 1000,
    connections: positive('connections', v.connections, 64, true),
    tasks: positive('tasks', v.tasks, quick ? 3_000 : 100_000, true),
    fillCapMs: quick ? 15_000 : 120_000,
    pausedTasks: positive('paused', v.paused, quick ? 1_000 : 5_000, true),
    soakMs: positive('soak-minutes', v['soak-minutes'], quick ? 0.5 : 2) * 60_000,
    servers: listOf('servers', v.servers ?? (profiled ? 'memory' : undefined), SERVER_KINDS, SERVER_ALIASES, DEFAULT_SERVER_KINDS),
    workloads:
      profiled === undefined || workloads.includes(profiled)
        ? workloads
        : WORKLOAD_IDS.filter((id) => id === profiled || workloads.includes(id)),
    outDir: v['no-write'] ? undefined : (v.out ?? defaultOutDir),
    profile: profiled,
  };
}
