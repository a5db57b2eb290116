/**
 * The processes of a run: each server in its own process (so /proc shows its CPU and RSS alone;
 * the cluster kind: one per replica) and the load generator in another. All are forked with an
 * IPC channel and die with it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerBuild } from './build.js';
import { CLUSTER_REPLICAS, openClusterBackend, type ClusterBackend } from './cluster.js';
import { cpuMicros, rssBytes } from './proc.js';
import type {
  GeneratorCommand,
  GeneratorMessage,
  LoadResult,
  LoadSpec,
  MemoryUsage,
  ServerCommand,
  ServerKind,
  ServerMessage,
} from './types.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** --expose-gc lets W5 settle the heap. */
const NODE_ARGV = ['--expose-gc'];
/**
 * The load generator, the peer and the raw server run their TypeScript entry through tsx: the
 * peer's and the raw server's entries are thin wrappers over precompiled libraries, so tsx
 * costs them nothing on the hot path. Our server runs the tsc build instead (bench/lib/build.ts).
 */
const TSX_ARGV = [...NODE_ARGV, '--import', 'tsx'];
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 8_000;

/** The last few KB a child wrote, for an error message that says why it died. */
function captureTail(child: ChildProcess): () => string {
  let tail = '';
  const keep = (d: Buffer) => {
    tail = (tail + d.toString()).slice(-4096);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => tail;
}

function forkChild(file: string, args: string[], execArgv: string[]): ChildProcess {
  return fork(file, args, { cwd: ROOT, execArgv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: process.env });
}

/** Waits for the first IPC message that `pick` accepts, or fails on exit or timeout. */
function nextMessage<M, T>(
  child: ChildProcess,
  pick: (m: M) => T | undefined,
  timeoutMs: number,
  what: string,
  tail: () => string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (m: M) => {
      const value = pick(m);
      if (value === undefined) return;
      done();
      resolve(value);
    };
    const onExit = (code: number | null, signal: string | null) => {
      done();
      reject(new Error(`${what}: process exited (${signal ?? code})\n${tail()}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${what}: no answer in ${timeoutMs} ms\n${tail()}`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

function stopChild(child: ChildProcess, polite: () => void): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    polite();
  });
}

export interface ServerProcess {
  kind: ServerKind;
  /** Every process serving: one, or one per replica. CPU and RSS are summed over them. */
  pids: readonly number[];
  /** Where the orchestrator's one-off probes go (the first replica). */
  url: string;
  /** Every replica's URL: the load generator spreads its connections over them. */
  urls: readonly string[];
  description: string;
  /** How the process runs: the node command line, relative to the project root. */
  runtime: string;
  /**
   * The processes of the databases the server runs on (PostgreSQL's and Redis's), as they are
   * now: their CPU over the window is the service's too. Absent when the server needs none.
   */
  backendPids?: () => number[];
  /** Redis's process among backendPids, if seen: its share is reported apart. */
  redisPid?: number;
  /** Forces garbage collection in the server (every replica) and reports its memory afterwards (summed). */
  settle(): Promise<{ rssBytes: number; heapUsedBytes: number }>;
  /** process.memoryUsage() of the (first) process as it stands, no GC forced. */
  memory(): Promise<MemoryUsage>;
  stop(): Promise<void>;
}

interface EntryContext {
  sqlitePath: string;
  /** The PostgreSQL schema and Redis the replicas share (cluster kinds only). */
  backend: ClusterBackend | undefined;
}

interface ServerEntry {
  /** The TypeScript entry, relative to the project root. */
  source: string;
  args: (context: EntryContext) => string[];
  /** Runs the tsc build under plain node (ours) rather than the source through tsx. */
  compiled: boolean;
  /** Processes of the same entry serving as one service; more than one share PostgreSQL and Redis. */
  replicas: number;
}

const SERVER_ENTRIES: Record<ServerKind, ServerEntry> = {
  raw: { source: 'bench/servers/raw-uws.ts', args: () => [], compiled: false, replicas: 1 },
  memory: { source: 'bench/servers/ours.ts', args: () => ['memory'], compiled: true, replicas: 1 },
  plain: { source: 'bench/servers/ours.ts', args: () => ['memory-plain'], compiled: true, replicas: 1 },
  node: { source: 'bench/servers/ours.ts', args: () => ['memory', 'memory', 'node'], compiled: true, replicas: 1 },
  'node-http': { source: 'bench/servers/ours.ts', args: () => ['memory', 'memory', 'node-http'], compiled: true, replicas: 1 },
  express: { source: 'bench/servers/ours.ts', args: () => ['memory', 'memory', 'express'], compiled: true, replicas: 1 },
  auth: { source: 'bench/servers/ours.ts', args: () => ['memory', 'memory', 'auto', 'auth'], compiled: true, replicas: 1 },
  metrics: { source: 'bench/servers/ours.ts', args: () => ['memory', 'memory', 'auto', 'metrics'], compiled: true, replicas: 1 },
  sqlite: { source: 'bench/servers/ours.ts', args: ({ sqlitePath }) => [`sqlite:${sqlitePath}`], compiled: true, replicas: 1 },
  cluster: {
    source: 'bench/servers/ours.ts',
    args: ({ backend }) => {
      if (!backend) throw new Error('cluster server: no PostgreSQL schema and Redis were prepared');
      return [backend.store, backend.events];
    },
    compiled: true,
    replicas: CLUSTER_REPLICAS,
  },
  peer: { source: 'bench/servers/peer.ts', args: () => [], compiled: false, replicas: 1 },
  'peer-v1': { source: 'bench/servers/peer-v1.ts', args: () => [], compiled: false, replicas: 1 },
};

/** Whether a server kind runs the tsc build, which must then be passed to startServerProcess. */
export const needsBuild = (kind: ServerKind): boolean => SERVER_ENTRIES[kind].compiled;

export interface ServerStartOptions {
  /** The tsc build our server runs from; required for the kinds that need it. */
  build?: ServerBuild | undefined;
  /** Runs the server under `--cpu-prof` (a cluster: its first replica), writing the profile here when it exits. */
  cpuProfileDir?: string | undefined;
}

/** One process of a server kind. */
interface Replica {
  pid: number;
  url: string;
  description: string;
  settle(): Promise<{ rssBytes: number; heapUsedBytes: number }>;
  memory(): Promise<MemoryUsage>;
  stop(): Promise<void>;
}

async function startReplica(kind: ServerKind, file: string, args: string[], execArgv: string[]): Promise<Replica> {
  const child = forkChild(file, args, execArgv);
  const tail = captureTail(child);
  const pid = child.pid;
  let ready: { url: string; description: string };
  try {
    if (pid === undefined) throw new Error(`${kind} server: fork failed`);
    ready = await nextMessage<ServerMessage, { url: string; description: string }>(
      child,
      (m) => (m.type === 'ready' ? { url: m.url, description: m.description } : undefined),
      START_TIMEOUT_MS,
      `${kind} server start`,
      tail,
    );
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const command = (c: ServerCommand) => child.send(c);
  return {
    pid: pid as number,
    ...ready,
    settle() {
      const answer = nextMessage<ServerMessage, { rssBytes: number; heapUsedBytes: number }>(
        child,
        (m) => (m.type === 'settled' ? { rssBytes: m.rssBytes, heapUsedBytes: m.heapUsedBytes } : undefined),
        10_000,
        `${kind} server settle`,
        tail,
      );
      command({ type: 'settle' });
      return answer;
    },
    memory() {
      const answer = nextMessage<ServerMessage, MemoryUsage>(
        child,
        (m) => (m.type === 'memory' ? m.usage : undefined),
        10_000,
        `${kind} server memory`,
        tail,
      );
      command({ type: 'memory' });
      return answer;
    },
    stop: () => stopChild(child, () => (child.connected ? command({ type: 'stop' }) : child.kill('SIGTERM'))),
  };
}

/**
 * Starts a server kind: one process, or (cluster) its replicas one after another on a fresh
 * PostgreSQL schema and Redis, which stop() drops after stopping them. Rejects with
 * BackendUnavailable (bench/lib/cluster.ts) when PostgreSQL or Redis is not there.
 */
export async function startServerProcess(kind: ServerKind, sqlitePath: string, options: ServerStartOptions = {}): Promise<ServerProcess> {
  const spec = SERVER_ENTRIES[kind];
  const profile = options.cpuProfileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`];
  let file: string;
  let execArgv: string[];
  if (spec.compiled) {
    if (!options.build) throw new Error(`${kind} server: runs from the tsc build, and none was given`);
    file = options.build.file(spec.source);
    execArgv = NODE_ARGV;
  } else {
    file = join(ROOT, spec.source);
    execArgv = TSX_ARGV;
  }
  const commandLine = (argv: string[]) =>
    `node ${argv.map((a) => (a.startsWith('--cpu-prof-dir=') ? '--cpu-prof-dir=…' : a)).join(' ')} ${relative(ROOT, file)}`;
  const runtime =
    spec.replicas === 1
      ? commandLine([...execArgv, ...profile])
      : `${spec.replicas} × ${commandLine(execArgv)}${profile.length > 0 ? ' (the first with --cpu-prof)' : ''}`;
  const backend = spec.replicas > 1 ? await openClusterBackend() : undefined;
  const replicas: Replica[] = [];
  try {
    const args = spec.args({ sqlitePath, backend });
    // One after another: each replica migrates the shared schema at start-up, so the first one
    // has done it before the second looks. Only the first is profiled: one profile per server.
    for (let i = 0; i < spec.replicas; i++)
      replicas.push(await startReplica(kind, file, args, i === 0 ? [...execArgv, ...profile] : execArgv));
  } catch (err) {
    await Promise.all(replicas.map((r) => r.stop()));
    await backend?.close().catch(() => {});
    throw err;
  }
  const [first] = replicas;
  if (!first) throw new Error(`${kind} server: no process to start`);
  return {
    kind,
    pids: replicas.map((r) => r.pid),
    url: first.url,
    urls: replicas.map((r) => r.url),
    description:
      replicas.length > 1
        ? `${replicas.length} replicas (${replicas.map((r) => new URL(r.url).port).join(', ')}) of ${first.description}`
        : first.description,
    runtime,
    ...(backend ? { backendPids: () => backend.processes() } : {}),
    ...(backend?.redisPid !== undefined ? { redisPid: backend.redisPid } : {}),
    async settle() {
      const each = [];
      for (const r of replicas) each.push(await r.settle());
      return { rssBytes: each.reduce((sum, m) => sum + m.rssBytes, 0), heapUsedBytes: each.reduce((sum, m) => sum + m.heapUsedBytes, 0) };
    },
    memory: () => first.memory(),
    async stop() {
      await Promise.all(replicas.map((r) => r.stop()));
      // PostgreSQL gone by now: the report still comes out, and the next run drops the schema.
      await backend?.close().catch(() => {});
    },
  };
}

export interface Measured {
  result: LoadResult;
  /** The window's edges on the monotonic clock (process.hrtime, in µs), as a CPU profile's timestamps are. */
  window: { startMicros: number; endMicros: number };
  /** Server CPU (user + system) over the generator's window, microseconds: the sum over its processes. */
  serverCpuMicros: number;
  /** Server RSS at the end of the window, bytes: the sum over its processes. */
  serverRssBytes: number;
  /** CPU of the server's databases (PostgreSQL, Redis) over the window, when it has any we can see. */
  backendCpuMicros?: number;
  /** Redis's part of backendCpuMicros. */
  redisCpuMicros?: number;
}

/** CPU of each process that is still there, by pid. */
function cpuOf(pids: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      out.set(pid, cpuMicros(pid));
    } catch {
      // Gone between the listing and the read (a backend closing): nothing to count.
    }
  }
  return out;
}

export interface GeneratorProcess {
  /** Runs one workload against `server`, sampling its CPU at the window's edges. */
  run(spec: LoadSpec, server: ServerProcess): Promise<Measured>;
  close(): Promise<void>;
}

export function startGenerator(): GeneratorProcess {
  const child = forkChild(join(ROOT, 'bench/load/generator.ts'), [], TSX_ARGV);
  const tail = captureTail(child);
  return {
    async run(spec, server) {
      let cpuAtStart = 0;
      let cpuAtEnd = 0;
      let rssAtEnd = 0;
      let backendAtStart = new Map<number, number>();
      let backendAtEnd = new Map<number, number>();
      const window = { startMicros: 0, endMicros: 0 };
      const now = () => Number(process.hrtime.bigint() / 1000n);
      const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
      // Sampled when the generator announces each edge: /proc reads take microseconds.
      const onEdge = (m: GeneratorMessage) => {
        if (m.type === 'window-start') {
          window.startMicros = now();
          cpuAtStart = sum(server.pids.map(cpuMicros));
          if (server.backendPids) backendAtStart = cpuOf(server.backendPids());
        }
        if (m.type === 'window-end') {
          window.endMicros = now();
          cpuAtEnd = sum(server.pids.map(cpuMicros));
          rssAtEnd = sum(server.pids.map(rssBytes));
          if (server.backendPids) backendAtEnd = cpuOf(server.backendPids());
        }
      };
      child.on('message', onEdge);
      try {
        const budget = (spec.totalRequests === undefined ? spec.warmupMs : 0) + spec.durationMs + 45_000;
        const answer = nextMessage<GeneratorMessage, LoadResult | Error>(
          child,
          (m) => (m.type === 'result' ? m.result : m.type === 'failed' ? new Error(`load generator: ${m.error}`) : undefined),
          budget,
          'load generator',
          tail,
        );
        const command: GeneratorCommand = { type: 'run', spec };
        child.send(command);
        const result = await answer;
        if (result instanceof Error) throw result;
        return {
          result,
          window,
          serverCpuMicros: cpuAtEnd - cpuAtStart,
          serverRssBytes: rssAtEnd,
          // A database process that started inside the window (a new connection's backend) counts
          // from zero; one that ended inside it is lost, which leaves the figure a lower bound.
          ...(backendAtEnd.size > 0
            ? { backendCpuMicros: sum([...backendAtEnd].map(([pid, cpu]) => cpu - (backendAtStart.get(pid) ?? 0))) }
            : {}),
          ...(server.redisPid !== undefined && backendAtEnd.has(server.redisPid)
            ? { redisCpuMicros: (backendAtEnd.get(server.redisPid) ?? 0) - (backendAtStart.get(server.redisPid) ?? 0) }
            : {}),
        };
      } finally {
        child.off('message', onEdge);
      }
    },
    close: () => stopChild(child, () => (child.connected ? child.disconnect() : child.kill('SIGTERM'))),
  };
}
