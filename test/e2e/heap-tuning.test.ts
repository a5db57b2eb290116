/**
 * The heapGrowthPercent setting reaches V8: `a2actor serve` runs under node's --trace-gc-verbose,
 * where V8 prints the limit it sets after every full collection and the growing factor it used
 * (`[HeapController] Limit: old size: … KB, new limit: … KB (1.7)`); a preload forces a full
 * collection every 100 ms so there are some after the server has started. V8's own factor is
 * dynamic (1.1 to 4.0), so every limit after the start line showing the configured one is V8
 * using the setting. An operator's own node flag wins over the setting.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../src/config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Forces a full collection every 100 ms without keeping the process alive. */
const FORCE_GC = 'data:text/javascript,setInterval(()=>globalThis.gc(),100).unref()';

/** The growing factors V8 printed after the CLI's start line, ~600 ms of forced collections. */
async function factorsAfterStart(nodeFlags: string[], env: Record<string, string>): Promise<string[]> {
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--trace-gc-verbose',
      ...nodeFlags,
      '--import',
      FORCE_GC,
      '--import',
      'tsx',
      'src/cli/main.ts',
      'serve',
      'examples/echo-agent.ts',
      '--store',
      'memory',
      '--port',
      '0',
    ],
    { cwd: ROOT, env: { ...process.env, SERVICE_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 20_000;
  while (!out.includes('listening on') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 600));
  child.kill('SIGKILL');
  await exited;
  expect(out).toContain('listening on');
  const afterStart = out.slice(out.indexOf('listening on'));
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

  it('takes 0 (V8 decides) or 10-300', () => {
    expect(resolveSettings({}, {}).heapGrowthPercent).toBe(0); // off unless asked: it costs the memory store CPU
    expect(resolveSettings({}, { SERVICE_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(resolveSettings({ heapGrowthPercent: 120 }, {}).heapGrowthPercent).toBe(120);
    expect(() => resolveSettings({}, { SERVICE_HEAP_GROWTH_PERCENT: '5' })).toThrow(/SERVICE_HEAP_GROWTH_PERCENT: use 0/);
  });
});
