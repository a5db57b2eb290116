/**
 * The processes of a run: each server in its own process (so /proc shows its CPU and RSS alone)
 * and the load generator in another. All are forked with an IPC channel and die with it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpuMicros, rssBytes } from './proc.js';
import type { GeneratorCommand, GeneratorMessage, LoadResult, LoadSpec, ServerCommand, ServerKind, ServerMessage } from './types.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const entry = (path: string): string => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** Every child runs TypeScript through tsx, as `npm start` does; --expose-gc lets W5 settle the heap. */
const EXEC_ARGV = ['--expose-gc', '--import', 'tsx'];
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

function forkChild(path: string, args: string[]): ChildProcess {
  return fork(entry(path), args, { cwd: ROOT, execArgv: EXEC_ARGV, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: process.env });
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
  /** Forces garbage collection in the server and reports its memory afterwards. */
  settle(): Promise<{ rssBytes: number; heapUsedBytes: number }>;
  stop(): Promise<void>;
}

const SERVER_ENTRIES: Record<ServerKind, { path: string; args: (sqlitePath: string) => string[] }> = {
  raw: { path: 'servers/raw-uws.ts', args: () => [] },
  memory: { path: 'servers/ours.ts', args: () => ['memory'] },
  sqlite: { path: 'servers/ours.ts', args: (sqlitePath) => [`sqlite:${sqlitePath}`] },
  peer: { path: 'servers/peer.ts', args: () => [] },
};

export async function startServerProcess(kind: ServerKind, sqlitePath: string): Promise<ServerProcess> {
  const spec = SERVER_ENTRIES[kind];
  const child = forkChild(spec.path, spec.args(sqlitePath));
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
  const child = forkChild('load/generator.ts', []);
  const tail = captureTail(child);
  return {
    async run(spec, server) {
      let cpuAtStart = 0;
      let cpuAtEnd = 0;
      let rssAtEnd = 0;
      // Sampled when the generator announces each edge: /proc reads take microseconds.
      const onEdge = (m: GeneratorMessage) => {
        if (m.type === 'window-start') cpuAtStart = cpuMicros(server.pid);
        if (m.type === 'window-end') {
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
        return { result, serverCpuMicros: cpuAtEnd - cpuAtStart, serverRssBytes: rssAtEnd };
      } finally {
        child.off('message', onEdge);
      }
    },
    close: () => stopChild(child, () => (child.connected ? child.disconnect() : child.kill('SIGTERM'))),
  };
}
