/**
 * Webhook push delivery (spec "Push notifications (webhooks)", "Authentication" 2-3, "Limits")
 * against a real server and real HTTP receivers on 127.0.0.1, which the servers here allowlist.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, TRANSPORTS, userMessage, type A2AClient, type Json } from '../support/a2a.js';
import { captureLogs, type CapturedLogs } from '../support/logs.js';
import { startServer, STORE_KINDS, tempDir, type TestServer } from '../support/server.js';
import { openSse } from '../support/sse.js';
import { always, sequence, startReceiver, type Receiver } from '../support/webhook.js';

const TERMINAL = ['completed', 'failed', 'canceled', 'rejected'];
/** Loopback receivers over plain http: allowed explicitly, as a development setup would. */
const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };

const statesOf = (bodies: Json[]): string[] => bodies.map((b) => b.status.state);

/** Bodies a receiver got for one task, once it got the task's terminal state. */
const untilTerminal = (rx: Receiver, taskId: string, timeoutMs = 10_000): Promise<Json[]> =>
  eventually(() => {
    const bodies = rx.bodiesOf(taskId);
    return bodies.some((b) => TERMINAL.includes(b.status.state)) ? bodies : undefined;
  }, timeoutMs);

/** Every delivery finished and every worker gone: nothing is left in the push machinery. */
const pushSettled = (server: TestServer, timeoutMs = 10_000) =>
  eventually(() => {
    const p = server.stats().push;
    return p.workers === 0 && p.queued === 0 && p.inFlight === 0 ? p : undefined;
  }, timeoutMs);

function expectOrdered(bodies: Json[]): void {
  const timestamps = bodies.map((b) => b.status.timestamp as string);
  expect(timestamps).toEqual([...timestamps].sort());
  const states = statesOf(bodies);
  expect(states.filter((s) => TERMINAL.includes(s))).toHaveLength(1);
  expect(TERMINAL).toContain(states.at(-1));
}

