/**
 * `--profile`: reads the .cpuprofile a server wrote under `--cpu-prof` and says where its main
 * thread spent the workload's measured window: the functions with the most self time, and the
 * time per module (each of our source files, each package, node internals, GC). Positions in
 * our compiled files are mapped back to the TypeScript through tsc's source maps.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerKind, WorkloadId } from './types.js';

/** The parts of V8's CPU profile format (the DevTools protocol's Profiler.Profile) read here. */
interface CallFrame {
  functionName: string;
  url: string;
  /** Zero-based, as are columns. */
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds on the monotonic clock, the one process.hrtime reads. */
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionTime {
  name: string;
  /** `file:line` (1-based); our files as their TypeScript source. */
  location: string;
  module: string;
  selfMs: number;
  /** Of the busy time. */
  percent: number;
}

export interface ModuleTime {
  module: string;
  selfMs: number;
  percent: number;
  /** Ours only: the time per source file. */
  files?: ModuleTime[];
}

export interface ProfileSummary {
  server: ServerKind;
  workload: WorkloadId;
  /** The .cpuprofile file, absolute. */
  path: string;
  /** `window`: the samples inside the workload's measured window; `whole`: the process's whole life. */
  span: 'window' | 'whole';
  spanMs: number;
  /** Sampled time with the main thread not idle: every percentage is of this. */
  busyMs: number;
  idleMs: number;
  top: FunctionTime[];
  modules: ModuleTime[];
}

/** Our own code; everything else is grouped by package or by what V8 calls it. */
const OURS = 'ours (src/, machines/)';
const BENCH = 'bench harness and echo agent (bench/)';
const NODE = 'node internals (node:*)';
const GC = 'GC';
const PROGRAM = '(program)';
const NATIVE = 'native functions (node bindings, a few V8 built-ins)';

export const PROFILE_LEGEND = [
  "Self time only: a function's callees are not in its figure. GC: the main thread's share of garbage collection.",
  "(program): native code with no JS frame on the stack: uWS's event loop and HTTP parser, libuv, V8 compiling.",
  'uWebSockets.js has no JS frames of its own: the native methods our code calls (res.end, cork, writeHeader, ...)',
  'count in the calling function (src/http/), as do most V8 built-ins (JSON.parse, JSON.stringify) in theirs.',
  "native functions: node's C++ bindings (utf8Write, ...) and the few built-ins V8 names on their own.",
].join('\n');

function isCpuProfile(value: unknown): value is CpuProfile {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  return (
    Array.isArray(p.nodes) &&
    Array.isArray(p.samples) &&
    Array.isArray(p.timeDeltas) &&
    typeof p.startTime === 'number' &&
    typeof p.endTime === 'number'
  );
}

export function readProfile(path: string): CpuProfile {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!isCpuProfile(parsed)) throw new Error(`${path} is not a V8 CPU profile`);
  return parsed;
}

interface Place {
  module: string;
  /** Set for our files: the module is OURS and this is the file. */
  file?: string;
  location: string;
}

