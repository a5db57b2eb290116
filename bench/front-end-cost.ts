/**
 * `npm run bench:front-end-cost [-- --requests <n> --warmup <n>]`: the instructions one W1, W2 and
 * W4 unit costs our server on each front end (native uWS, node, node:http, node:http mounted in
 * Express), counted by callgrind. CPU time on a shared two-core machine swings by ±20% between
 * windows; an instruction count less (up to 15% between runs, with where the window falls among
 * the memory store's full collections), so it shows what a change to the node path's own code
 * costs before the interleaved rounds of `npm run bench` weigh it (docs/benchmark.md).
 *
 * Each front end is one server process (bench/servers/ours.ts from the tsc build) under
 * `valgrind --tool=callgrind node --single-threaded`; per workload it is warmed up and dumped
 * (`callgrind_control -d`: a dump holds what ran since the one before), sent `--requests` requests
 * eight at a time from this process, and dumped again: that dump's total over the requests is the
 * figure. `--single-threaded` runs V8's optimizing compiler on the main thread, inside the count:
 * the warm-up (8,000 requests by default) lets it compile the request path before the count
 * starts, and the report gives the compiler's share of each count, so a warm-up too short shows.
 * (A forced collection after the warm-up would start each window from a like heap, but V8 then
 * compiles the path again: 40% of the next count.) Kernel time (the socket calls) is not counted:
 * both front ends make about the same calls per request. `--front-ends uws,node,node-http,express`
 * and `--workloads W1,W2,W4` pick what is counted (default all; Express runs W1 only): node's
 * start-up under callgrind takes minutes, so two invocations of one front end each use both cores.
 */
import { execFile, fork, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildServer } from './lib/build.js';
import { ROOT } from './lib/children.js';
import { MESSAGE_ID, type RequestTemplate, type ServerMessage } from './lib/types.js';
import { requests } from './lib/workloads.js';

const { values } = parseArgs({
  options: { requests: { type: 'string' }, warmup: { type: 'string' }, 'front-ends': { type: 'string' }, workloads: { type: 'string' } },
});
/**
 * At 600 warm-up requests (the default before 2026-12-02), V8's optimizing compiler was about 60%
 * of a W1 count (1.7 million instructions per unit where the compiled path takes about 0.43
 * million), and the ratio between front ends read the compiler's work more than theirs.
 */
const perWorkload = Number(values.requests ?? 3000);
const warmup = Number(values.warmup ?? 8000);
if (!(Number.isInteger(perWorkload) && perWorkload > 0 && Number.isInteger(warmup) && warmup >= 0)) {
  process.stderr.write(
    'usage: npm run bench:front-end-cost -- [--requests <n>] [--warmup <n>] [--front-ends uws,node,node-http,express] [--workloads W1,W2,W4]\n',
  );
  process.exit(2);
}
// callgrind_annotate prints its version and exits 255: only whether it runs at all is checked.
if (spawnSync('callgrind_control', ['--version']).status !== 0 || spawnSync('callgrind_annotate', ['--version']).error !== undefined) {
  process.stderr.write('bench:front-end-cost needs valgrind (callgrind, callgrind_control and callgrind_annotate) on the PATH\n');
  process.exit(2);
}

type Workload = 'W1' | 'W2' | 'W4';
const ALL_FRONT_ENDS: readonly { key: string; name: string; arg: string; workloads: readonly Workload[] }[] = [
  { key: 'uws', name: 'uWS', arg: 'auto', workloads: ['W1', 'W2', 'W4'] },
  { key: 'node', name: 'node', arg: 'node', workloads: ['W1', 'W2', 'W4'] },
  { key: 'node-http', name: 'node:http', arg: 'node-http', workloads: ['W1', 'W2', 'W4'] },
  { key: 'express', name: 'Express mount', arg: 'express', workloads: ['W1'] },
];
const picked = values['front-ends']?.split(',');
const pickedWorkloads = values.workloads?.split(',');
const FRONT_ENDS = ALL_FRONT_ENDS.filter((f) => picked === undefined || picked.includes(f.key)).map((f) => ({
  ...f,
  workloads: f.workloads.filter((w) => pickedWorkloads === undefined || pickedWorkloads.includes(w)),
}));
const REQUEST: Record<Workload, () => RequestTemplate> = { W1: requests.rpcSend, W2: requests.restSend, W4: requests.rpcStream };
/** Requests in flight at once. */
const CONCURRENCY = 8;
/** Starting our server under callgrind takes minutes on a busy two-core machine. */
const START_TIMEOUT_MS = 900_000;

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Requests node refused for its headers timeout and that were sent again. */
let retried = 0;

