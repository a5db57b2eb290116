/**
 * No timer, actor, listener or live record outlives its task: 10,000 tasks of every kind over
 * real HTTP, then the server's own counters must return to zero.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, userMessage } from '../support/a2a.js';
import { startServer, type TestServer } from '../support/server.js';

const TASKS = 10_000;
const CONCURRENCY = 50;
const COMMANDS = ['echo hi', 'direct hi', 'fail x', 'reject x', 'throw', 'stream 2', 'ask q', 'data', 'auth', 'background 5', 'background'];

describe('resource leaks', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ storeKind: 'memory' });
  });
  afterAll(() => server.stop());

  it(`${TASKS} tasks leave zero live actors, timers and subscriptions`, async () => {
    const rpc = client(server.url, 'jsonrpc');
    const rest = client(server.url, 'rest');
    const states = new Map<string, number>();
    let next = 0;
    const worker = async () => {
      while (next < TASKS) {
        const i = next++;
        const a = i % 2 ? rpc : rest;
        const r = await a.send({ message: userMessage(COMMANDS[i % COMMANDS.length] ?? 'echo') });
        const key = r.result?.kind === 'message' ? 'message' : (r.result?.status?.state ?? `error ${r.error?.code}`);
        states.set(key, (states.get(key) ?? 0) + 1);
        // Paused tasks are ended by a cancel or a follow-up, alternately.
        if (r.result?.status?.state === 'input-required' || r.result?.status?.state === 'auth-required') {
          if (i % 4 < 2) await a.cancel(r.result.id);
          else await a.send({ message: userMessage('done', { taskId: r.result.id }) });
        }
        // A task left working in the background ends by itself (`background 5`) or by a cancel.
        if (COMMANDS[i % COMMANDS.length] === 'background') await a.cancel(r.result.id);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect([...states.keys()].sort()).toEqual(['auth-required', 'completed', 'failed', 'input-required', 'message', 'rejected', 'working']);
    const stats = await eventually(() => {
      const s = server.stats();
      return s.liveTasks === 0 &&
        s.runningActors === 0 &&
        s.pendingFlushes === 0 &&
        s.subscribers === 0 &&
        s.eventLogs === 0 &&
        s.push.cachedTasks === 0
        ? s
        : undefined;
    }, 10_000);
    expect(stats).toMatchObject({
      liveTasks: 0,
      runningActors: 0,
      pendingFlushes: 0,
      subscribers: 0,
      eventLogs: 0,
      openStreams: 0,
      push: { workers: 0, queued: 0, inFlight: 0, cachedTasks: 0 },
    });
  }, 120_000);
});