describe.each(STORE_KINDS)('push delivery, %s store', (storeKind) => {
  let server: TestServer;
  let rx: Receiver;
  let logs: CapturedLogs;
  beforeAll(async () => {
    rx = await startReceiver();
    logs = captureLogs();
    server = await startServer({ storeKind, logger: logs.logger, ...LOCAL_PUSH, pushIdleTimeout: 1 });
  });
  afterAll(async () => {
    await server.stop();
    await rx.close();
  });

  describe.each(TRANSPORTS)('over %s', (transport) => {
    let a2a: A2AClient;
    beforeAll(() => {
      a2a = client(server.url, transport);
    });

    it('every transition of "slow 300" arrives in order, as the full task, with the token and Authorization headers', async () => {
      const secret = `tok-${transport}-${storeKind}`;
      const credentials = `cred-${transport}-${storeKind}`;
      const r = await a2a.send({
        message: userMessage('slow 300'),
        configuration: {
          blocking: false,
          pushNotificationConfig: { url: rx.url, token: secret, authentication: { schemes: ['Bearer'], credentials } },
        },
      });
      const id = r.result.id;
      const bodies = await untilTerminal(rx, id);
      const states = statesOf(bodies);
      // The inline config was stored before the task started: its first transition is delivered.
      expect(states[0]).toBe('working');
      expect(states.at(-1)).toBe('completed');
      expect(states.slice(0, -1).every((s) => s === 'working')).toBe(true);
      // submitted -> working, at least two status updates, then completed.
      expect(states.length).toBeGreaterThanOrEqual(4);
      expectOrdered(bodies);
      const left = bodies
        .map((b) => /(\d+) ms left/.exec(b.status.message?.parts?.[0]?.text ?? '')?.[1])
        .filter((n): n is string => n !== undefined)
        .map(Number);
      expect(left.length).toBeGreaterThanOrEqual(2);
      expect(left).toEqual([...left].sort((a, b) => b - a));

      for (const req of rx.received.filter((q) => q.body.id === id)) {
        expect(req.method).toBe('POST');
        expect(req.path).toBe('/hook');
        expect(req.headers['content-type']).toBe('application/json');
        expect(req.headers['x-a2a-notification-token']).toBe(secret);
        expect(req.headers.authorization).toBe(`Bearer ${credentials}`);
      }
      const last = bodies.at(-1);
      const stored = (await a2a.get(id)).result;
      expect(last).toMatchObject({ kind: 'task', id, contextId: r.result.contextId, status: { state: 'completed' } });
      expect(last.status.timestamp).toBe(stored.status.timestamp);
      expect(last.artifacts).toEqual(stored.artifacts);
      expect(last.metadata.stateTransitions).toEqual(stored.metadata.stateTransitions);
    });

    it('"ask" and its follow-up: every transition of both turns, in order', async () => {
      const first = await a2a.send({
        message: userMessage('ask which colour?'),
        configuration: { pushNotificationConfig: { url: rx.url } },
      });
      expect(first.result.status.state).toBe('input-required');
      const id = first.result.id;
      await eventually(() => (rx.bodiesOf(id).length === 2 ? true : undefined));
      const done = await a2a.send({ message: userMessage('blue', { taskId: id }) });
      expect(done.result.status.state).toBe('completed');
      const bodies = await untilTerminal(rx, id);
      expect(statesOf(bodies)).toEqual(['working', 'input-required', 'working', 'completed']);
      expect(bodies[1].status.message.parts[0].text).toBe('which colour?');
      expectOrdered(bodies);
      // No token or authentication in this config: no such headers.
      for (const req of rx.received.filter((q) => q.body.id === id)) {
        expect(req.headers['x-a2a-notification-token']).toBeUndefined();
        expect(req.headers.authorization).toBeUndefined();
      }
    });

    it('"fail" delivers working, then failed with the reason', async () => {
      const r = await a2a.send({
        message: userMessage('fail broke'),
        configuration: { pushNotificationConfig: { url: rx.url, token: 't' } },
      });
      expect(r.result.status.state).toBe('failed');
      const bodies = await untilTerminal(rx, r.result.id);
      expect(statesOf(bodies)).toEqual(['working', 'failed']);
      expect(bodies[1].status.message.parts[0].text).toBe('broke');
    });

    it('a handler that throws before any call delivers working as it was, then failed', async () => {
      const r = await a2a.send({
        message: userMessage('throw'),
        configuration: { pushNotificationConfig: { url: rx.url, token: 't' } },
      });
      expect(r.result.status.state).toBe('failed');
      const bodies = await untilTerminal(rx, r.result.id);
      expect(statesOf(bodies)).toEqual(['working', 'failed']);
      // The task changed (failed) before it was exposed: `working` still shows the task of then.
      expect(bodies[0].history).toHaveLength(1);
      expect(bodies[0].metadata.stateTransitions.map((t: Json) => t.state)).toEqual(['submitted', 'working']);
      expect(bodies[1].metadata.stateTransitions.map((t: Json) => t.state)).toEqual(['submitted', 'working', 'failed']);
    });

    it('a config given inline with a streaming send is delivered from the first transition', async () => {
      const params = { message: userMessage('slow 200'), configuration: { pushNotificationConfig: { url: rx.url } } };
      const stream =
        transport === 'rest'
          ? await openSse(`${server.url}/v1/message:stream`, { body: params })
          : await openSse(`${server.url}/`, { body: { jsonrpc: '2.0', id: 1, method: 'message/stream', params } });
      const events = await stream.events;
      const first = events[0]?.data;
      const id: string = transport === 'rest' ? first.id : first.result.id;
      const bodies = await untilTerminal(rx, id);
      expect(statesOf(bodies)[0]).toBe('working');
      expect(statesOf(bodies).at(-1)).toBe('completed');
      expectOrdered(bodies);
    });
  });

  it('two configs on one task (set over both transports) both receive every transition', async () => {
    const rx2 = await startReceiver();
    try {
      const a2a = client(server.url, 'rest');
      const first = await a2a.send({ message: userMessage('ask first?') });
      const id = first.result.id;
      const a = await client(server.url, 'jsonrpc').setPush(id, { id: 'a', url: rx.url, token: 'tok-a' });
      const b = await a2a.setPush(id, {
        id: 'b',
        url: rx2.url,
        token: 'tok-b',
        authentication: { schemes: ['Basic'], credentials: 'dXNlcjpwdw==' },
      });
      expect([a.result.pushNotificationConfig.id, b.result.pushNotificationConfig.id]).toEqual(['a', 'b']);
      await a2a.send({ message: userMessage('ask again?', { taskId: id }) });
      const done = await a2a.send({ message: userMessage('done', { taskId: id }) });
      expect(done.result.status.state).toBe('completed');
      const viaA = await untilTerminal(rx, id);
      const viaB = await untilTerminal(rx2, id);
      expect(statesOf(viaA)).toEqual(['working', 'input-required', 'working', 'completed']);
      expect(viaB).toEqual(viaA);
      expect(rx.received.filter((q) => q.body.id === id).every((q) => q.headers['x-a2a-notification-token'] === 'tok-a')).toBe(true);
      const headersB = rx2.received.map((q) => q.headers);
      expect(headersB.every((h) => h['x-a2a-notification-token'] === 'tok-b' && h.authorization === 'Basic dXNlcjpwdw==')).toBe(true);
    } finally {
      await rx2.close();
    }
  });

  it('a config added while the task is paused receives the transitions that follow', async () => {
    const a2a = client(server.url, 'jsonrpc');
    const first = await a2a.send({ message: userMessage('ask later?') });
    const id = first.result.id;
    await a2a.setPush(id, { url: rx.url });
    await a2a.send({ message: userMessage('now', { taskId: id }) });
    expect(statesOf(await untilTerminal(rx, id))).toEqual(['working', 'completed']);
  });

  it('a deleted config receives nothing more; an updated one (same id) goes to its new URL', async () => {
    const rx2 = await startReceiver();
    try {
      const a2a = client(server.url, 'rest');
      const deleted = await a2a.send({
        message: userMessage('ask delete?'),
        configuration: { pushNotificationConfig: { id: 'gone', url: rx.url } },
      });
      const moved = await a2a.send({
        message: userMessage('ask move?'),
        configuration: { pushNotificationConfig: { id: 'moving', url: rx.url } },
      });
      await eventually(() => (rx.bodiesOf(deleted.result.id).length === 2 && rx.bodiesOf(moved.result.id).length === 2 ? true : undefined));
      expect((await a2a.deletePush(deleted.result.id, 'gone')).status).toBe(204);
      expect((await a2a.setPush(moved.result.id, { id: 'moving', url: rx2.url })).status).toBe(200);
      await a2a.send({ message: userMessage('bye', { taskId: deleted.result.id }) });
      await a2a.send({ message: userMessage('bye', { taskId: moved.result.id }) });
      expect(statesOf(await untilTerminal(rx2, moved.result.id))).toEqual(['working', 'completed']);
      await pushSettled(server);
      expect(statesOf(rx.bodiesOf(deleted.result.id))).toEqual(['working', 'input-required']);
      expect(statesOf(rx.bodiesOf(moved.result.id))).toEqual(['working', 'input-required']);
    } finally {
      await rx2.close();
    }
  });

  it('a worker left idle by a paused task exits after push_idle_timeout; the next turn gets a new one', async () => {
    const a2a = client(server.url, 'rest');
    const first = await a2a.send({ message: userMessage('ask idle?'), configuration: { pushNotificationConfig: { url: rx.url } } });
    const id = first.result.id;
    await eventually(() => (rx.bodiesOf(id).length === 2 ? true : undefined));
    // The task is still input-required: only the idle timeout can end its worker.
    await pushSettled(server);
    expect((await a2a.get(id)).result.status.state).toBe('input-required');
    await a2a.send({ message: userMessage('back', { taskId: id }) });
    expect(statesOf(await untilTerminal(rx, id))).toEqual(['working', 'input-required', 'working', 'completed']);
  });

  it('leaves no worker, queued delivery or attempt behind, and never logs a token or credentials', async () => {
    await pushSettled(server);
    expect(logs.events('push.delivered').length).toBeGreaterThan(0);
    const text = logs.lines.join('\n');
    for (const secret of ['tok-', 'cred-', 'dXNlcjpwdw==']) expect(text).not.toContain(secret);
  });
});

