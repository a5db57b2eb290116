/**
 * The bench harness itself (bench/): it reads its options as documented, it summarizes a CPU
 * profile, and short smoke workloads run end to end against our server (compiled once with
 * tsc, as the bench runs it) in its own process, driven by the load generator in another, over
 * real sockets: one of them under --cpu-prof, one on two replicas sharing the PostgreSQL and
 * Redis of this machine, one beside the v1.0 peer (@a2a-js/sdk 1.3.0). No timing is asserted:
 * this machine is shared; only that the runs completed requests, without errors, into
 * well-formed reports.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponse, checkStreamEvent, streamCheck } from '../../bench/load/checks.js';
import { SseReader } from '../../bench/load/sse.js';
import { actorFloorNote } from '../../bench/lib/actor-floor.js';
import { buildServer, type ServerBuild } from '../../bench/lib/build.js';
import { startGenerator, startServerProcess, type ServerProcess } from '../../bench/lib/children.js';
import { CLUSTER_POSTGRES_URL } from '../../bench/lib/cluster.js';
import { collectedInstructions, featureCostLines, instructionsPerRequest } from '../../bench/lib/instruction-cost.js';
import { runBuiltMicro } from '../../bench/lib/micro-process.js';
import { OptionsError, parseOptions, type BenchOptions } from '../../bench/lib/options.js';
import { formatProfile, summarizeProfile } from '../../bench/lib/profile.js';
import { formatTable, targetOf, writeReport } from '../../bench/lib/report.js';
import { answerError } from '../../bench/lib/probe.js';
import { compare, runSuite, soakMemory, type BenchReport, type Row } from '../../bench/lib/suite.js';
import { FEATURE_VARIANTS } from '../../bench/lib/types.js';
import { V1_REQUESTS, WORKLOADS } from '../../bench/lib/workloads.js';
import { pickOperation } from '../../bench/load/soak.js';
import { postgresOrRedisMissing } from '../support/services.js';

/** The case on replicas needs the shared PostgreSQL and Redis (services.ts says when it skips). */
const ON_REPLICAS = { timeout: 120_000, skip: await postgresOrRedisMissing('bench smoke run on replicas') };

describe('bench targets (issue 19)', () => {
  const row = (fields: Partial<Row> & Pick<Row, 'workload' | 'server'>): Row =>
    ({ title: '', outcome: 'measured', unit: 'task', ...fields }) as Row;

  it('marks each CPU, memory and cluster target met or missed by this run', () => {
    const sqlite = row({ workload: 'W1', server: 'sqlite', cpuMicrosPerUnit: 200 });
    const rows = [sqlite];
    expect(targetOf(row({ workload: 'W1', server: 'memory', cpuVsPeer: 0.62 }), rows)).toBe('target CPU x peer ≤ 0.45x ✗');
    expect(targetOf(row({ workload: 'W2', server: 'memory', cpuVsPeer: 0.44 }), rows)).toBe('target CPU x peer ≤ 0.45x ✓');
    expect(targetOf(row({ workload: 'W4', server: 'memory', cpuVsPeer: 0.5 }), rows)).toBe('target CPU x peer ≤ 0.5x ✓');
    // The v1.0 rows are held to their v0.3 twin's target.
    expect(targetOf(row({ workload: 'W1v1', server: 'memory', cpuVsPeer: 0.46 }), rows)).toBe('target CPU x peer ≤ 0.45x ✗');
    expect(targetOf(row({ workload: 'W2v1', server: 'memory', cpuVsPeer: 0.45 }), rows)).toBe('target CPU x peer ≤ 0.45x ✓');
    expect(targetOf(row({ workload: 'W4v1', server: 'memory', cpuVsPeer: 0.5, pairedCpuVsPeer: 0.51 }), rows)).toBe(
      'target CPU x peer ≤ 0.5x ✓; interleaved 0.51x ✗',
    );
    // The interleaved figure is marked on its own: the two can disagree on a noisy machine.
    expect(targetOf(row({ workload: 'W1', server: 'memory', cpuVsPeer: 0.47, pairedCpuVsPeer: 0.44 }), rows)).toBe(
      'target CPU x peer ≤ 0.45x ✗; interleaved 0.44x ✓',
    );
    const w5 = row({
      workload: 'W5',
      server: 'memory',
      memory: { tasks: 1, rssBeforeMb: 0, rssAfterMb: 0, rssGrowthMbPer1k: 1.02, heapGrowthMbPer1k: 0 },
    });
    expect(targetOf(w5, rows)).toBe('target ≤ 1.0 MB per 1,000 ✗');
    const cluster = row({ workload: 'W1', server: 'cluster', cpuMicrosPerUnit: 210, backendCpuMicrosPerUnit: 190 });
    expect(targetOf(cluster, rows)).toBe('replicas + PostgreSQL + Redis CPU 2.00x ours sqlite (target ≤ 3x) ✓');
    expect(targetOf(cluster, [])).toBeUndefined();
    expect(targetOf(row({ workload: 'W3', server: 'memory', cpuVsPeer: 0.1 }), rows)).toBeUndefined();
    expect(targetOf(row({ workload: 'W1', server: 'peer' }), rows)).toBeUndefined();
  });
});

