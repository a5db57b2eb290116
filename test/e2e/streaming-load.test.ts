/**
 * Streams under load and under misbehaving clients, checked through the server's own counters
 * (server.stats()), never by sleeping: 1,000 concurrent streams, clients that vanish at every
 * stage, a reader too slow for its events, and the heartbeat.
 */
import { createHook } from 'node:async_hooks';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent, MemoryTaskStore, type TaskStore } from '../../src/index.js';
import { createLogger } from '../../src/log.js';
import { client, eventually, TRANSPORTS, userMessage, type Json } from '../support/a2a.js';
import { startServer, type TestServer } from '../support/server.js';
import { expectConsecutiveIds, rebuildArtifacts, STREAM_5_EVENTS, streamMessage, subscribe, summarize } from '../support/streams.js';

/** A promise the test resolves when it chooses. */
function gate(): { promise: Promise<void>; open(): void } {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const CHUNK_TEXT = 'x'.repeat(32 * 1024);

/**
 * `early`: a status, then waits for the test's gate. `late`: waits for the gate before doing
 * anything (so the task is not exposed yet). `ask`: input-required. `firehose <n> [<m>]`: n
 * artifact chunks of 32 KiB (then, with m, the gate and m more).
 */
function testAgent(release: () => Promise<void>) {
  return defineAgent({
    card: {
      name: 'Load agent',
      description: 'Gated and firehose tasks for streaming tests',
      version: '1.0.0',
      skills: [{ id: 'load', name: 'load', description: 'load', tags: ['test'] }],
    },
    capabilities: { streaming: true },
    async handler(ctx) {
      const [command] = ctx.text.split(' ');
      if (command === 'early') {
        ctx.status('started');
        await release();
        return ctx.complete('released');
      }
      if (command === 'late') {
        await release();
        return ctx.complete('released');
      }
      if (command === 'ask') return ctx.requestInput('more?');
      if (command === 'firehose') {
        // n chunks; with a second number m, then the gate, then m more.
        const [n = 0, m] = ctx.text.split(' ').slice(1).map(Number);
        const total = n + (m ?? 0);
        for (let i = 0; i < total; i++) {
          if (i === n) await release();
          ctx.artifact({ artifactId: 'blob', parts: [{ kind: 'text', text: CHUNK_TEXT }], append: i > 0, lastChunk: i === total - 1 });
          if (i % 10 === 9) await new Promise((r) => setImmediate(r));
        }
        return ctx.complete();
      }
      return ctx.complete(ctx.text);
    },
  });
}

const idle = (s: ReturnType<TestServer['stats']>): boolean =>
  s.liveTasks === 0 && s.runningActors === 0 && s.pendingFlushes === 0 && s.subscribers === 0 && s.eventLogs === 0 && s.openStreams === 0;

describe('streaming under load', () => {
  let server: TestServer;
  beforeAll(async () => {
    // A short retention so that every event log is gone soon after its task ends. Without auth
    // every stream is the one caller's: its stream quota is raised to hold them all.
    server = await startServer({ storeKind: 'memory', eventRetention: 0.2, maxStreamsPerCaller: 1000 });
  });
  afterAll(() => server.stop());

  it('1,000 concurrent streams complete with every event delivered, in order', async () => {
    const N = 1000;
    const streams = await Promise.all(
      Array.from({ length: N }, (_, i) => streamMessage(server.url, TRANSPORTS[i % 2] ?? 'rest', { message: userMessage('stream 5') })),
    );
    const all = await Promise.all(streams.map((s) => s.items));
    const expected = STREAM_5_EVENTS;
    const ids = new Set<string>();
    for (const items of all) {
      expect(items.map((i) => summarize(i.data))).toEqual(expected);
      expectConsecutiveIds(items, 0);
      ids.add(items[0]?.data.id);
    }
    expect(ids.size).toBe(N);
    const stats = await eventually(() => (idle(server.stats()) ? server.stats() : undefined), 10_000);
    expect(stats.openStreams).toBe(0);
  }, 120_000);
});

describe('clients that go away', () => {
  let server: TestServer;
  let release = gate();
  let storeGate: ReturnType<typeof gate> | undefined;
  let storeWaiting = 0;

  beforeAll(async () => {
    const memory = new MemoryTaskStore();
    // Holding the idempotency lookup holds a new message before its stream is set up.
    const findTaskIdByMessage: TaskStore['findTaskIdByMessage'] = async (scope, messageId) => {
      if (storeGate) {
        storeWaiting++;
        await storeGate.promise;
        storeWaiting--;
      }
      return memory.findTaskIdByMessage(scope, messageId);
    };
    const store = new Proxy(memory, {
      get(target, prop) {
        if (prop === 'findTaskIdByMessage') return findTaskIdByMessage;
        const value: unknown = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    server = await startServer({ agent: testAgent(() => release.promise), taskStore: store, eventRetention: 0.2 });
  });
  afterAll(() => server.stop());

  const completedCount = async (): Promise<number> =>
    (await client(server.url, 'rest').list({ status: 'completed', pageSize: 1 })).result.totalSize;

  it('200 clients that vanish mid-stream leave no subscription, stream, timer or actor behind', async () => {
    release = gate();
    const before = await completedCount();
    // 100 streams of their own task, and 100 subscribers to those tasks; each reads a little and leaves.
    const streams = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        streamMessage(server.url, TRANSPORTS[i % 2] ?? 'rest', { message: userMessage('early') }, { stopAfter: 3 }),
      ),
    );
    const seen = await Promise.all(streams.map((s) => s.items));
    for (const items of seen)
      expect(items.map((i) => summarize(i.data))).toEqual(['task:submitted', 'status:working', 'status:working+msg']);
    const subscribers = await Promise.all(
      seen.map((items, i) => subscribe(server.url, TRANSPORTS[(i + 1) % 2] ?? 'rest', items[0]?.data.id, { stopAfter: 1 })),
    );
    for (const items of await Promise.all(subscribers.map((s) => s.items))) expect(items[0]?.data.kind).toBe('task');

    // Released at once, while every task is still running (they wait for the gate).
    await eventually(() => {
      const s = server.stats();
      return s.openStreams === 0 && s.subscribers === 0 ? true : undefined;
    });
    expect(server.stats()).toMatchObject({ liveTasks: 100, runningActors: 100 });

    // The tasks themselves run to their end.
    release.open();
    await eventually(() => (idle(server.stats()) ? true : undefined), 10_000);
    expect(await completedCount()).toBe(before + 100);
  });

  it('a client that leaves while message:stream waits for the task to show up releases everything', async () => {
    release = gate();
    const before = await completedCount();
    const controllers = Array.from({ length: 50 }, () => new AbortController());
    const pending = controllers.map((c, i) =>
      fetch(`${server.url}${i % 2 ? '/' : '/v1/message:stream'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(
          i % 2
            ? { jsonrpc: '2.0', id: i, method: 'message/stream', params: { message: userMessage('late') } }
            : { message: userMessage('late') },
        ),
        signal: c.signal,
      }).catch(() => undefined),
    );
    // Every stream is open and waiting (its task has not said anything yet).
    await eventually(() => {
      const s = server.stats();
      return s.openStreams === 50 && s.liveTasks === 50 ? true : undefined;
    });
    for (const c of controllers) c.abort();
    await Promise.all(pending);
    await eventually(() => {
      const s = server.stats();
      return s.openStreams === 0 && s.subscribers === 0 ? true : undefined;
    });
    expect(server.stats().liveTasks).toBe(50);
    release.open();
    await eventually(() => (idle(server.stats()) ? true : undefined), 10_000);
    expect(await completedCount()).toBe(before + 50);
  });

  it('a client that leaves before the stream is even set up leaves nothing behind', async () => {
    const before = await completedCount();
    storeGate = gate();
    const controllers = Array.from({ length: 20 }, () => new AbortController());
    const pending = controllers.map((c) =>
      fetch(`${server.url}/v1/message:stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ message: userMessage('echo hi') }),
        signal: c.signal,
      }).catch(() => undefined),
    );
    await eventually(() => (storeWaiting === 20 ? true : undefined));
    for (const c of controllers) c.abort();
    await Promise.all(pending);
    // Let the held messages go on: their tasks start and end with nobody to stream them to.
    const held = storeGate;
    storeGate = undefined;
    held.open();
    await eventually(async () => ((await completedCount()) === before + 20 ? true : undefined));
    await eventually(() => (idle(server.stats()) ? true : undefined), 10_000);
  });
});