describe('every kind of transition', () => {
  let server: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    server = await startServer({ ...LOCAL_PUSH, cancelGrace: 2 });
  });
  afterAll(async () => {
    await server.stop();
    await rx.close();
  });

  it('rejected, auth-required and its follow-up, and canceled are all delivered', async () => {
    const a2a = client(server.url, 'rest');
    const rejected = await a2a.send({ message: userMessage('reject nope'), configuration: { pushNotificationConfig: { url: rx.url } } });
    expect(statesOf(await untilTerminal(rx, rejected.result.id))).toEqual(['working', 'rejected']);

    const auth = await a2a.send({ message: userMessage('auth'), configuration: { pushNotificationConfig: { url: rx.url } } });
    expect(auth.result.status.state).toBe('auth-required');
    await a2a.send({ message: userMessage('token abc', { taskId: auth.result.id }) });
    expect(statesOf(await untilTerminal(rx, auth.result.id))).toEqual(['working', 'auth-required', 'working', 'completed']);

    const slow = await a2a.send({
      message: userMessage('slow 5000'),
      configuration: { blocking: false, pushNotificationConfig: { url: rx.url } },
    });
    await eventually(() => (rx.bodiesOf(slow.result.id).length >= 2 ? true : undefined));
    expect((await a2a.cancel(slow.result.id)).result.status.state).toBe('canceled');
    const bodies = await untilTerminal(rx, slow.result.id);
    expect(statesOf(bodies).at(-1)).toBe('canceled');
    expectOrdered(bodies);
  });

  it('a config given inline with a follow-up is registered before that turn starts', async () => {
    const a2a = client(server.url, 'jsonrpc');
    const first = await a2a.send({ message: userMessage('ask where?') });
    const done = await a2a.send({
      message: userMessage('here', { taskId: first.result.id }),
      configuration: { pushNotificationConfig: { url: rx.url } },
    });
    expect(done.result.status.state).toBe('completed');
    expect(statesOf(await untilTerminal(rx, first.result.id))).toEqual(['working', 'completed']);
  });

  it('configs are stored with the task: a paused task resumed after a restart still notifies', async () => {
    const { dir, cleanup } = tempDir();
    const sqlitePath = join(dir, 'tasks.db');
    try {
      const before = await startServer({ storeKind: 'sqlite', sqlitePath, ...LOCAL_PUSH });
      const first = await client(before.url, 'rest').send({
        message: userMessage('ask survive?'),
        configuration: { pushNotificationConfig: { url: rx.url, token: 'kept' } },
      });
      await eventually(() => (rx.bodiesOf(first.result.id).length === 2 ? true : undefined));
      await before.stop();
      const after = await startServer({ storeKind: 'sqlite', sqlitePath, ...LOCAL_PUSH });
      try {
        await client(after.url, 'rest').send({ message: userMessage('yes', { taskId: first.result.id }) });
        expect(statesOf(await untilTerminal(rx, first.result.id))).toEqual(['working', 'input-required', 'working', 'completed']);
        expect(
          rx.received.filter((q) => q.body.id === first.result.id).every((q) => q.headers['x-a2a-notification-token'] === 'kept'),
        ).toBe(true);
      } finally {
        await after.stop();
      }
    } finally {
      cleanup();
    }
  });
});