/** Where a frame's code lives, with our compiled positions mapped back to the TypeScript. */
function placer(root: string, buildDir: string | undefined): (frame: CallFrame) => Place {
  const maps = new Map<string, SourceMap | undefined>();
  const sourceMap = (jsPath: string): SourceMap | undefined => {
    if (!maps.has(jsPath)) {
      const mapPath = `${jsPath}.map`;
      let map: SourceMap | undefined;
      if (existsSync(mapPath)) {
        const payload: SourceMapPayload = JSON.parse(readFileSync(mapPath, 'utf8'));
        map = new SourceMap(payload);
      }
      maps.set(jsPath, map);
    }
    return maps.get(jsPath);
  };
  const inside = (dir: string, path: string): boolean => {
    const rel = relative(dir, path);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  };
  /** A project path, relative to the root, in our module groups. */
  const ownPlace = (path: string, line: number): Place => {
    const rel = relative(root, path).split(sep).join('/');
    const at = `${rel}:${line}`;
    if (rel.startsWith('src/') || rel.startsWith('machines/')) return { module: OURS, file: rel, location: at };
    if (rel.startsWith('bench/')) return { module: BENCH, location: at };
    return { module: rel, location: at };
  };

  return (frame) => {
    const { url, functionName } = frame;
    const line = frame.lineNumber + 1;
    if (url === '') {
      if (functionName === '(garbage collector)') return { module: GC, location: '' };
      if (functionName === '(program)') return { module: PROGRAM, location: '' };
      return { module: NATIVE, location: '' };
    }
    if (url.startsWith('node:')) return { module: NODE, location: `${url}:${line}` };
    if (!url.startsWith('file:')) return { module: url, location: `${url}:${line}` };
    const path = fileURLToPath(url);
    const modulesAt = path.lastIndexOf(`${sep}node_modules${sep}`);
    if (modulesAt >= 0) {
      const inPackages = path.slice(modulesAt + `${sep}node_modules${sep}`.length).split(sep);
      const name = inPackages[0]?.startsWith('@') ? inPackages.slice(0, 2).join('/') : (inPackages[0] ?? path);
      return { module: name, location: `${inPackages.join('/')}:${line}` };
    }
    if (buildDir !== undefined && inside(buildDir, path)) {
      const map = sourceMap(path);
      const entry = map?.findEntry(frame.lineNumber, frame.columnNumber);
      if (entry && 'originalSource' in entry) {
        // tsc writes sources relative to the map's directory.
        const source = entry.originalSource.startsWith('file:')
          ? fileURLToPath(entry.originalSource)
          : resolve(dirname(path), entry.originalSource);
        return ownPlace(source, entry.originalLine + 1);
      }
      // No map: still ours, at the compiled position, named as its source would be.
      return ownPlace(resolve(root, relative(buildDir, path).replace(/\.js$/, '.ts')), line);
    }
    if (inside(root, path)) return ownPlace(path, line);
    return { module: path, location: `${path}:${line}` };
  };
}

export interface SummarizeOptions {
  server: ServerKind;
  workload: WorkloadId;
  root: string;
  /** The build our server ran from, to map its positions back to the TypeScript. */
  buildDir?: string | undefined;
  /** Summarize only the samples in this window (monotonic µs), if the profile covers it. */
  window?: { startMicros: number; endMicros: number } | undefined;
  top?: number;
}

const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