describe('bench feature cost in instructions', () => {
  it("reads callgrind's total and takes a size's difference per request, so start-up cancels", () => {
    const stderr = '==4242== Events    : Ir\n==4242== Collected : 6103077113\n==4242==\n==4242== I   refs:      6,103,077,113\n';
    expect(collectedInstructions(stderr)).toBe(6_103_077_113);
    expect(collectedInstructions('no callgrind here')).toBeUndefined();
    expect(
      instructionsPerRequest({ requests: 3000, instructions: 6_100_000_000 }, { requests: 9000, instructions: 8_300_000_000 }),
    ).toBeCloseTo(366_666.67, 1);
    expect(() => instructionsPerRequest({ requests: 10, instructions: 1 }, { requests: 10, instructions: 2 })).toThrow(/more requests/);
  });

  it("sets each variant against plain, in µs at the plain path's own speed", () => {
    const lines = featureCostLines({ plain: 360_000, auth: 363_600, metrics: 356_400 }, 60);
    expect(lines.map((l) => l.variant)).toEqual([...FEATURE_VARIANTS]);
    expect(lines[0]).toEqual({ variant: 'plain', instructionsPerRequest: 360_000, addedInstructions: 0, addedPercent: 0, addedMicros: 0 });
    expect(lines[1]).toEqual({
      variant: 'auth',
      instructionsPerRequest: 363_600,
      addedInstructions: 3600,
      addedPercent: 1,
      addedMicros: 0.6,
    });
    expect(lines[2]).toMatchObject({ variant: 'metrics', addedInstructions: -3600, addedPercent: -1, addedMicros: -0.6 });
  });
});

describe('bench options', () => {
  it('defaults to every server and workload with windows that fit ten minutes', () => {
    const opts = parseOptions([], '/tmp/out');
    if (opts === 'help') throw new Error('unexpected help');
    expect(opts.servers).toEqual([
      'raw',
      'memory',
      'node',
      'node-http',
      'express',
      'auth',
      'metrics',
      'sqlite',
      'cluster',
      'peer',
      'peer-v1',
    ]);
    // The soak takes minutes: it runs only when named.
    expect(opts.workloads).toEqual(['W1', 'W2', 'W3', 'W4', 'W1v1', 'W2v1', 'W4v1', 'W5', 'W6', 'W7', 'W8', 'W9']);
    expect(opts).toMatchObject({ quick: false, warmupMs: 2000, durationMs: 8000, connections: 64, tasks: 100_000, outDir: '/tmp/out' });
    expect(opts).toMatchObject({ pausedTasks: 5000, soakMs: 120_000 });
  });

  it('--servers peer-v1 --workloads W1v1,W2v1,W4v1 runs the v1.0 workloads on the v1.0 peer alone', () => {
    expect(parseOptions(['--servers', 'peer-v1', '--workloads', 'W4v1,W1v1,W2v1'], '/x')).toMatchObject({
      servers: ['peer-v1'],
      workloads: ['W1v1', 'W2v1', 'W4v1'],
    });
    expect(() => parseOptions(['--workloads', 'W3v1'], '/x')).toThrow(OptionsError);
  });

  it('--workloads SOAK --soak-minutes 7 runs the soak for seven minutes', () => {
    expect(parseOptions(['--workloads', 'SOAK', '--soak-minutes', '7'], '/x')).toMatchObject({ workloads: ['SOAK'], soakMs: 420_000 });
    expect(parseOptions(['--workloads', 'W9', '--paused', '200'], '/x')).toMatchObject({ workloads: ['W9'], pausedTasks: 200 });
  });

  it('--quick shortens every window and the memory workload', () => {
    const opts = parseOptions(['--quick'], '/tmp/out');
    if (opts === 'help') throw new Error('unexpected help');
    expect(opts).toMatchObject({ quick: true, durationMs: 1000, tasks: 3000 });
  });

  it('reads explicit settings, lists in canonical order, and --no-write', () => {
    const opts = parseOptions(
      ['--duration', '2.5', '--connections', '8', '--servers', 'peer,memory', '--workloads', 'W3,W1', '--no-write'],
      '/x',
    );
    if (opts === 'help') throw new Error('unexpected help');
    expect(opts).toMatchObject({
      durationMs: 2500,
      connections: 8,
      servers: ['memory', 'peer'],
      workloads: ['W1', 'W3'],
      outDir: undefined,
    });
  });

  it('--profile runs that one workload on our memory server unless told otherwise', () => {
    expect(parseOptions(['--profile', 'W1'], '/x')).toMatchObject({ profile: 'W1', servers: ['memory'], workloads: ['W1'] });
    expect(parseOptions(['--profile', 'W4', '--servers', 'ours-memory,ours-sqlite'], '/x')).toMatchObject({
      profile: 'W4',
      servers: ['memory', 'sqlite'],
      workloads: ['W4'],
    });
    expect(parseOptions(['--servers', 'ours-cluster'], '/x')).toMatchObject({ servers: ['cluster'] });
    // The profiled workload always runs, after the ones it may depend on.
    expect(parseOptions(['--profile', 'W8', '--workloads', 'W5'], '/x')).toMatchObject({ profile: 'W8', workloads: ['W5', 'W8'] });
    expect(parseOptions([], '/x')).toMatchObject({ profile: undefined });
    expect(() => parseOptions(['--profile', 'W1,W2'], '/x')).toThrow(/one workload/);
    expect(() => parseOptions(['--profile', 'W10'], '/x')).toThrow(OptionsError);
  });

  it('refuses what it cannot run, with a message', () => {
    expect(() => parseOptions(['--servers', 'nginx'], '/x')).toThrow(OptionsError);
    expect(() => parseOptions(['--duration', '0'], '/x')).toThrow(/positive/);
    expect(() => parseOptions(['--connections', '1.5'], '/x')).toThrow(/integer/);
    expect(() => parseOptions(['--bogus'], '/x')).toThrow(OptionsError);
    expect(parseOptions(['--help'], '/x')).toBe('help');
  });
});