describe('retries', () => {
  let server: TestServer;
  let logs: CapturedLogs;
  const receivers: Receiver[] = [];
  const receiver = async (respond: Parameters<typeof startReceiver>[0]) => {
    const rx = await startReceiver(respond);
    receivers.push(rx);
    return rx;
  };
  beforeAll(async () => {
    logs = captureLogs();
    server = await startServer({ logger: logs.logger, ...LOCAL_PUSH, pushMaxRetries: 3, pushRetryDelay: 0.1 });
  });
  afterAll(async () => {
    await server.stop();
    await Promise.all(receivers.map((r) => r.close()));
  });

  /** A blocking "echo" task with an inline config: two deliveries, working then completed. */
  const echoTo = async (rx: Receiver, text = 'echo hi') => {
    const r = await client(server.url, 'rest').send({
      message: userMessage(text),
      configuration: { pushNotificationConfig: { url: rx.url } },
    });
    // Whatever the receiver does, the task's own result is unaffected.
    expect(r.result.status.state).toBe('completed');
    expect(r.result.artifacts[0].parts[0].text).toBe(text.replace(/^echo /, ''));
    return r.result.id as string;
  };
  const logsOf = (event: string, taskId: string) => logs.events(event).filter((e) => e.taskId === taskId);

  it('500 twice then 200: three attempts with growing gaps, then the next transition', async () => {
    const rx = await receiver({ respond: sequence([{ status: 500 }, { status: 500 }]) });
    const id = await echoTo(rx);
    await untilTerminal(rx, id);
    await pushSettled(server);
    expect(statesOf(rx.bodiesOf(id))).toEqual(['working', 'working', 'working', 'completed']);
    // A retry is the same delivery again: receivers deduplicate on (id, status.timestamp).
    expect(rx.received[1]?.body).toEqual(rx.received[0]?.body);
    expect(rx.received[2]?.body).toEqual(rx.received[0]?.body);
    const [t0, t1, t2] = rx.received.map((q) => q.at) as [number, number, number];
    expect(t2 - t1).toBeGreaterThan(t1 - t0);
    expect(logsOf('push.attempt_failed', id).map((e) => [e.attempt, e.reason, e.status])).toEqual([
      [1, 'http-500', 500],
      [2, 'http-500', 500],
    ]);
    expect(logsOf('push.delivery_failed', id)).toEqual([]);
  });

  it.each([502, 503, 429])('HTTP %i is retried', async (status) => {
    const rx = await receiver({ respond: sequence([{ status }]) });
    const id = await echoTo(rx);
    await untilTerminal(rx, id);
    await pushSettled(server);
    expect(statesOf(rx.bodiesOf(id))).toEqual(['working', 'working', 'completed']);
  });

  it('a dropped connection is retried', async () => {
    const rx = await receiver({ respond: sequence([{ reset: true }]) });
    const id = await echoTo(rx);
    await untilTerminal(rx, id);
    await pushSettled(server);
    expect(statesOf(rx.bodiesOf(id))).toEqual(['working', 'working', 'completed']);
    expect(logsOf('push.attempt_failed', id)).toHaveLength(1);
  });

  it.each([400, 401, 403, 404, 410, 422])('HTTP %i gets one attempt per delivery and is logged', async (status) => {
    const rx = await receiver({ respond: always({ status }) });
    const id = await echoTo(rx);
    await untilTerminal(rx, id);
    await pushSettled(server);
    expect(statesOf(rx.bodiesOf(id))).toEqual(['working', 'completed']);
    expect(logsOf('push.delivery_failed', id).map((e) => [e.state, e.attempts, e.reason])).toEqual([
      ['working', 1, `http-${status}`],
      ['completed', 1, `http-${status}`],
    ]);
  });

  it('a token or credentials no HTTP header can carry are refused at registration, never sent or logged', async () => {
    const rx = await receiver({});
    const a2a = client(server.url, 'rest');
    const inline = await a2a.send({
      message: userMessage('echo header'),
      configuration: { pushNotificationConfig: { url: rx.url, token: 'tok-line\r\nx-injected: 1' } },
    });
    expect(inline.status).toBe(400);
    expect(inline.error?.code).toBe(-32602);
    const paused = await a2a.send({ message: userMessage('ask q') });
    const bad = await a2a.setPush(paused.result.id, { url: rx.url, authentication: { schemes: ['Bearer'], credentials: 'cred\nx: y' } });
    expect(bad.status).toBe(400);
    expect(bad.error?.code).toBe(-32602);
    const rpc = await client(server.url, 'jsonrpc').setPush(paused.result.id, { url: rx.url, token: 'a\rb' });
    expect(rpc.error?.code).toBe(-32602);
    await pushSettled(server);
    expect(rx.received).toEqual([]);
    expect(logs.lines.join('\n')).not.toContain('tok-line');
    expect(logs.lines.join('\n')).not.toContain('cred');
  });

  it('a receiver that keeps failing gets push_max_retries attempts per delivery; the task does not care', async () => {
    const rx = await receiver({ respond: always({ status: 500 }) });
    const id = await echoTo(rx);
    await untilTerminal(rx, id);
    await pushSettled(server);
    expect(statesOf(rx.bodiesOf(id))).toEqual(['working', 'working', 'working', 'completed', 'completed', 'completed']);
    expect(logsOf('push.delivery_failed', id).map((e) => [e.state, e.attempts, e.reason])).toEqual([
      ['working', 3, 'http-500'],
      ['completed', 3, 'http-500'],
    ]);
    expect((await client(server.url, 'jsonrpc').get(id)).result.status.state).toBe('completed');
  });
});

