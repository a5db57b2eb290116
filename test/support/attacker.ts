/**
 * A hostile caller's attacks, run in a process of its own so that their cost (building and
 * reading huge bodies) never lands in the measuring process: `tsx test/support/attacker.ts
 * '<json plan>'`. It prints one JSON line of what it did, then exits.
 *
 * Every loop is bounded in count and by the plan's deadline; every address is the plan's
 * server, on 127.0.0.1.
 */
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';

export interface AttackPlan {
  url: string;
  /** Bob's credentials (an authenticated attacker). */
  headers: Record<string, string>;
  /** A task of bob's that is still running, to resubscribe to. */
  runningTask: string;
  durationMs: number;
}

export interface AttackReport {
  lists: number;
  listStatuses: Record<string, number>;
  bodies: number;
  bodyStatuses: Record<string, number>;
  streams: number;
  streamStatuses: Record<string, number>;
  resubscribes: number;
  resubscribeBytes: number;
}

const plan = JSON.parse(process.argv[2] ?? '{}') as AttackPlan;
process.stdout.write('attacking\n');
const deadline = performance.now() + plan.durationMs;
const report: AttackReport = {
  lists: 0,
  listStatuses: {},
  bodies: 0,
  bodyStatuses: {},
  streams: 0,
  streamStatuses: {},
  resubscribes: 0,
  resubscribeBytes: 0,
};
const count = (table: Record<string, number>, status: number | string): void => {
  table[status] = (table[status] ?? 0) + 1;
};

async function loop(max: number, step: () => Promise<void>): Promise<void> {
  for (let i = 0; i < max && performance.now() < deadline; i++) {
    await step().catch((err: unknown) => count(report.bodyStatuses, (err as Error).name));
  }
}

const rpc = (method: string, params: unknown, id: unknown = 1): string => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const message = (text: string) => ({ kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text }] });
const json = { 'content-type': 'application/json' };

const huge = Buffer.from(rpc('no/such/method', { pad: 'y'.repeat(9_900_000) }));
const longId = 'i'.repeat(2 * 1024 * 1024);
const open: AbortController[] = [];

await Promise.all([
  // Lists of big tasks, whole answers asked for, on both transports.
  loop(400, async () => {
    const res = await fetch(`${plan.url}/v1/tasks?includeArtifacts=true&historyLength=100`, { headers: plan.headers });
    await res.arrayBuffer();
    report.lists++;
    count(report.listStatuses, res.status);
  }),
  loop(400, async () => {
    const res = await fetch(`${plan.url}/`, {
      method: 'POST',
      headers: { ...json, ...plan.headers },
      body: rpc('tasks/list', { includeArtifacts: true }),
    });
    await res.arrayBuffer();
    report.lists++;
    count(report.listStatuses, res.status);
  }),
  // 9.9 MB bodies: two unauthenticated loops and an authenticated one.
  ...[{}, {}, plan.headers].map((headers) =>
    loop(200, async () => {
      const res = await fetch(`${plan.url}/`, { method: 'POST', headers: { ...json, ...headers }, body: huge });
      await res.arrayBuffer();
      report.bodies++;
      count(report.bodyStatuses, res.status);
    }),
  ),
  // Streams past any fair share, held open until the end: six openers at once, so the share is
  // passed within the attack however slowly each stream's head comes back.
  ...Array.from({ length: 6 }, () =>
    loop(50, async () => {
      const controller = new AbortController();
      const res = await fetch(`${plan.url}/`, {
        method: 'POST',
        headers: { ...json, accept: 'text/event-stream', ...plan.headers },
        body: rpc('message/stream', { message: message('slow 8000') }),
        signal: controller.signal,
      });
      report.streams++;
      count(report.streamStatuses, res.status);
      if (res.ok) {
        open.push(controller);
        void res.body?.pipeTo(new WritableStream()).catch(() => undefined);
      } else await res.arrayBuffer();
    }),
  ),
  // Resubscribes echoing a 2 MB id, read for a moment each.
  ...[0, 1].map(() =>
    loop(50, async () => {
      const controller = new AbortController();
      const res = await fetch(`${plan.url}/`, {
        method: 'POST',
        headers: { ...json, accept: 'text/event-stream', ...plan.headers },
        body: rpc('tasks/resubscribe', { id: plan.runningTask }, longId),
        signal: controller.signal,
      });
      report.resubscribes++;
      const stop = setTimeout(() => controller.abort(), 300);
      try {
        for await (const chunk of res.body ?? []) report.resubscribeBytes += (chunk as Uint8Array).byteLength;
      } catch {
        // aborted: the point of the exercise
      } finally {
        clearTimeout(stop);
      }
    }),
  ),
]);
for (const controller of open) controller.abort();
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