describe('bench response checks', () => {
  it('reads SSE events split across chunks, skipping comments and ids', () => {
    const reader = new SseReader();
    expect(reader.push(': ping\n\nid: 1\ndata: {"a"')).toEqual([]);
    expect(reader.push(':1}\n\ndata: x\r\n\r\n')).toEqual(['{"a":1}', 'x']);
    expect(reader.pending).toBe(0);
  });

  it('counts a fast wrong answer as an error', () => {
    const task = (state: string) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, result: { kind: 'task', id: 't', status: { state }, artifacts: [{}] } });
    expect(checkResponse('rpc-completed', 200, task('completed'))).toBeUndefined();
    expect(checkResponse('rpc-completed', 200, task('failed'))).toMatch(/failed/);
    expect(checkResponse('rpc-completed', 200, '{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}}')).toMatch(/-32600/);
    expect(checkResponse('rest-completed', 201, '{"task":{"status":{"state":"TASK_STATE_COMPLETED"}}}')).toBeUndefined();
    expect(checkResponse('card', 500, '{}')).toMatch(/HTTP 500/);
    expect(
      checkStreamEvent('{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","final":true,"status":{"state":"completed"}}}'),
    ).toEqual({ final: true });
    expect(checkStreamEvent('{"jsonrpc":"2.0","id":1,"result":{"kind":"artifact-update"}}')).toEqual({ final: false });
  });
});

