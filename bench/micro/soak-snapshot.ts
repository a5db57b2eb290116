/**
 * What the soak's live heap holds: a2actor in this process (SQLite store in a temp dir, the
 * bench echo agent) under the soak's mixed load from a generator process, then, after
 * `seconds`, a forced GC and a heap snapshot of what survived it.
 *
 * `node --expose-gc --import tsx bench/micro/soak-snapshot.ts <seconds> <snapshot file>`
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { createServer } from '../../src/index.js';
import echoAgent from '../agents/echo-agent.js';
import type { GeneratorCommand, GeneratorMessage } from '../lib/types.js';

const seconds = Number(process.argv[2] ?? '60');
const file = process.argv[3] ?? 'soak.heapsnapshot';
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const dir = mkdtempSync(join(tmpdir(), 'a2actor-soak-'));
const server = await createServer({
  agent: echoAgent,
  host: '127.0.0.1',
  port: 0,
  store: `sqlite:${join(dir, 'soak.db')}`,
  logLevel: 'silent',
  env: {},
  metrics: false,
  // As `a2actor serve` tunes its process (src/heap-tuning.ts).
  tuneHeap: true,
});
const generator = fork(fileURLToPath(new URL('../load/generator.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'] });
const done = new Promise<void>((resolve) =>
  generator.on('message', (m: GeneratorMessage) => {
    if (m.type === 'result') process.stdout.write(`soak: ${m.result.requests} ops, ${m.result.errors} errors\n`);
    if (m.type === 'result' || m.type === 'failed') resolve();
  }),
);
const command: GeneratorCommand = {
  type: 'run',
  spec: {
    origins: [server.url],
    request: { method: 'POST', path: '/' },
    check: 'mix',
    mix: 'soak',
    connections: 32,
    warmupMs: 0,
    durationMs: seconds * 1000 + 5000,
  },
};
generator.send(command);
/** Each V8 space's used/committed MB: which one holds the heap's headroom. */
const spaces = (): string =>
  getHeapSpaceStatistics()
    .filter((s) => s.space_size >= 2 ** 20)
    .map((s) => `${s.space_name.replace(/_space$/, '')} ${(s.space_used_size / 2 ** 20).toFixed(0)}/${(s.space_size / 2 ** 20).toFixed(0)}`)
    .join(' ');
const timer = setInterval(() => {
  const m = process.memoryUsage();
  process.stdout.write(
    `rss ${(m.rss / 2 ** 20).toFixed(0)} heap ${(m.heapUsed / 2 ** 20).toFixed(0)}/${(m.heapTotal / 2 ** 20).toFixed(0)} ${spaces()}\n`,
  );
}, 10_000);
await new Promise((r) => setTimeout(r, seconds * 1000));
gc();
gc();
const m = process.memoryUsage();
process.stdout.write(
  `after GC: rss ${(m.rss / 2 ** 20).toFixed(0)} heap ${(m.heapUsed / 2 ** 20).toFixed(0)}/${(m.heapTotal / 2 ** 20).toFixed(0)}\n`,
);
process.stdout.write(`heap snapshot: ${writeHeapSnapshot(file)}\n`);
process.stdout.write(`${JSON.stringify({ events: server.service.events.stats(), service: server.service.stats() })}\n`);
clearInterval(timer);
await done;
generator.disconnect();
await server.close();
rmSync(dir, { recursive: true, force: true });
