/**
 * What a task costs, in one process: a2actor on the memory store serving the bench echo agent,
 * `tasks` tasks sent over loopback (`--ask`: `ask …`, so they stay `input-required`; else echoed
 * and completed), then memory after a forced GC, per 1,000 tasks, split into heap (used and
 * committed) and off-heap. A diagnosis tool beside W5 and W9 (which measure the server in its
 * own process): `--snapshot <file>` writes a heap snapshot at the end to see what holds it.
 *
 * `node --expose-gc --import tsx bench/micro/task-memory.ts [tasks] [--ask] [--snapshot file]`
 */
import { writeHeapSnapshot } from 'node:v8';
import { createServer } from '../../src/index.js';
import echoAgent from '../agents/echo-agent.js';

const args = process.argv.slice(2);
const tasks = Number(args.find((a) => /^\d+$/.test(a)) ?? '5000');
const paused = args.includes('--ask');
const snapshotAt = args.includes('--snapshot') ? args[args.indexOf('--snapshot') + 1] : undefined;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const settle = async () => {
  gc();
  gc();
  await new Promise((r) => setTimeout(r, 250));
  gc();
  return process.memoryUsage();
};

const server = await createServer({
  agent: echoAgent,
  host: '127.0.0.1',
  port: 0,
  store: 'memory',
  logLevel: 'silent',
  env: {},
  metrics: false,
  // As `a2actor serve` tunes its process (src/heap-tuning.ts).
  tuneHeap: true,
});
let seq = 0;
async function send(): Promise<void> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'message/send',
    params: {
      message: {
        kind: 'message',
        role: 'user',
        messageId: `m-${seq++}`,
        parts: [{ kind: 'text', text: paused ? 'ask What colour should it be?' : 'hello from the bench' }],
      },
    },
  });
  const res = await fetch(`${server.url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const answer = (await res.json()) as { result?: { status?: { state?: string } } };
  if (answer.result?.status?.state !== (paused ? 'input-required' : 'completed'))
    throw new Error(`unexpected answer: ${JSON.stringify(answer).slice(0, 200)}`);
}
async function drive(n: number): Promise<void> {
  let left = n;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (left-- > 0) await send();
    }),
  );
}

await drive(1000); // warm-up: JIT, connections, first chunks
const before = await settle();
await drive(tasks);
const after = await settle();
const per1k = (a: number, b: number) => ((b - a) / 1024 / 1024 / tasks) * 1000;
process.stdout.write(
  `${tasks} ${paused ? 'paused' : 'completed'} tasks: rss ${per1k(before.rss, after.rss).toFixed(2)} MB/1k, heapUsed ${per1k(before.heapUsed, after.heapUsed).toFixed(2)} MB/1k, ` +
    `heapTotal ${per1k(before.heapTotal, after.heapTotal).toFixed(2)} MB/1k, ` +
    `external ${per1k(before.external, after.external).toFixed(2)} MB/1k, arrayBuffers ${per1k(before.arrayBuffers, after.arrayBuffers).toFixed(2)} MB/1k\n`,
);
if (snapshotAt) process.stdout.write(`heap snapshot: ${writeHeapSnapshot(snapshotAt)}\n`);
await server.close();