describe('bench v1.0 workloads', () => {
  const task = (state: string, artifacts: unknown[] = [{ artifactId: 'echo', parts: [{ text: 'hello from the bench' }] }]) => ({
    id: 't',
    contextId: 'c',
    status: { state },
    artifacts,
  });
  const rpc = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, result });
  const rpcError = '{"jsonrpc":"2.0","id":1,"error":{"code":-32009,"message":"Protocol version not supported"}}';
  const stream = (...results: unknown[]): string | undefined => {
    const check = streamCheck('v1-sse-completed');
    for (const result of results) check.event(typeof result === 'string' ? result : rpc(result));
    return check.end();
  };

  it('counts a completed v1.0 task with the echo artifact as a success', () => {
    expect(checkResponse('v1-rpc-completed', 200, rpc({ task: task('TASK_STATE_COMPLETED') }))).toBeUndefined();
    expect(checkResponse('v1-rest-completed', 200, JSON.stringify({ task: task('TASK_STATE_COMPLETED') }))).toBeUndefined();
    expect(
      stream(
        { task: task('TASK_STATE_SUBMITTED', []) },
        { statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_WORKING' } } },
        { artifactUpdate: { taskId: 't', artifact: { artifactId: 'echo', parts: [{ text: 'hello from the bench' }] }, lastChunk: true } },
        { statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_COMPLETED' } } },
      ),
    ).toBeUndefined();
  });

  it('counts an error, a message, an unfinished task or a v0.3 answer as a failure', () => {
    expect(checkResponse('v1-rpc-completed', 200, rpcError)).toMatch(/JSON-RPC error -32009/);
    expect(checkResponse('v1-rest-completed', 400, '{"code":-32009,"message":"no"}')).toMatch(/HTTP 400/);
    expect(checkResponse('v1-rpc-completed', 200, rpc({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [] } }))).toMatch(/message/);
    expect(checkResponse('v1-rpc-completed', 200, rpc({ task: task('TASK_STATE_WORKING') }))).toMatch(/TASK_STATE_WORKING/);
    expect(checkResponse('v1-rest-completed', 200, JSON.stringify({ task: task('TASK_STATE_COMPLETED', []) }))).toMatch(/artifact/);
    // A v0.3 task (a bare result, `kind`, `completed`) is not a v1.0 answer, however fast.
    expect(checkResponse('v1-rpc-completed', 200, rpc({ kind: 'task', ...task('completed') }))).toMatch(/no task/);
    expect(checkResponse('v1-rest-completed', 200, JSON.stringify({ task: task('completed') }))).toMatch(/task state completed/);
    // Streams: an error frame, a stream that closed early, one without the echo.
    expect(stream({ task: task('TASK_STATE_SUBMITTED', []) }, rpcError)).toMatch(/-32009/);
    expect(stream({ task: task('TASK_STATE_SUBMITTED', []) }, { statusUpdate: { status: { state: 'TASK_STATE_WORKING' } } })).toBe(
      'stream ended in TASK_STATE_WORKING',
    );
    expect(stream({ task: task('TASK_STATE_SUBMITTED', []) }, { statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } })).toMatch(
      /without the echo artifact/,
    );
    expect(stream()).toBe('stream ended in undefined');
    expect(stream('{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","final":true,"status":{"state":"completed"}}}')).toMatch(
      /unknown stream event/,
    );
  });

  it('compares a v1.0 row with the v1.0 peer and a v0.3 row with the v0.3 peer', () => {
    const measured = (workload: Row['workload'], server: Row['server'], rps: number, cpuMicrosPerUnit: number): Row => ({
      workload,
      server,
      title: '',
      outcome: 'measured',
      unit: 'task',
      rps,
      cpuMicrosPerUnit,
    });
    const rows = compare([
      measured('W1', 'memory', 8000, 100),
      measured('W1v1', 'memory', 6000, 120),
      measured('W1', 'peer', 2000, 400),
      measured('W1v1', 'peer-v1', 3000, 300),
    ]);
    expect(rows[0]).toMatchObject({ vsPeer: 4, cpuVsPeer: 0.25 });
    expect(rows[1]).toMatchObject({ vsPeer: 2, cpuVsPeer: 0.4 });
    expect(compare([measured('W1v1', 'memory', 6000, 120), measured('W1v1', 'peer', 3000, 300)])[0]?.cpuVsPeer).toBeUndefined();
  });

  it('has the generator count good v1.0 replies as done and error replies as errors', { timeout: 60_000 }, async () => {
    // A stand-in in this process answers every v1.0 request well, or (once told) with -32009.
    let refuse = false;
    const seen: { path?: string; version?: string; contentType?: string } = {};
    const completed = task('TASK_STATE_COMPLETED');
    const server = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        Object.assign(seen, { path: req.url, version: req.headers['a2a-version'], contentType: req.headers['content-type'] });
        if (refuse) {
          // JSON-RPC errors come with 200, REST's with a 4xx status.
          res.statusCode = req.url === '/' ? 200 : 400;
          res.setHeader('content-type', 'application/json');
          res.end(req.url === '/' ? rpcError : '{"code":-32009,"message":"no"}');
        } else if (req.headers.accept === 'text/event-stream') {
          res.setHeader('content-type', 'text/event-stream');
          for (const result of [{ task: { ...completed, status: { state: 'TASK_STATE_SUBMITTED' }, artifacts: [] } }, { task: completed }])
            res.write(`data: ${rpc(result)}\n\n`);
          res.end();
        } else {
          res.setHeader('content-type', 'application/json');
          res.end(req.url === '/' ? rpc({ task: completed }) : JSON.stringify({ task: completed }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const standIn: ServerProcess = {
      kind: 'peer-v1',
      pids: [process.pid],
      url,
      urls: [url],
      description: 'a stand-in',
      runtime: 'vitest',
      settle: () => Promise.resolve({ rssBytes: 0, heapUsedBytes: 0 }),
      memory: () => Promise.resolve(process.memoryUsage()),
      stop: () => Promise.resolve(),
    };
    const generator = startGenerator();
    try {
      for (const id of ['W1v1', 'W2v1', 'W4v1'] as const) {
        const spec = {
          origins: [url],
          request: V1_REQUESTS[id](),
          check: WORKLOADS[id].check,
          connections: 2,
          warmupMs: 50,
          durationMs: 300,
        };
        refuse = false;
        const good = await generator.run(spec, standIn);
        expect(good.result, `${id}: ${good.result.errorSamples.join('; ')}`).toMatchObject({ errors: 0 });
        expect(good.result.requests).toBeGreaterThan(0);
        expect(seen).toEqual({
          path: id === 'W2v1' ? '/message:send' : '/',
          version: '1.0',
          contentType: id === 'W2v1' ? 'application/a2a+json' : 'application/json',
        });
        refuse = true;
        const refused = await generator.run(spec, standIn);
        expect(refused.result.requests).toBe(0);
        expect(refused.result.errors).toBeGreaterThan(0);
        expect(refused.result.errorSamples.join('; ')).toMatch(/-32009/);
      }
    } finally {
      await generator.close();
      await new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections());
    }
  });

  it('the 1.3.0 peer starts and answers one v1.0 SendMessage over JSON-RPC and REST', { timeout: 60_000 }, async () => {
    const peer = await startServerProcess('peer-v1', join(tmpdir(), 'unused.db'));
    try {
      expect(peer.description).toMatch(/@a2a-js\/sdk 1\.3\.0 \(native v1\.0\)/);
      expect(new URL(peer.url).hostname).toBe('127.0.0.1');
      for (const id of ['W1v1', 'W2v1', 'W4v1'] as const)
        expect(await answerError(peer.url, V1_REQUESTS[id](), WORKLOADS[id].check)).toBeUndefined();

      // The answers have the v1.0 shape the checks read, with the echo of what was sent.
      const send = async (path: string, body: unknown, headers: Record<string, string>) => {
        const res = await fetch(`${peer.url}${path}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        return (await res.json()) as any;
      };
      const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] };
      const viaRpc = await send(
        '/',
        { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } },
        { 'content-type': 'application/json', 'a2a-version': '1.0' },
      );
      expect(viaRpc.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(viaRpc.result.task.artifacts).toEqual([{ artifactId: 'echo', name: 'echo', parts: [{ text: 'hello' }] }]);
      const viaRest = await send(
        '/message:send',
        { message: { ...message, messageId: randomUUID() } },
        { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
      );
      expect(viaRest.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(viaRest.task.artifacts[0].parts).toEqual([{ text: 'hello' }]);
      // Native v1.0: a v0.3 request (no A2A-Version) is refused, not translated.
      const v03 = await send(
        '/',
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { kind: 'message', ...message, messageId: randomUUID(), role: 'user' } },
        },
        { 'content-type': 'application/json' },
      );
      expect(v03.error.code).toBe(-32009);
    } finally {
      await peer.stop();
    }
  });
});

describe('bench task actor floor note', () => {
  it('sets the floor beside our W1, and beside the aim when the peer and the ceiling ran', () => {
    const floor = { tasks: 20_000, rounds: 5, cpuMicrosPerTask: 20, lowestCpuMicrosPerTask: 18.25 };
    expect(actorFloorNote(floor, {})).toBe(
      'task actor floor: 20.0 µs CPU per task for the XState actor alone (machines/task.machine.ts: create, start, START, ARTIFACT, ' +
        'COMPLETE, stop; median of 5 rounds, lowest 18.3 µs; 20000 tasks in a process of its own, no I/O)',
    );
    expect(actorFloorNote(floor, { ours: 80, peer: 150, ceiling: 8 })).toMatch(
      /; 25% of ours mem W1 \(80\.0 µs\); a third of the peer's W1 CPU \(50\.0 µs\) less the floor and the C1 ceiling \(8\.0 µs\) leaves 22\.0 µs for the rest of a task$/,
    );
  });
});

describe('bench CPU profile summary', () => {
  // Two samples before the window, then one each of idle, GC, node, xstate and two of ours.
  const node = (id: number, functionName: string, url = '', lineNumber = -1) => ({
    id,
    callFrame: { functionName, scriptId: '0', url, lineNumber, columnNumber: 0 },
  });
  const profile = {
    nodes: [
      node(1, '(root)'),
      node(2, '(idle)'),
      node(3, '(garbage collector)'),
      node(4, 'processTicksAndRejections', 'node:internal/process/task_queues', 66),
      node(5, 'microstep', 'file:///proj/node_modules/xstate/dist/raise.cjs.js', 2149),
      node(6, 'answer', 'file:///proj/bench/.build/run-x/src/http/uws-server.js', 78),
      node(7, 'startup', 'file:///proj/bench/.build/run-x/src/server.js', 9),
    ],
    startTime: 1_000,
    endTime: 10_000,
    samples: [7, 7, 2, 3, 4, 5, 6, 6],
    timeDeltas: [0, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000],
  };

  it("counts the window's samples by function and by module, as a share of busy time", () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2actor-bench-profile-'));
    try {
      const path = join(dir, 'test.cpuprofile');
      writeFileSync(path, JSON.stringify(profile));
      const summary = summarizeProfile(path, {
        server: 'memory',
        workload: 'W1',
        root: '/proj',
        buildDir: '/proj/bench/.build/run-x',
        window: { startMicros: 3_000, endMicros: 9_000 },
      });
      expect(summary).toMatchObject({ span: 'window', spanMs: 6, busyMs: 5, idleMs: 1 });
      // No source map beside the compiled file: named as its TypeScript source, at the compiled line.
      expect(summary.top[0]).toEqual({
        name: 'answer',
        location: 'src/http/uws-server.ts:79',
        module: 'src/http/uws-server.ts',
        selfMs: 2,
        percent: 40,
      });
      expect(summary.top.map((f) => f.name)).not.toContain('startup');
      expect(summary.modules).toEqual(
        [
          {
            module: 'ours (src/, machines/)',
            selfMs: 2,
            percent: 40,
            files: [{ module: 'src/http/uws-server.ts', selfMs: 2, percent: 40 }],
          },
          ...['GC', 'node internals (node:*)', 'xstate'].map((module) => ({ module, selfMs: 1, percent: 20 })),
        ].sort((a, b) => b.selfMs - a.selfMs),
      );
      expect(formatProfile(summary, 'ours mem', '/')).toMatch(/answer\s+src\/http\/uws-server\.ts:79/);

      // A window the profile does not cover falls back to the whole process, and says so.
      const whole = summarizeProfile(path, {
        server: 'memory',
        workload: 'W1',
        root: '/proj',
        window: { startMicros: 50_000, endMicros: 60_000 },
      });
      expect(whole).toMatchObject({ span: 'whole', busyMs: 8, idleMs: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bench smoke run', () => {
  // Our server runs from a tsc build, as production runs dist/; compiled once for both runs.
  let build: ServerBuild;
  beforeAll(async () => {
    build = await buildServer();
  }, 180_000);
  afterAll(() => build?.remove());

  const smoke = (extra: Partial<BenchOptions>): BenchOptions => ({
    quick: true,
    warmupMs: 300,
    durationMs: 2000,
    connections: 8,
    tasks: 100,
    fillCapMs: 10_000,
    pausedTasks: 200,
    soakMs: 12_000,
    servers: ['memory'],
    workloads: ['W1'],
    outDir: undefined,
    profile: undefined,
    ...extra,
  });

  it('drives W1 at our server for two seconds and reports it', { timeout: 90_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), 'a2actor-bench-test-'));
    try {
      const report: BenchReport = await runSuite(smoke({ outDir: out }), () => {}, build);
      expect(report.schema).toBe('a2actor-bench/1');
      expect(report.machine.node).toBe(process.version);
      expect(report.machine.cores).toBeGreaterThan(0);
      expect(report.servers.memory).toMatch(/a2actor, memory/);
      // Plain node on the compiled entry: no tsx in our server's process.
      expect(report.servers.memory).toMatch(/node --expose-gc bench\/\.build\/run-\w+\/bench\/servers\/ours\.js$/);
      expect(report.servers.memory).not.toMatch(/tsx/);
      expect(report.rows).toHaveLength(1);
      const [row] = report.rows;
      expect(row).toMatchObject({ workload: 'W1', server: 'memory', outcome: 'measured', errors: 0 });
      expect(row?.requests).toBeGreaterThan(0);
      expect(row?.rps).toBeGreaterThan(0);
      expect(row?.cpuMicrosPerUnit).toBeGreaterThan(0);
      expect(row?.rssMb).toBeGreaterThan(0);
      expect(row?.p99Ms).toBeGreaterThanOrEqual(row?.p50Ms ?? 0);

      // The task actor floor ran from the same build, and the note sets it beside our W1.
      expect(report.actorFloor?.tasks).toBeGreaterThan(0);
      expect(report.actorFloor?.rounds).toBe(5);
      expect(report.actorFloor?.lowestCpuMicrosPerTask).toBeGreaterThan(0);
      expect(report.actorFloor?.cpuMicrosPerTask).toBeGreaterThanOrEqual(report.actorFloor?.lowestCpuMicrosPerTask ?? Infinity);
      expect(report.notes.find((n) => n.startsWith('task actor floor: '))).toMatch(/% of ours mem W1 \(/);

      expect(formatTable(report)).toMatch(/W1 JSON-RPC message\/send\s+ours mem/);
      const written: unknown = JSON.parse(readFileSync(writeReport(report, out), 'utf8'));
      expect(written).toEqual(JSON.parse(JSON.stringify(report)));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('serves W1 through the path createServer wires, plain, with bearer auth and with metrics', { timeout: 60_000 }, async () => {
    for (const variant of FEATURE_VARIANTS) {
      // The micro exits non-zero unless every reply held a completed task (an auth refusal would not).
      const out = (await runBuiltMicro(build, 'bench/micro/feature-cost.ts', [variant, '200'], 30_000)) as Record<string, unknown>;
      expect(out).toMatchObject({ variant, perRound: 200, requests: 1200 });
      expect(out.medianUs).toBeGreaterThan(0);
      expect(out.lowestUs).toBeLessThanOrEqual(out.medianUs as number);
    }
  });

  it('measures the CPU ratio over the peer again in interleaved rounds, with both servers up', { timeout: 120_000 }, async () => {
    const report: BenchReport = await runSuite(
      smoke({ servers: ['memory', 'peer'], workloads: ['W1'], durationMs: 1000 }),
      () => {},
      build,
    );
    const ours = report.rows.find((r) => r.workload === 'W1' && r.server === 'memory');
    const note = report.notes.find((n) => n.startsWith('interleaved W1 '));
    // Two rounds each (quick): the note lists every round's CPU per task for both servers.
    const rounds = /ours mem ([\d.]+) µs \[([\d., ]+)\] vs peer ([\d.]+) µs \[([\d., ]+)\].* = ([\d.]+)x$/.exec(note ?? '');
    expect(rounds, note).not.toBeNull();
    const [, oursMedian, oursRounds, peerMedian, peerRounds, ratio] = rounds as RegExpExecArray;
    expect(oursRounds?.split(', ')).toHaveLength(2);
    expect(peerRounds?.split(', ')).toHaveLength(2);
    expect(Number(oursMedian)).toBeGreaterThan(0);
    expect(Number(peerMedian)).toBeGreaterThan(0);
    expect(ours?.pairedCpuVsPeer).toBe(Number(ratio));
    expect(ours?.pairedCpuVsPeer).toBeCloseTo(Number(oursMedian) / Number(peerMedian), 1);
  });

  it('runs a v1.0 workload on the 1.3.0 peer, and on ours once ours answers v1.0', { timeout: 120_000 }, async () => {
    const report: BenchReport = await runSuite(
      smoke({ servers: ['memory', 'peer', 'peer-v1'], workloads: ['W1v1'], durationMs: 1000 }),
      () => {},
      build,
    );
    expect(report.servers['peer-v1']).toMatch(/@a2a-js\/sdk 1\.3\.0 \(native v1\.0\).*bench\/servers\/peer-v1\.ts$/);
    const peer = report.rows.find((r) => r.workload === 'W1v1' && r.server === 'peer-v1');
    expect(peer, peer?.errorSamples?.join('; ')).toMatchObject({ outcome: 'measured', errors: 0 });
    expect(peer?.requests).toBeGreaterThan(0);
    // The 0.3.14 peer sits it out and says why.
    expect(report.rows.find((r) => r.workload === 'W1v1' && r.server === 'peer')).toMatchObject({ outcome: 'skipped' });
    const ours = report.rows.find((r) => r.workload === 'W1v1' && r.server === 'memory');
    if (ours?.outcome === 'not-yet-measured') {
      // A build without v1.0 says what it answered instead of timing a window of errors.
      expect(ours.reason).toMatch(/^not yet measured: this build does not answer v1\.0 \(.*-32009/);
      expect(report.notes.some((n) => n.startsWith('interleaved W1v1 '))).toBe(false);
    } else {
      expect(ours, ours?.errorSamples?.join('; ')).toMatchObject({ outcome: 'measured', errors: 0 });
      // Compared with the v1.0 peer, in the table and again in interleaved rounds.
      expect(ours?.cpuVsPeer).toBeCloseTo((ours?.cpuMicrosPerUnit ?? 0) / (peer?.cpuMicrosPerUnit ?? 1), 1);
      expect(report.notes.find((n) => n.startsWith('interleaved W1v1 '))).toMatch(/vs peer sdk v1 [\d.]+ µs/);
      expect(ours?.pairedCpuVsPeer).toBeGreaterThan(0);
    }
  });

  it('W9 pauses tasks and reads their memory; SOAK runs the mix and reads an RSS curve', { timeout: 90_000 }, async () => {
    const report: BenchReport = await runSuite(smoke({ workloads: ['W9', 'SOAK'] }), () => {}, build);
    const paused = report.rows.find((r) => r.workload === 'W9');
    expect(paused).toMatchObject({ server: 'memory', outcome: 'measured', errors: 0, requests: 200 });
    expect(paused?.memory?.tasks).toBe(200);
    const soak = report.rows.find((r) => r.workload === 'SOAK');
    expect(soak).toMatchObject({ server: 'memory', outcome: 'measured', errors: 0 });
    expect(soak?.requests).toBeGreaterThan(0);
    // A sample at the start, one every 10 s, one at the end.
    expect(soak?.soak?.samples.length).toBeGreaterThanOrEqual(3);
    expect(soak?.soak?.peakMb).toBeGreaterThanOrEqual(soak?.soak?.settledMb ?? Infinity);
    expect(formatTable(report)).toMatch(/RSS peak [\d.]+ MB, settled [\d.]+ MB/);
  });

  it('spreads the connections over every replica and sums their CPU', { timeout: 60_000 }, async () => {
    // Two stand-in replicas in this process; the generator runs in its own, as in a bench run.
    const served = [0, 0];
    const replicas = await Promise.all(
      served.map(async (_, i) => {
        const server = createHttpServer((req, res) => {
          served[i] = (served[i] ?? 0) + 1;
          req.resume();
          res.setHeader('content-type', 'application/json');
          res.end('{"jsonrpc":"2.0","id":1,"result":{"ok":true}}');
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
      }),
    );
    const generator = startGenerator();
    try {
      const standIn: ServerProcess = {
        kind: 'cluster',
        pids: [process.pid, process.pid],
        url: replicas[0]?.url ?? '',
        urls: replicas.map((r) => r.url),
        description: 'two stand-ins',
        runtime: 'vitest',
        backendPids: () => [process.pid],
        settle: () => Promise.resolve({ rssBytes: 0, heapUsedBytes: 0 }),
        memory: () => Promise.resolve(process.memoryUsage()),
        stop: () => Promise.resolve(),
      };
      const m = await generator.run(
        { origins: standIn.urls, request: { method: 'GET', path: '/' }, check: 'raw', connections: 4, warmupMs: 100, durationMs: 500 },
        standIn,
      );
      expect(m.result).toMatchObject({ errors: 0 });
      expect(m.result.requests).toBeGreaterThan(0);
      expect(served.every((n) => n > 0)).toBe(true);
      expect(Math.abs((served[0] ?? 0) - (served[1] ?? 0))).toBeLessThanOrEqual(Math.max(10, (served[0] ?? 0) * 0.5));
      // This process counted twice: the sum over the "replicas" is twice its own CPU.
      expect(m.serverCpuMicros).toBeGreaterThan(0);
      expect(m.backendCpuMicros).toBeGreaterThan(0);
      expect(m.serverRssBytes).toBeGreaterThan(2 * 10 * 1024 * 1024);
    } finally {
      await generator.close();
      await Promise.all(replicas.map((r) => new Promise<void>((resolve) => r.server.close(() => resolve()).closeAllConnections())));
    }
  });

  it('runs two replicas on PostgreSQL and Redis as one service, and drops its schema', ON_REPLICAS, async () => {
    const report = await runSuite(smoke({ servers: ['cluster'], workloads: ['W1', 'W3'], durationMs: 1000 }), () => {}, build);
    expect(report.servers.cluster).toMatch(
      /^2 replicas \(\d+, \d+\) of a2actor, postgres:\/\/127\.0\.0\.1:5432\/test\?schema=a2actor_bench_\w+, events redis:\/\/127\.0\.0\.1:6379, front end uws/,
    );
    expect(report.servers.cluster).toMatch(/; 2 × node --expose-gc bench\/\.build\/run-\w+\/bench\/servers\/ours\.js$/);
    expect(report.rows.map((r) => [r.workload, r.server, r.outcome])).toEqual([
      ['W1', 'cluster', 'measured'],
      ['W3', 'cluster', 'measured'],
    ]);
    for (const row of report.rows) {
      expect(row, row.errorSamples?.join('; ')).toMatchObject({ errors: 0 });
      expect(row.requests).toBeGreaterThan(0);
      expect(row.rps).toBeGreaterThan(0);
      expect(row.cpuMicrosPerUnit).toBeGreaterThan(0);
      expect(row.rssMb).toBeGreaterThan(0);
      expect(row.backendCpuMicrosPerUnit).toBeGreaterThanOrEqual(0);
    }
    const table = formatTable(report);
    expect(table).toMatch(/W1 JSON-RPC message\/send\s+ours 2×pg/);
    expect(table).toMatch(/PostgreSQL\+Redis CPU [\d.]+ µs\/unit/);
    expect(report.notes.some((n) => n.startsWith('ours 2×pg: 2 replicas'))).toBe(true);

    // The run's schema is gone with its tasks.
    const schema = /schema=(a2actor_bench_\w+)/.exec(report.servers.cluster ?? '')?.[1];
    const client = new pg.Client({ connectionString: CLUSTER_POSTGRES_URL });
    await client.connect();
    try {
      const left = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      expect(left.rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('--profile runs our server under --cpu-prof and summarizes the window', { timeout: 90_000 }, async () => {
    const report = await runSuite(smoke({ durationMs: 1000, profile: 'W1' }), () => {}, build);
    const [profile] = report.profiles ?? [];
    if (!profile) throw new Error(`no profile: ${report.notes.join('; ')}`);
    try {
      expect(report.rows).toHaveLength(1);
      expect(report.servers.memory).toMatch(/--cpu-prof/);
      expect(existsSync(profile.path)).toBe(true);
      expect(profile).toMatchObject({ server: 'memory', workload: 'W1', span: 'window' });
      expect(profile.busyMs).toBeGreaterThan(0);
      expect(profile.top.length).toBeGreaterThan(0);
      // Our compiled frames are mapped back to the TypeScript through tsc's source maps.
      const ours = profile.modules.find((m) => m.module.startsWith('ours'));
      expect(ours?.files?.every((f) => /^(src|machines)\/.+\.ts$/.test(f.module))).toBe(true);
    } finally {
      // bench/.build/profile-*/memory/CPU.*.cpuprofile
      rmSync(dirname(dirname(profile.path)), { recursive: true, force: true });
    }
  });
});

describe('the soak', () => {
  it("draws its operations by the issue's weights", () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 100; i++) {
      const op = pickOperation(i / 100);
      counts.set(op, (counts.get(op) ?? 0) + 1);
    }
    expect(Object.fromEntries(counts)).toEqual({ echo: 55, stream: 15, ask: 10, 'slow-cancel': 10, list: 10 });
  });

  it('settles on the median of the last third of its RSS samples', () => {
    const samples = [100, 400, 300, 250, 240, 260, 250, 245, 255].map((rssMb, i) => ({ atS: i * 10, rssMb }));
    expect(soakMemory(samples)).toMatchObject({ peakMb: 400, settledMb: 250, peakOverSettled: 1.6 });
  });
});
