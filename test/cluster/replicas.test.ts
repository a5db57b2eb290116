/**
 * Several replicas as one service: two CLI processes on two ports, one PostgreSQL (a schema of
 * their own) and one Redis. Every request works whichever replica it lands on.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, restCall, userMessage, type Json } from '../support/a2a.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { openSse, type SseEvent } from '../support/sse.js';
import { startReceiver, type Receiver } from '../support/webhook.js';
import { PG_URL, postgresOrRedisMissing, REDIS_URL } from '../support/services.js';

const NO_SERVICES = await postgresOrRedisMissing('replica suite');
const schema = `a2actor_replicas_${process.pid}_${Date.now() % 100000}`;
const LEASE_TTL = '2';

const replica = () =>
  spawnServer(['examples/scenario-agent.ts', '--store', `${PG_URL}?schema=${schema}`, '--events', REDIS_URL], {
    SERVICE_LEASE_TTL: LEASE_TTL,
    SERVICE_CANCEL_FORCE_TIMEOUT: '2',
    // Webhooks at a local receiver (loopback, allowlisted for this test only).
    SERVICE_PUSH_ALLOW_HTTP: 'true',
    SERVICE_PUSH_ALLOWED_HOSTS: '127.0.0.1',
  });

describe.skipIf(NO_SERVICES)('two replicas on PostgreSQL and Redis', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  const extra: ServerProcess[] = [];
  beforeAll(async () => {
    a = await replica();
    b = await replica();
  });
  afterAll(async () => {
    for (const p of [a, b, ...extra]) if (p && p.child.exitCode === null) await p.kill('SIGKILL');
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  });

  it('both are ready: store and event backend answer', async () => {
    for (const r of [a, b]) {
      const ready = await restCall(r.url, 'GET', '/v1/health/ready');
      expect(ready).toMatchObject({ status: 200, result: { status: 'ready', checks: { store: 'ok', events: 'ok' } } });
    }
  });

  it('an ask on A and the follow-up on B complete the same task', async () => {
    const first = await client(a.url, 'jsonrpc').send({ message: userMessage('ask where?') });
    expect(first.result.status.state).toBe('input-required');
    const done = await client(b.url, 'rest').send({ message: userMessage('here', { taskId: first.result.id }) });
    expect(done.result.id).toBe(first.result.id);
    expect(done.result.status.state).toBe('completed');
    expect(done.result.artifacts[0].parts[0].text).toBe('got: here');
    const seenOnA = await client(a.url, 'rest').get(first.result.id);
    expect(seenOnA.result.status.state).toBe('completed');
  });

  it('tasks/list on either replica shows both replicas’ tasks with the same pages', async () => {
    const onA = await client(a.url, 'rest').send({ message: userMessage('echo from a') });
    const contextId = onA.result.contextId;
    const ids = [onA.result.id];
    for (let i = 0; i < 5; i++) {
      const target = i % 2 ? a : b;
      const r = await client(target.url, 'jsonrpc').send({ message: userMessage(`echo ${i}`, { contextId }) });
      ids.push(r.result.id);
    }
    const pagesFrom = async (url: string) => {
      const seen: string[] = [];
      let token = '';
      for (let i = 0; i < 10; i++) {
        const page = await client(url, 'rest').list({ contextId, pageSize: 2, ...(token ? { pageToken: token } : {}) });
        expect(page.result.totalSize).toBe(6);
        seen.push(...page.result.tasks.map((t: Json) => t.id));
        token = page.result.nextPageToken;
        if (!token) break;
      }
      return seen;
    };
    const viaA = await pagesFrom(a.url);
    expect(viaA).toEqual(ids.slice().reverse());
    // A page token from one replica works on the other.
    const first = await client(a.url, 'rest').list({ contextId, pageSize: 2 });
    const second = await client(b.url, 'rest').list({ contextId, pageSize: 2, pageToken: first.result.nextPageToken });
    expect(second.result.tasks.map((t: Json) => t.id)).toEqual(viaA.slice(2, 4));
    expect(await pagesFrom(b.url)).toEqual(viaA);
  });

  it('message:stream on A; a subscriber on B mid-task gets every later event, and a resume on B with Last-Event-ID gets exactly the missed ones', async () => {
    const onA: SseEvent[] = [];
    let firstWorkingOnA: () => void = () => {};
    const working = new Promise<void>((resolve) => {
      firstWorkingOnA = resolve;
    });
    const streamA = await openSse(`${a.url}/v1/message:stream`, {
      body: { message: userMessage('slow 1200') },
      onEvent: (e) => {
        onA.push(e);
        if (e.data.kind === 'status-update' && e.data.status.message) firstWorkingOnA();
      },
    });
    await working;
    const taskId: string = onA[0]?.data.id;
    // Subscribe on B while the task runs on A.
    const subB = await openSse(`${b.url}/v1/tasks/${taskId}:subscribe`);
    expect(subB.status).toBe(200);
    // And a client that saw A's stream up to some id resumes on B.
    const resumeFrom = onA[2]?.id as string;
    const resumeB = await openSse(`${b.url}/v1/tasks/${taskId}:subscribe`, { headers: { 'last-event-id': resumeFrom } });

    const all = await streamA.events;
    const fromB = await subB.events;
    const resumed = await resumeB.events;
    const last = all.at(-1);
    expect(last?.data).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });

    // B's subscriber: the task first, then A's events after the snapshot's number, exactly.
    expect(fromB[0]?.data.kind).toBe('task');
    const snapshotSeq = Number(fromB[0]?.id);
    const expectedLive = all.filter((e) => e.id !== undefined && Number(e.id) > snapshotSeq);
    expect(fromB.slice(1)).toEqual(expectedLive);
    expect(fromB.at(-1)?.data.final).toBe(true);

    // The resume: exactly the events after the id it gave, nothing before, nothing twice.
    expect(resumed).toEqual(all.filter((e) => Number(e.id) > Number(resumeFrom)));
  });

  it('webhooks go out from the replica running each turn: every transition once, in order', async () => {
    const rx: Receiver = await startReceiver();
    try {
      const first = await client(a.url, 'jsonrpc').send({
        message: userMessage('ask which?'),
        configuration: { pushNotificationConfig: { url: rx.url, token: 'tok' } },
      });
      const id: string = first.result.id;
      const done = await client(b.url, 'rest').send({ message: userMessage('that one', { taskId: id }) });
      expect(done.result.status.state).toBe('completed');
      const bodies = await eventually(() => (rx.bodiesOf(id).length >= 4 ? rx.bodiesOf(id) : undefined), 10_000);
      // Give a duplicate (from the other replica, or a retry) the chance to show up.
      await new Promise((r) => setTimeout(r, 500));
      expect(rx.bodiesOf(id).map((x: Json) => x.status.state)).toEqual(['working', 'input-required', 'working', 'completed']);
      expect(new Set(bodies.map((x: Json) => x.status.timestamp)).size).toBe(4);
      expect(rx.received.filter((r) => r.body.id === id).every((r) => r.headers['x-a2a-notification-token'] === 'tok')).toBe(true);
    } finally {
      await rx.close();
    }
  });

  it('a cancel on B cancels the task running on A', async () => {
    const running = await client(a.url, 'jsonrpc').send({ message: userMessage('slow 60000'), configuration: { blocking: false } });
    await eventually(async () => {
      const g = await client(b.url, 'rest').get(running.result.id);
      return g.status === 200 && g.result.status.state === 'working' ? true : undefined;
    });
    const canceled = await client(b.url, 'rest').cancel(running.result.id);
    expect(canceled.status).toBe(200);
    expect(canceled.result.status.state).toBe('canceled');
    const onA = await client(a.url, 'rest').get(running.result.id);
    expect(onA.result.status.state).toBe('canceled');
  });

  it('each replica’s /metrics counts its Redis event-log appends and lease claims, and both backends are ready', async () => {
    // The work of the tests above ran on both replicas; one more streamed task on A makes sure.
    const streamed = await client(a.url, 'jsonrpc').send({ message: userMessage('stream 2') });
    expect(streamed.result.status.state).toBe('completed');
    /** The sum of a family's samples whose label text contains every one of `labels`. */
    const total = (text: string, name: string, ...labels: string[]): number =>
      text
        .split('\n')
        .filter((l) => l.startsWith(`${name}{`) && labels.every((label) => l.includes(label)))
        .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    for (const r of [a, b]) {
      const res = await fetch(`${r.url}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(total(text, 'a2actor_event_log_operations_total', 'operation="append"', 'outcome="ok"')).toBeGreaterThan(0);
      expect(total(text, 'a2actor_event_log_operations_total', 'outcome="error"')).toBe(0);
      expect(total(text, 'a2actor_lease_operations_total', 'operation="claim"', 'outcome="acquired"')).toBeGreaterThan(0);
      expect(total(text, 'a2actor_store_operation_duration_seconds_count', 'store="postgres"')).toBeGreaterThan(0);
      expect(total(text, 'a2actor_backend_ready', 'backend="store"')).toBe(1);
      expect(total(text, 'a2actor_backend_ready', 'backend="events"')).toBe(1);
    }
  });

  it('after A is killed, B fails A’s running task once its lease expires, and continues A’s paused task', async () => {
    const c = await replica();
    extra.push(c);
    const paused = await client(c.url, 'jsonrpc').send({ message: userMessage('ask still there?') });
    const running = await client(c.url, 'jsonrpc').send({ message: userMessage('slow 60000'), configuration: { blocking: false } });
    await eventually(async () => {
      const g = await client(b.url, 'rest').get(running.result.id);
      return g.status === 200 && g.result.status.state === 'working' ? true : undefined;
    });
    await c.kill('SIGKILL');

    const failed = await eventually(
      async () => {
        const g = await client(b.url, 'rest').get(running.result.id);
        return g.result.status.state === 'failed' ? g.result : undefined;
      },
      15_000,
      200,
    );
    expect(failed.status.message.parts[0].text).toMatch(/marked failed/);

    const continued = await client(b.url, 'rest').send({ message: userMessage('yes', { taskId: paused.result.id }) });
    expect(continued.result.status.state).toBe('completed');
    expect(continued.result.id).toBe(paused.result.id);
  });
});
