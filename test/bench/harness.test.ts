/**
 * The bench harness itself (bench/): it reads its options as documented, and a two-second smoke
 * workload runs end to end against our server in its own process, driven by the load generator
 * in another, over real sockets. No timing is asserted: this machine is shared; only that the
 * run completed requests, without errors, into a well-formed report.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkResponse, checkStreamEvent } from '../../bench/load/checks.js';
import { SseReader } from '../../bench/load/sse.js';
import { OptionsError, parseOptions } from '../../bench/lib/options.js';
import { formatTable, writeReport } from '../../bench/lib/report.js';
import { runSuite, type BenchReport } from '../../bench/lib/suite.js';

describe('bench options', () => {
  it('defaults to every server and workload with windows that fit ten minutes', () => {
    const opts = parseOptions([], '/tmp/out');
    if (opts === 'help') throw new Error('unexpected help');
    expect(opts.servers).toEqual(['raw', 'memory', 'sqlite', 'peer']);
    expect(opts.workloads).toEqual(['W1', 'W2', 'W3', 'W4', 'W5', 'W6', 'W7', 'W8']);
    expect(opts).toMatchObject({ quick: false, warmupMs: 2000, durationMs: 8000, connections: 64, tasks: 100_000, outDir: '/tmp/out' });
  });

  it('--quick shortens every window and the memory workload', () => {
    const opts = parseOptions(['--quick'], '/tmp/out');
    if (opts === 'help') throw new Error('unexpected help');
    expect(opts).toMatchObject({ quick: true, durationMs: 1000, tasks: 3000 });
  });

  it('reads explicit settings, lists in canonical order, and --no-write', () => {
    const opts = parseOptions(['--duration', '2.5', '--connections', '8', '--servers', 'peer,memory', '--workloads', 'W3,W1', '--no-write'], '/x');
    if (opts === 'help') throw new Error('unexpected help');
    expect(opts).toMatchObject({ durationMs: 2500, connections: 8, servers: ['memory', 'peer'], workloads: ['W1', 'W3'], outDir: undefined });
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
    const task = (state: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, result: { kind: 'task', id: 't', status: { state }, artifacts: [{}] } });
    expect(checkResponse('rpc-completed', 200, task('completed'))).toBeUndefined();
    expect(checkResponse('rpc-completed', 200, task('failed'))).toMatch(/failed/);
    expect(checkResponse('rpc-completed', 200, '{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}}')).toMatch(/-32600/);
    expect(checkResponse('rest-completed', 201, '{"task":{"status":{"state":"TASK_STATE_COMPLETED"}}}')).toBeUndefined();
    expect(checkResponse('card', 500, '{}')).toMatch(/HTTP 500/);
    expect(checkStreamEvent('{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","final":true,"status":{"state":"completed"}}}')).toEqual({ final: true });
    expect(checkStreamEvent('{"jsonrpc":"2.0","id":1,"result":{"kind":"artifact-update"}}')).toEqual({ final: false });
  });
});

describe('bench smoke run', () => {
  it('drives W1 at our server for two seconds and reports it', { timeout: 90_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), 'a2actor-bench-test-'));
    try {
      const report: BenchReport = await runSuite({
        quick: true,
        warmupMs: 300,
        durationMs: 2000,
        connections: 8,
        tasks: 100,
        fillCapMs: 10_000,
        servers: ['memory'],
        workloads: ['W1'],
        outDir: out,
      });
      expect(report.schema).toBe('a2actor-bench/1');
      expect(report.machine.node).toBe(process.version);
      expect(report.machine.cores).toBeGreaterThan(0);
      expect(report.servers.memory).toMatch(/a2actor, memory/);
      expect(report.rows).toHaveLength(1);
      const [row] = report.rows;
      expect(row).toMatchObject({ workload: 'W1', server: 'memory', outcome: 'measured', errors: 0 });
      expect(row?.requests).toBeGreaterThan(0);
      expect(row?.rps).toBeGreaterThan(0);
      expect(row?.cpuMicrosPerUnit).toBeGreaterThan(0);
      expect(row?.rssMb).toBeGreaterThan(0);
      expect(row?.p99Ms).toBeGreaterThanOrEqual(row?.p50Ms ?? 0);

      expect(formatTable(report)).toMatch(/W1 JSON-RPC message\/send\s+ours mem/);
      const written: unknown = JSON.parse(readFileSync(writeReport(report, out), 'utf8'));
      expect(written).toEqual(JSON.parse(JSON.stringify(report)));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