/** A raw HTTP/1.1 request whose response is never read (until the test says so). */
async function stalledRequest(port: number, method: string, path: string, headers: Record<string, string>, body = ''): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const head = Object.entries({ host: '127.0.0.1', 'content-length': String(Buffer.byteLength(body)), ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n${body}`);
  socket.pause();
  return socket;
}

describe('a reader slower than its events', () => {
  let server: TestServer;
  const lines: Json[] = [];
  const CAP = 64 * 1024;
  let fire = gate();
  let atGate = 0;

  beforeAll(async () => {
    const logger = createLogger('warn', (line) => lines.push(JSON.parse(line)));
    server = await startServer({
      agent: testAgent(() => {
        atGate++;
        return fire.promise;
      }),
      logger,
      sseMaxBufferedBytes: CAP,
      sseHeartbeat: 0.05,
      eventReplay: 400,
      // The resumes below replay up to 9.6 MB of events.
      eventReplayMaxBytes: 16 * 1024 * 1024,
      // The firehose's one artifact grows to 800 chunks (25.6 MB).
      maxArtifactBytes: 64 * 1024 * 1024,
      maxTaskBytes: 64 * 1024 * 1024,
      eventRetention: 30,
      // A progress write stores the whole task, which grows to 25.6 MB here: one per 250 ms made
      // these tests' pace the store's, and they are about the event log, not progress writes.
      progressFlushInterval: 10,
    });
  });
  afterAll(() => server.stop());

  const cutOff = (taskId: string) => () => lines.find((l) => l.event === 'sse.slow_consumer_closed' && l.taskId === taskId);

  it('is cut off past the buffer cap with a clear log line, then resumes with Last-Event-ID', async () => {
    const CHUNKS = 300; // 9.6 MB: more than the kernel's socket buffers take in
    const body = JSON.stringify({ message: userMessage(`firehose ${CHUNKS}`) });
    // Never read: the kernel buffers fill, then the server's queue, then the cap.
    const socket = await stalledRequest(server.port, 'POST', '/v1/message:stream', { 'content-type': 'application/json' }, body);
    try {
      const line = await eventually(() => lines.find((l) => l.event === 'sse.slow_consumer_closed'), 20_000);
      expect(line.level).toBe('warn');
      expect(line.limit).toBe(CAP);
      // What waited for the reader stayed within the cap plus the one event that crossed it.
      expect(line.queuedBytes).toBeLessThanOrEqual(CAP + CHUNK_TEXT.length + 1024);
      expect(typeof line.taskId).toBe('string');
      await eventually(() => (server.stats().openStreams === 0 && server.stats().subscribers === 0 ? true : undefined));

      // The task ran to its end regardless.
      await eventually(() => (server.stats().liveTasks === 0 ? true : undefined), 20_000);

      // The client comes back and gets every event it had not read, up to the final one.
      const resumed = await (await subscribe(server.url, 'rest', line.taskId, { lastEventId: 0 })).items;
      expectConsecutiveIds(resumed, 1);
      expect(resumed.at(-1)?.data).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
      const rebuilt = rebuildArtifacts(resumed);
      expect(rebuilt[0].parts).toHaveLength(CHUNKS);
    } finally {
      socket.destroy();
    }
  });

  it('a resume that falls further behind than the log holds is cut off, not fed from memory', async () => {
    fire = gate();
    atGate = 0;
    const a2a = client(server.url, 'rest');
    const sent = await a2a.send({ message: userMessage('firehose 300 500'), configuration: { blocking: false } });
    const taskId: string = sent.result.id;
    await eventually(() => (atGate === 1 ? true : undefined));
    const events = server.service.events;
    const beforeGate = events.lastSeq(taskId);
    // Catching up on 300 events (9.6 MB) without reading: the replay stops at the socket's limit
    // and waits, with nothing queued.
    const socket = await stalledRequest(server.port, 'POST', `/v1/tasks/${taskId}:subscribe`, { 'last-event-id': '1' });
    try {
      await eventually(() => (server.stats().openStreams === 1 ? true : undefined));
      // Meanwhile the task runs on past the 400 events the log keeps, until the log holds none of
      // the events the replay stopped in (counted in events, not waited for in time: the task's
      // own pace on a loaded machine does not matter).
      fire.open();
      await eventually(() => (events.since(taskId, beforeGate) === undefined ? true : undefined), 20_000);
      // Once the replay may go on (the client reads, or the kernel took more), what it needs
      // next is gone from the log: the client is dropped rather than fed from memory.
      socket.resume();
      const line = await eventually(cutOff(taskId), 20_000);
      expect(line.reason).toMatch(/behind/);
      expect(line.queuedBytes).toBe(0);
      expect(Number(line.lastEventId)).toBeLessThanOrEqual(beforeGate);
      await eventually(() => (server.stats().openStreams === 0 ? true : undefined));
      // Resuming from where it was, once the task has ended, gets the task as it stands, which
      // holds everything.
      await eventually(() => (server.stats().liveTasks === 0 ? true : undefined), 20_000);
      const resumed = await (await subscribe(server.url, 'rest', taskId, { lastEventId: line.lastEventId })).items;
      expect(resumed.map((i) => summarize(i.data))).toEqual(['task:completed']);
      expect(resumed[0]?.data.artifacts[0].parts).toHaveLength(800);
    } finally {
      socket.destroy();
    }
  });

  it('an idle stream carries `: ping` heartbeats', async () => {
    const a2a = client(server.url, 'rest');
    const paused = await a2a.send({ message: userMessage('ask') });
    expect(paused.result.status.state).toBe('input-required');
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/tasks/${paused.result.id}:subscribe`, { method: 'POST', signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const decoder = new TextDecoder();
    let text = '';
    const reader = res.body?.getReader();
    try {
      const found = await eventually(
        async () => {
          const chunk = await reader?.read();
          text += decoder.decode(chunk?.value ?? new Uint8Array(), { stream: true });
          return text.split('\n\n').filter((block) => block === ': ping').length >= 2 ? true : undefined;
        },
        5000,
        0,
      );
      expect(found).toBe(true);
      // Pings are comments that clients skip; the first event is still the task.
      expect(
        text
          .split('\n\n')
          .find((block) => !block.startsWith(':'))
          ?.startsWith('id: '),
      ).toBe(true);
    } finally {
      controller.abort();
    }
  });

  it('many idle streams are all pinged by one shared timer, not a timer each', async () => {
    const STREAMS = 20;
    const a2a = client(server.url, 'rest');
    const taskIds: string[] = [];
    for (let i = 0; i < STREAMS; i++) taskIds.push((await a2a.send({ message: userMessage('ask') })).result.id);
    // Heartbeat timers are unref'd (getActiveResourcesInfo leaves them out): count creations.
    let timersMade = 0;
    const hook = createHook({
      init: (_id, type) => {
        if (type === 'Timeout') timersMade++;
      },
    }).enable();
    const controller = new AbortController();
    try {
      const pinged = await Promise.all(
        taskIds.map(async (id) => {
          const res = await fetch(`${server.url}/v1/tasks/${id}:subscribe`, { method: 'POST', signal: controller.signal });
          const reader = res.body?.getReader();
          const decoder = new TextDecoder();
          let text = '';
          // Two pings: the one that opens the stream, then one from the heartbeat.
          while (text.split('\n\n').filter((block) => block === ': ping').length < 2) {
            const chunk = await reader?.read();
            if (!chunk || chunk.done) return false;
            text += decoder.decode(chunk.value, { stream: true });
          }
          return true;
        }),
      );
      expect(pinged).toEqual(taskIds.map(() => true));
      expect(server.stats().openStreams).toBe(STREAMS);
      // The server shares this process: 20 streams made the heartbeat's one timer, not 20 (the
      // client's fetch may make one or two of its own).
      expect(timersMade).toBeLessThan(STREAMS / 4);
    } finally {
      hook.disable();
      controller.abort();
    }
    await eventually(() => (server.stats().openStreams === 0 ? true : undefined), 5000);
  });
});
