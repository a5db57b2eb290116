/**
 * The processes of a run: each server in its own process (so /proc shows its CPU and RSS alone)
 * and the load generator in another. All are forked with an IPC channel and die with it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerBuild } from './build.js';
import { cpuMicros, rssBytes } from './proc.js';
import type { GeneratorCommand, GeneratorMessage, LoadResult, LoadSpec, ServerCommand, ServerKind, ServerMessage } from './types.js';

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
function nextMessage<M, T>(child: ChildProcess, pick: (m: M) => T | undefined, timeoutMs: number, what: string, tail: () => string): Promise<T> {
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
  pid: number;
  url: string;
  description: string;
  /** How the process runs: the node command line, relative to the project root. */
  runtime: string;
  /** Forces garbage collection in the server and reports its memory afterwards. */
  settle(): Promise<{ rssBytes: number; heapUsedBytes: number }>;
  stop(): Promise<void>;
}

interface ServerEntry {
  /** The TypeScript entry, relative to the project root. */
  source: string;
  args: (sqlitePath: string) => string[];
  /** Runs the tsc build under plain node (ours) rather than the source through tsx. */
  compiled: boolean;
}

const SERVER_ENTRIES: Record<ServerKind, ServerEntry> = {
  raw: { source: 'bench/servers/raw-uws.ts', args: () => [], compiled: false },
  memory: { source: 'bench/servers/ours.ts', args: () => ['memory'], compiled: true },
  sqlite: { source: 'bench/servers/ours.ts', args: (sqlitePath) => [`sqlite:${sqlitePath}`], compiled: true },
  peer: { source: 'bench/servers/peer.ts', args: () => [], compiled: false },
};

/** Whether a server kind runs the tsc build, which must then be passed to startServerProcess. */
export const needsBuild = (kind: ServerKind): boolean => SERVER_ENTRIES[kind].compiled;

export interface ServerStartOptions {
  /** The tsc build our server runs from; required for the kinds that need it. */
  build?: ServerBuild | undefined;
  /** Runs the server under `--cpu-prof`, writing the profile here when it exits. */
  cpuProfileDir?: string | undefined;
}

export async function startServerProcess(kind: ServerKind, sqlitePath: string, options: ServerStartOptions = {}): Promise<ServerProcess> {
  const spec = SERVER_ENTRIES[kind];
  const profile = options.cpuProfileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`];
  let file: string;
  let execArgv: string[];
  if (spec.compiled) {
    if (!options.build) throw new Error(`${kind} server: runs from the tsc build, and none was given`);
    file = options.build.file(spec.source);
    execArgv = [...NODE_ARGV, ...profile];
  } else {
    file = join(ROOT, spec.source);
    execArgv = [...TSX_ARGV, ...profile];
  }
  const runtime = `node ${execArgv.map((a) => (a.startsWith('--cpu-prof-dir=') ? '--cpu-prof-dir=…' : a)).join(' ')} ${relative(ROOT, file)}`;
  const child = forkChild(file, spec.args(sqlitePath), execArgv);
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
    kind,
    pid: pid as number,
    runtime,
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
    stop: () => stopChild(child, () => (child.connected ? command({ type: 'stop' }) : child.kill('SIGTERM'))),
  };
}

export interface Measured {
  result: LoadResult;
  /** The window's edges on the monotonic clock (process.hrtime, in µs), as a CPU profile's timestamps are. */
  window: { startMicros: number; endMicros: number };
  /** Server CPU (user + system) over the generator's window, microseconds. */
  serverCpuMicros: number;
  /** Server RSS at the end of the window, bytes. */
  serverRssBytes: number;
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
      const window = { startMicros: 0, endMicros: 0 };
      const now = () => Number(process.hrtime.bigint() / 1000n);
      // Sampled when the generator announces each edge: /proc reads take microseconds.
      const onEdge = (m: GeneratorMessage) => {
        if (m.type === 'window-start') {
          window.startMicros = now();
          cpuAtStart = cpuMicros(server.pid);
        }
        if (m.type === 'window-end') {
          window.endMicros = now();
          cpuAtEnd = cpuMicros(server.pid);
          rssAtEnd = rssBytes(server.pid);
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
        return { result, window, serverCpuMicros: cpuAtEnd - cpuAtStart, serverRssBytes: rssAtEnd };
      } finally {
        child.off('message', onEdge);
      }
    },
    close: () => stopChild(child, () => (child.connected ? child.disconnect() : child.kill('SIGTERM'))),
  };
}