/** Sends `count` requests of `template`, CONCURRENCY at a time; every answer must be a completed task. */
async function drive(url: string, template: RequestTemplate, count: number): Promise<void> {
  let next = 0;
  const one = async (): Promise<void> => {
    while (next < count) {
      next++;
      const res = await fetch(url + template.path, {
        method: template.method,
        headers: { 'content-type': 'application/json', ...template.headers },
        body: template.body?.replaceAll(MESSAGE_ID, randomUUID()),
      });
      const text = await res.text();
      if (res.status === 400 && text.includes('ERR_HTTP_REQUEST_TIMEOUT')) {
        // Under callgrind node runs many times slower, and its headers timeout can fire on a
        // kept-alive connection: sent again, and counted so the report can say so.
        next--;
        retried++;
        continue;
      }
      if (res.status !== 200 || !text.includes('completed')) throw new Error(`unexpected answer ${res.status}: ${text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, one));
}

const control = (flag: string, pid: number): Promise<void> =>
  new Promise((resolve, reject) => {
    execFile('callgrind_control', [flag, String(pid)], { timeout: 120_000 }, (err) => (err ? reject(err) : resolve()));
  });

/** The path of the newest dump: the `prefix`.N file of the highest N. */
function newestDump(dir: string, prefix: string): string {
  const numbered = readdirSync(dir)
    .map((f) => (f.startsWith(`${prefix}.`) ? Number(f.slice(prefix.length + 1)) : Number.NaN))
    .filter((n) => Number.isInteger(n));
  if (numbered.length === 0) throw new Error('callgrind wrote no dump');
  return join(dir, `${prefix}.${Math.max(...numbered)}`);
}

/** The instructions of a dump (its `totals:` line). */
function dumpTotal(file: string): number {
  const m = /^(?:totals|summary): (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no totals in ${file}`);
  return Number(m[1]);
}

/** V8's optimizing compilers (TurboFan, Maglev), by the symbols callgrind names their code with. */
const COMPILER_SYMBOL = /v8::internal::(?:compiler|maglev|turboshaft)::/;

/** The share of a dump's instructions that V8's optimizing compilers ran (self cost, by function). */
function compilerShare(file: string, total: number): number {
  const annotated = spawnSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  let compiler = 0;
  for (const line of annotated.stdout.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined && COMPILER_SYMBOL.test(m[2])) compiler += Number(m[1].replaceAll(',', ''));
  }
  return compiler / total;
}

function ready(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start under callgrind')), START_TIMEOUT_MS);
    child.on('message', (m: ServerMessage) => {
      if (m.type !== 'ready') return;
      clearTimeout(timer);
      resolve(m.url);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before it was ready`)));
  });
}

log('building our server with tsc ...');
const build = await buildServer();
const dir = mkdtempSync(join(tmpdir(), 'a2actor-front-end-cost-'));
const results: Record<string, Partial<Record<Workload, number>>> = {};
try {
  for (const front of FRONT_ENDS) {
    const prefix = `${front.arg}.out`;
    const child = fork(build.file('bench/servers/ours.ts'), ['memory', 'memory', front.arg], {
      cwd: ROOT,
      execPath: 'valgrind',
      execArgv: ['--tool=callgrind', `--callgrind-out-file=${join(dir, prefix)}`, process.execPath, '--single-threaded'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    try {
      const url = await ready(child);
      const pid = child.pid as number;
      results[front.name] = {};
      for (const workload of front.workloads) {
        await drive(url, REQUEST[workload](), warmup);
        await control('-d', pid);
        await drive(url, REQUEST[workload](), perWorkload);
        await control('-d', pid);
        const dump = newestDump(dir, prefix);
        const total = dumpTotal(dump);
        const perUnit = Math.round(total / perWorkload);
        const compiling = compilerShare(dump, total);
        (results[front.name] as Partial<Record<Workload, number>>)[workload] = perUnit;
        log(
          `${front.name.padEnd(14)} ${workload}: ${perUnit.toLocaleString('en-US')} instructions per unit` +
            ` (V8's optimizing compiler ${(compiling * 100).toFixed(1)}% of them${compiling > 0.05 ? ': raise --warmup' : ''})` +
            (retried > 0 ? ` (${retried} requests refused by the headers timeout so far, sent again)` : ''),
        );
      }
    } finally {
      child.kill('SIGKILL');
    }
  }
  const of = (name: string, w: Workload): number | undefined => results[name]?.[w];
  for (const w of ['W1', 'W2', 'W4'] as const) {
    const uws = of('uWS', w);
    const node = of('node', w);
    const nodeHttp = of('node:http', w);
    const express = of('Express mount', w);
    if (uws === undefined) continue;
    const parts = [
      node === undefined ? '' : `node over uWS ${(node / uws).toFixed(2)}x`,
      nodeHttp === undefined ? '' : `node:http over uWS ${(nodeHttp / uws).toFixed(2)}x`,
      express === undefined || nodeHttp === undefined ? '' : `Express mount over node:http ${(express / nodeHttp).toFixed(2)}x`,
    ].filter((part) => part !== '');
    if (parts.length > 0) log(`${w}: ${parts.join('; ')}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  build.remove();
}