export function summarizeProfile(path: string, options: SummarizeOptions): ProfileSummary {
  const profile = readProfile(path);
  const place = placer(options.root, options.buildDir);
  const frames = new Map<number, CallFrame>(profile.nodes.map((n) => [n.id, n.callFrame]));

  const w = options.window;
  const useWindow = w !== undefined && w.endMicros > w.startMicros && w.startMicros >= profile.startTime && w.endMicros <= profile.endTime;
  const from = useWindow ? w.startMicros : profile.startTime;
  const to = useWindow ? w.endMicros : profile.endTime;

  // A sample is the stack at its timestamp; it stands for the time until the next sample.
  const selfMicros = new Map<number, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const next = i + 1 < profile.samples.length ? at + (profile.timeDeltas[i + 1] ?? 0) : profile.endTime;
    const start = Math.max(at, from);
    const end = Math.min(next, to);
    const node = profile.samples[i];
    if (end <= start || node === undefined) continue;
    selfMicros.set(node, (selfMicros.get(node) ?? 0) + (end - start));
  }

  let idle = 0;
  let busy = 0;
  const functions = new Map<string, { name: string; place: Place; micros: number }>();
  const modules = new Map<string, number>();
  const files = new Map<string, number>();
  for (const [id, micros] of selfMicros) {
    const frame = frames.get(id);
    if (!frame || frame.functionName === '(root)') continue;
    if (frame.functionName === '(idle)') {
      idle += micros;
      continue;
    }
    busy += micros;
    const where = place(frame);
    const name = frame.functionName || '(anonymous)';
    const key = `${name}\u0000${where.module}\u0000${where.location}`;
    const fn = functions.get(key) ?? { name, place: where, micros: 0 };
    fn.micros += micros;
    functions.set(key, fn);
    modules.set(where.module, (modules.get(where.module) ?? 0) + micros);
    if (where.file !== undefined) files.set(where.file, (files.get(where.file) ?? 0) + micros);
  }

  const percent = (micros: number) => (busy > 0 ? round((micros / busy) * 100) : 0);
  const ms = (micros: number) => round(micros / 1000);
  const byTime = <T extends { micros: number }>(a: T, b: T) => b.micros - a.micros;
  const toModuleTime = (entries: Map<string, number>): ModuleTime[] =>
    [...entries]
      .map(([module, micros]) => ({ module, micros }))
      .sort(byTime)
      .map(({ module, micros }) => ({ module, selfMs: ms(micros), percent: percent(micros) }));

  return {
    server: options.server,
    workload: options.workload,
    path,
    span: useWindow ? 'window' : 'whole',
    spanMs: ms(to - from),
    busyMs: ms(busy),
    idleMs: ms(idle),
    top: [...functions.values()]
      .sort(byTime)
      .slice(0, options.top ?? 25)
      .map((f) => ({
        name: f.name,
        location: f.place.location,
        module: f.place.file ?? f.place.module,
        selfMs: ms(f.micros),
        percent: percent(f.micros),
      })),
    modules: toModuleTime(modules).map((m) => (m.module === OURS ? { ...m, files: toModuleTime(files) } : m)),
  };
}

export function formatProfile(summary: ProfileSummary, label: string, root: string): string {
  const lines: string[] = [];
  const fixed = (n: number) => n.toFixed(1);
  const total = summary.busyMs + summary.idleMs;
  lines.push(`profile of ${summary.workload} on ${label}: ${relative(root, summary.path)}`);
  lines.push(
    `  ${summary.span === 'window' ? 'the measured window' : 'the whole process (the window was not inside the profile)'}, ${fixed(summary.spanMs / 1000)} s: ` +
      `main thread busy ${fixed(summary.busyMs)} ms (${total > 0 ? Math.round((summary.busyMs / total) * 100) : 0}%), idle ${fixed(summary.idleMs)} ms; % is of busy time`,
  );
  lines.push('');
  lines.push(`  top ${summary.top.length} functions by self time`);
  const nameWidth = Math.min(48, Math.max(8, ...summary.top.map((f) => f.name.length)));
  lines.push(`  ${'%'.padStart(6)}  ${'self ms'.padStart(9)}  ${'function'.padEnd(nameWidth)}  location`);
  for (const f of summary.top) {
    const name = f.name.length > nameWidth ? `${f.name.slice(0, nameWidth - 1)}…` : f.name;
    lines.push(`  ${fixed(f.percent).padStart(6)}  ${fixed(f.selfMs).padStart(9)}  ${name.padEnd(nameWidth)}  ${f.location || f.module}`);
  }
  lines.push('');
  lines.push('  self time per module');
  for (const m of summary.modules) {
    lines.push(`  ${fixed(m.percent).padStart(6)}  ${fixed(m.selfMs).padStart(9)}  ${m.module}`);
    for (const f of m.files ?? [])
      lines.push(`  ${''.padStart(6)}  ${fixed(f.percent).padStart(9)}%   ${f.module} (${fixed(f.selfMs)} ms)`);
  }
  // Named even when it has no samples of its own: its cost is real, only counted elsewhere.
  if (!summary.modules.some((m) => m.module === 'uWebSockets.js'))
    lines.push(`  ${'-'.padStart(6)}  ${'-'.padStart(9)}  uWebSockets.js (no JS frames of its own: see below)`);
  lines.push('');
  for (const line of PROFILE_LEGEND.split('\n')) lines.push(`  ${line}`);
  return lines.join('\n');
}
