/**
 * The heapGrowthPercent setting reaches V8: `a2actor serve` runs under node's --trace-gc-verbose,
 * where V8 prints the limit it sets after every full collection and the growing factor it used
 * (`[HeapController] Limit: old size: … KB, new limit: … KB (1.7)`); a preload forces a full
 * collection every 100 ms so there are some after the server has started. V8's own factor is
 * dynamic (1.1 to 4.0), so every limit after the start line showing the configured one is V8
 * using the setting. An operator's own node flag wins over the setting.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSettings } from '../../src/config.js';
import { DURABLE_STORE_HEAP_GROWTH_PERCENT, heapGrowthPercentFor } from '../../src/heap-tuning.js';
import { createServer } from '../../src/index.js';
import echoAgent from '../../examples/echo-agent.js';
import { spawnServer } from '../support/process.js';

/** Forces a full collection every 100 ms without keeping the process alive. */
const FORCE_GC = 'data:text/javascript,setInterval(()=>globalThis.gc(),100).unref()';

/** The growing factors V8 printed after the CLI's start line, ~600 ms of forced collections. */
async function factorsAfterStart(nodeFlags: string[], env: Record<string, string>, store = 'memory'): Promise<string[]> {
  const server = await spawnServer(['examples/echo-agent.ts', '--store', store], env, 20_000, [
    '--expose-gc',
    '--trace-gc-verbose',
    ...nodeFlags,
    '--import',
    FORCE_GC,
  ]);
  // What V8 prints from here on: every limit it sets after the server has started.
  let afterStart = '';
  server.child.stdout?.on('data', (d: Buffer) => {
    afterStart += d.toString();
  });
  await new Promise((r) => setTimeout(r, 600));
  await server.kill('SIGKILL');
  return [...afterStart.matchAll(/\[HeapController\] Limit: .*\((\d+\.\d)\)/g)].map((m) => m[1] as string);
}

describe('heapGrowthPercent', () => {
  it('SERVICE_HEAP_GROWTH_PERCENT sets the factor V8 uses for its next full collections', async () => {
    const factors = await factorsAfterStart([], { SERVICE_HEAP_GROWTH_PERCENT: '70' });
    expect(factors.length).toBeGreaterThan(2);
    expect(new Set(factors)).toEqual(new Set(['1.7']));
  }, 30_000);

  it("node's own --heap-growing-percent wins over the setting", async () => {
    const factors = await factorsAfterStart(['--heap-growing-percent=40'], { SERVICE_HEAP_GROWTH_PERCENT: '70' });
    expect(factors.length).toBeGreaterThan(2);
    expect(new Set(factors)).toEqual(new Set(['1.4']));
  }, 30_000);

  it('by default gives a SQLite server a factor of 2.0 (100%)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2actor-heap-'));
    try {
      const factors = await factorsAfterStart([], {}, `sqlite:${join(dir, 'tasks.db')}`);
      expect(factors.length).toBeGreaterThan(2);
      expect(new Set(factors)).toEqual(new Set(['2.0']));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("by default leaves V8's own factor to the memory store (its heap grows with every task)", () => {
    const memory = { keepsTasksInProcess: true };
    const durable = {};
    expect(heapGrowthPercentFor('auto', memory)).toBe(0);
    expect(heapGrowthPercentFor('auto', durable)).toBe(DURABLE_STORE_HEAP_GROWTH_PERCENT);
    expect(heapGrowthPercentFor(70, memory)).toBe(70);
    expect(heapGrowthPercentFor(0, durable)).toBe(0);
  });

  it("a server not asked to tune leaves the factor alone: V8's own, whatever the setting says", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2actor-heap-'));
    const sqlite = await createServer({
      agent: echoAgent,
      port: 0,
      host: '127.0.0.1',
      store: `sqlite:${join(dir, 'tasks.db')}`,
      logLevel: 'silent',
      env: { SERVICE_HEAP_GROWTH_PERCENT: '70' },
    });
    try {
      expect(sqlite.heapGrowthPercent).toBe(0);
    } finally {
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a memory server asked to tune reports V8's own factor, a SQLite one 100%", async () => {
    const memory = await createServer({
      agent: echoAgent,
      port: 0,
      host: '127.0.0.1',
      store: 'memory',
      logLevel: 'silent',
      env: {},
      tuneHeap: true,
    });
    try {
      expect(memory.heapGrowthPercent).toBe(0);
    } finally {
      await memory.close();
    }
    const dir = mkdtempSync(join(tmpdir(), 'a2actor-heap-'));
    const sqlite = await createServer({
      agent: echoAgent,
      port: 0,
      host: '127.0.0.1',
      store: `sqlite:${join(dir, 'tasks.db')}`,
      logLevel: 'silent',
      env: {},
      tuneHeap: true,
    });
    try {
      expect(sqlite.heapGrowthPercent).toBe(DURABLE_STORE_HEAP_GROWTH_PERCENT);
    } finally {
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes auto (the default), 0 (V8 decides) or 10-300', () => {
    expect(resolveSettings({}, {}).heapGrowthPercent).toBe('auto');
    expect(resolveSettings({}, { SERVICE_HEAP_GROWTH_PERCENT: 'auto' }).heapGrowthPercent).toBe('auto');
    expect(resolveSettings({}, { SERVICE_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(resolveSettings({ heapGrowthPercent: 120 }, {}).heapGrowthPercent).toBe(120);
    expect(() => resolveSettings({}, { SERVICE_HEAP_GROWTH_PERCENT: '5' })).toThrow(/SERVICE_HEAP_GROWTH_PERCENT: use auto, 0/);
    expect(() => resolveSettings({}, { SERVICE_HEAP_GROWTH_PERCENT: 'big' })).toThrow(/SERVICE_HEAP_GROWTH_PERCENT/);
  });
});