describe('per-attempt timeout', () => {
  let server: TestServer;
  let rx: Receiver;
  let logs: CapturedLogs;
  beforeAll(async () => {
    rx = await startReceiver({ respond: always({ hang: true }) });
    logs = captureLogs();
    server = await startServer({ logger: logs.logger, ...LOCAL_PUSH, pushTimeout: 0.3, pushMaxRetries: 2, pushRetryDelay: 0.05 });
  });
  afterAll(async () => {
    await server.stop();
    await rx.close();
  });

  it('a receiver that never answers is given up on after push_timeout, attempt by attempt', async () => {
    const r = await client(server.url, 'jsonrpc').send({
      message: userMessage('echo patience'),
      configuration: { pushNotificationConfig: { url: rx.url } },
    });
    expect(r.result.status.state).toBe('completed');
    const id = r.result.id;
    await pushSettled(server);
    expect(statesOf(rx.bodiesOf(id))).toEqual(['working', 'working', 'completed', 'completed']);
    expect(logs.events('push.delivery_failed').map((e) => [e.state, e.attempts, e.reason])).toEqual([
      ['working', 2, 'timeout'],
      ['completed', 2, 'timeout'],
    ]);
    // Each timed-out attempt closed its connection.
    await eventually(() => (rx.inFlight === 0 ? true : undefined));
  });
});

describe('graceful shutdown', () => {
  it('close() lets queued deliveries finish within shutdown_grace', async () => {
    const rx = await startReceiver({ respond: always({ status: 200, delayMs: 50 }) });
    const server = await startServer({ ...LOCAL_PUSH, shutdownGrace: 10 });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await client(server.url, 'rest').send({
          message: userMessage(`echo ${i}`),
          configuration: { pushNotificationConfig: { url: rx.url } },
        });
        ids.push(r.result.id);
      }
      await server.stop();
      for (const id of ids) expect(statesOf(rx.bodiesOf(id))).toEqual(['working', 'completed']);
      expect(server.stats().push).toEqual({ workers: 0, queued: 0, inFlight: 0, cachedTasks: 0 });
    } finally {
      await server.stop();
      await rx.close();
    }
  });

  it('past shutdown_grace, close() drops what is left and says so', async () => {
    const rx = await startReceiver({ respond: always({ hang: true }) });
    const logs = captureLogs();
    const server = await startServer({ logger: logs.logger, ...LOCAL_PUSH, shutdownGrace: 0.2, pushTimeout: 60 });
    try {
      const r = await client(server.url, 'rest').send({
        message: userMessage('echo stuck'),
        configuration: { pushNotificationConfig: { url: rx.url } },
      });
      await eventually(() => (rx.received.length === 1 ? true : undefined));
      await server.stop();
      expect(logs.events('push.shutdown_dropped')).toEqual([expect.objectContaining({ deliveries: 2 })]);
      expect(statesOf(rx.bodiesOf(r.result.id))).toEqual(['working']);
      expect(server.stats().push).toEqual({ workers: 0, queued: 0, inFlight: 0, cachedTasks: 0 });
      // The aborted attempt's connection is gone too.
      await eventually(() => (rx.inFlight === 0 ? true : undefined));
    } finally {
      await server.stop();
      await rx.close();
    }
  });
});
