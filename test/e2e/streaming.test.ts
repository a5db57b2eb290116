/**
 * Streaming over SSE (spec "POST /v1/message:stream", "POST /v1/tasks/{task_id}:subscribe",
 * "SSE events"; wire reference §2.3, §3.4) on both transports against a real server: the exact
 * event order of every scenario, subscribe, `Last-Event-ID` replay, errors, the capability
 * gate and several subscribers on one task.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, restCall, rpcCall, TRANSPORTS, userMessage, type Json } from '../support/a2a.js';
import { rawExchange, rawRequest } from '../support/raw-http.js';
import { startServer, type TestServer } from '../support/server.js';
import {
  comparable,
  expectConsecutiveIds,
  rebuildArtifacts,
  STREAM_5_EVENTS,
  streamMessage,
  subscribe,
  summarize,
  type StreamItem,
} from '../support/streams.js';
import { MemoryEventLog } from '../../src/index.js';

const texts = (items: StreamItem[]): string[] =>
  items.filter((i) => i.data.kind === 'artifact-update').flatMap((i) => i.data.artifact.parts.map((p: Json) => p.text));
const chunks = (n: number, from = 1): string[] => Array.from({ length: n - from + 1 }, (_, k) => `chunk ${from + k}\n`);

describe('streaming', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ storeKind: 'memory' });
  });
  afterAll(() => server.stop());

  describe.each(TRANSPORTS)('over %s', (transport) => {
    const stream = async (text: string, extra: Record<string, unknown> = {}) => {
      const s = await streamMessage(server.url, transport, { message: userMessage(text, extra) });
      expect(s.status).toBe(200);
      expect(s.contentType).toMatch(/^text\/event-stream/);
      return s.items;
    };

    it('"stream 5": the task, working, five chunks as emitted, then completed (final)', async () => {
      const items = await stream('stream 5');
      expect(items.map((i) => summarize(i.data))).toEqual(STREAM_5_EVENTS);
      expectConsecutiveIds(items, 0);
      expect(texts(items)).toEqual(chunks(5));
      const task = items[0]?.data;
      for (const { data } of items.slice(1)) expect(data).toMatchObject({ taskId: task.id, contextId: task.contextId });
      // The stream and the stored task agree.
      const stored = await client(server.url, transport).get(task.id);
      expect(rebuildArtifacts(items)).toEqual(stored.result.artifacts);
      expect(stored.result.metadata._eventSeq).toBe(items.at(-1)?.id);
    });

    it('"slow 500": a bare working event, one event per intermediate status, then completed', async () => {
      const items = await stream('slow 500');
      const lines = items.map((i) => summarize(i.data));
      expect(lines.slice(0, 2)).toEqual(['task:submitted', 'status:working']);
      expect(lines.slice(-2)).toEqual(['artifact:final-answer:new:last', 'status:completed:final']);
      const middle = lines.slice(2, -2);
      expect(middle.length).toBeGreaterThan(0);
      expect(new Set(middle)).toEqual(new Set(['status:working+msg']));
      expect(items.slice(2, -2).every((i) => /ms left$/.test(i.data.status.message.parts[0].text))).toBe(true);
      expectConsecutiveIds(items, 0);
      expect(items.at(-2)?.data.artifact.parts[0].text).toBe('slept 500 ms');
    });

    it('"ask": working, then input-required (final) with the question; follow-ups stream the next turn', async () => {
      const first = await stream('ask what colour?');
      expect(first.map((i) => summarize(i.data))).toEqual(['task:submitted', 'status:working', 'status:input-required+msg:final']);
      expect(first.at(-1)?.data.status.message.parts[0].text).toBe('what colour?');
      expectConsecutiveIds(first, 0);
      const task = first[0]?.data;

      // Event ids go on across turns: the next turn's stream starts where this one stopped.
      const second = await stream('ask and the shade?', { taskId: task.id });
      expect(second.map((i) => summarize(i.data))).toEqual(['task:input-required', 'status:working', 'status:input-required+msg:final']);
      expect(second[0]?.data.id).toBe(task.id);
      expectConsecutiveIds(second, 2);

      const third = await stream('blue', { taskId: task.id, contextId: task.contextId });
      expect(third.map((i) => summarize(i.data))).toEqual([
        'task:input-required',
        'status:working',
        'artifact:final-answer:new:last',
        'status:completed:final',
      ]);
      expectConsecutiveIds(third, 4);
      expect(third.at(-2)?.data.artifact.parts[0].text).toBe('got: blue');
    });

    it('"direct": one Message event without an id, then the stream ends', async () => {
      const items = await stream('direct hi there');
      expect(items).toHaveLength(1);
      expect(items[0]?.id).toBeUndefined();
      expect(items[0]?.data).toMatchObject({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'hi there' }] });
      expect(items[0]?.data.taskId).toBeUndefined();
    });

    it('"fail": working, then failed (final) with the reason', async () => {
      const items = await stream('fail broke');
      expect(items.map((i) => summarize(i.data))).toEqual(['task:submitted', 'status:working', 'status:failed+msg:final']);
      expect(items.at(-1)?.data.status.message.parts[0].text).toBe('broke');
      expectConsecutiveIds(items, 0);
    });

    it('the same messageId streamed again shows the task it produced', async () => {
      const message = userMessage('echo once');
      const first = await (await streamMessage(server.url, transport, { message })).items;
      const again = await (await streamMessage(server.url, transport, { message })).items;
      expect(again.map((i) => summarize(i.data))).toEqual(['task:completed']);
      expect(again[0]?.data.id).toBe(first[0]?.data.id);
      // A task that waits for the client ends the repeated stream too, as its turn did.
      const question = userMessage('ask again?');
      await (
        await streamMessage(server.url, transport, { message: question })
      ).items;
      const repeated = await (await streamMessage(server.url, transport, { message: question })).items;
      expect(repeated.map((i) => summarize(i.data))).toEqual(['task:input-required']);
    });

    it('subscribe mid-task: the task as it stands, then every later event until the final one', async () => {
      const a2a = client(server.url, transport);
      const sent = await a2a.send({ message: userMessage('stream 60'), configuration: { blocking: false } });
      const taskId: string = sent.result.id;
      // Wait until the task is under way, so the snapshot holds some chunks already.
      await eventually(async () => ((await a2a.get(taskId)).result.artifacts?.[0]?.parts.length >= 3 ? true : undefined));
      const items = await (await subscribe(server.url, transport, taskId)).items;
      expect(items[0]?.data).toMatchObject({ kind: 'task', id: taskId, status: { state: 'working' } });
      expect(items[0]?.id).toBe(items[0]?.data.metadata._eventSeq);
      expectConsecutiveIds(items, items[0]?.id ?? -1);
      expect(items.at(-1)?.data).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
      // Snapshot + later chunks = every chunk exactly once.
      expect(rebuildArtifacts(items)[0].parts.map((p: Json) => p.text)).toEqual(chunks(60));
    });

    it('Last-Event-ID after a dropped connection replays exactly the missed events, then goes on live', async () => {
      const dropped = await streamMessage(server.url, transport, { message: userMessage('stream 30') }, { stopAfter: 6 });
      const seen = await dropped.items;
      expect(seen.map((i) => i.id)).toEqual([0, 1, 2, 3, 4, 5]);
      const taskId: string = seen[0]?.data.id;
      const resumed = await (await subscribe(server.url, transport, taskId, { lastEventId: 5 })).items;
      // No snapshot: the client has the task already; the first event is the one after id 5.
      expectConsecutiveIds(resumed, 6);
      expect(resumed.at(-1)?.data).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
      expect([...texts(seen), ...texts(resumed)]).toEqual(chunks(30));
    });

    it('Last-Event-ID on a finished task still returns what the client missed', async () => {
      const dropped = await streamMessage(server.url, transport, { message: userMessage('stream 3') }, { stopAfter: 3 });
      const seen = await dropped.items;
      const taskId: string = seen[0]?.data.id;
      await eventually(async () =>
        (await client(server.url, transport).get(taskId)).result.status.state === 'completed' ? true : undefined,
      );
      const resumed = await (await subscribe(server.url, transport, taskId, { lastEventId: 2 })).items;
      expect(resumed.map((i) => summarize(i.data))).toEqual([
        'artifact:stream:append',
        'artifact:stream:append:last',
        'status:completed:final',
      ]);
      expectConsecutiveIds(resumed, 3);
    });

    it('a Last-Event-ID that is not ours starts from the snapshot', async () => {
      const a2a = client(server.url, transport);
      const sent = await a2a.send({ message: userMessage('ask q') });
      for (const lastEventId of ['999', 'abc', '-1']) {
        const s = await subscribe(server.url, transport, sent.result.id, { lastEventId, stopAfter: 1 });
        const items = await s.items;
        expect(items.map((i) => summarize(i.data))).toEqual(['task:input-required']);
        expect(items[0]?.id).toBe(2);
      }
      await a2a.cancel(sent.result.id);
    });

    it('subscribing to a terminal task is refused with -32004 (REST 400)', async () => {
      const a2a = client(server.url, transport);
      const done = await a2a.send({ message: userMessage('echo over') });
      const id: string = done.result.id;
      if (transport === 'rest') {
        for (const method of ['POST', 'GET']) {
          const r = await restCall(server.url, method, `/v1/tasks/${id}:subscribe`);
          expect(r.status).toBe(400);
          expect(r.error).toMatchObject({ code: -32004 });
          expect(r.headers.get('content-type')).toMatch(/^application\/json/);
        }
      } else {
        const s = await subscribe(server.url, transport, id);
        expect(s.status).toBe(200);
        expect(s.contentType).toMatch(/^text\/event-stream/);
        expect((await s.items).map((i) => summarize(i.data))).toEqual(['error:-32004']);
      }
      // A client that already saw the final event has nothing to resume either.
      const last = (await a2a.get(id)).result.metadata._eventSeq;
      if (transport === 'rest') {
        const r = await restCall(server.url, 'POST', `/v1/tasks/${id}:subscribe`, undefined, { 'last-event-id': String(last) });
        expect(r.status).toBe(400);
      } else {
        const s = await subscribe(server.url, transport, id, { lastEventId: last });
        expect((await s.items).map((i) => summarize(i.data))).toEqual(['error:-32004']);
      }
    });

    it('subscribing to an unknown task is 404 -32001 (JSON-RPC: an SSE error event)', async () => {
      if (transport === 'rest') {
        const r = await restCall(server.url, 'POST', '/v1/tasks/no-such-task:subscribe');
        expect(r.status).toBe(404);
        expect(r.error).toMatchObject({ code: -32001 });
      } else {
        const s = await subscribe(server.url, transport, 'no-such-task');
        expect(s.contentType).toMatch(/^text\/event-stream/);
        const items = await s.items;
        expect(items.map((i) => summarize(i.data))).toEqual(['error:-32001']);
        expect(items[0]?.data.error.message).toMatch(/not found/i);
      }
    });

    it('several subscribers each get every event; one leaving does not disturb the others', async () => {
      const a2a = client(server.url, transport);
      const sent = await a2a.send({ message: userMessage('stream 60'), configuration: { blocking: false } });
      const taskId: string = sent.result.id;
      const before = server.stats().subscribers;
      const stayers = await Promise.all([0, 1, 2].map((k) => subscribe(server.url, TRANSPORTS[k % 2] ?? transport, taskId)));
      const leaver = await subscribe(server.url, transport, taskId, { stopAfter: 3 });
      await leaver.items;
      const all = await Promise.all(stayers.map((s) => s.items));
      for (const items of all) {
        expect(items[0]?.data.kind).toBe('task');
        expectConsecutiveIds(items, items[0]?.id ?? -1);
        expect(items.at(-1)?.data).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
        expect(rebuildArtifacts(items)[0].parts.map((p: Json) => p.text)).toEqual(chunks(60));
      }
      // Whatever each joined with, from the latest join on they saw the very same events.
      const from = Math.max(...all.map((items) => items[0]?.id ?? 0));
      const tails = all.map((items) => items.filter((i) => (i.id ?? -1) > from));
      expect(tails[1]).toEqual(tails[0]);
      expect(tails[2]).toEqual(tails[0]);
      await eventually(() => (server.stats().subscribers <= before ? true : undefined));
    });

    it('the SSE response headers: text/event-stream, no-cache', async () => {
      const body =
        transport === 'rest'
          ? { message: userMessage('echo headers') }
          : { jsonrpc: '2.0', id: 'h-1', method: 'message/sendStream', params: { message: userMessage('echo headers') } };
      const res = await fetch(`${server.url}${transport === 'rest' ? '/v1/message:stream' : '/'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const text = await res.text();
      // One-line JSON per event, each followed by a blank line; besides events, only `: ping`.
      for (const block of text.split('\n\n').filter(Boolean)) {
        if (block.startsWith(':')) {
          expect(block).toBe(': ping');
          continue;
        }
        const lines = block.split('\n');
        expect(lines.filter((l) => l.startsWith('data: '))).toHaveLength(1);
        if (transport === 'jsonrpc') expect(JSON.parse(lines.at(-1)?.slice(6) ?? '')).toMatchObject({ jsonrpc: '2.0', id: 'h-1' });
      }
    });
  });

  it('message/sendStream is the same method as message/stream', async () => {
    const s = await streamMessage(server.url, 'jsonrpc', { message: userMessage('stream 2') }, { rpcMethod: 'message/sendStream' });
    expect((await s.items).map((i) => summarize(i.data))).toEqual([
      'task:submitted',
      'status:working',
      'artifact:stream:new',
      'artifact:stream:append:last',
      'status:completed:final',
    ]);
  });

  it('a subscriber of a paused task gets its next turn, even after the retention time', async () => {
    const log = new MemoryEventLog(1000, 50);
    const paused = await startServer({ storeKind: 'memory', eventLog: log });
    try {
      const a2a = client(paused.url, 'rest');
      const first = await a2a.send({ message: userMessage('ask first?') });
      const taskId: string = first.result.id;
      const received: StreamItem[] = [];
      const s = await subscribe(paused.url, 'rest', taskId, { onItem: (i) => received.push(i) });
      await eventually(() => (received.length === 1 ? true : undefined));
      expect(received[0]?.data).toMatchObject({ kind: 'task', status: { state: 'input-required' } });
      // The retention ran out while the subscriber waits: its log is held, not dropped.
      await eventually(() => (log.stats().held === 1 && log.stats().subscribers === 1 ? true : undefined));

      await a2a.send({ message: userMessage('ask second?', { taskId }) });
      const items = await s.items;
      expect(items.map((i) => summarize(i.data))).toEqual(['task:input-required', 'status:working', 'status:input-required+msg:final']);
      expectConsecutiveIds(items, 2);
      expect(items.at(-1)?.data.status.message.parts[0].text).toBe('second?');
      await eventually(() => (log.stats().logs === 0 ? true : undefined));
    } finally {
      await paused.stop();
    }
  });

  it('with a small replay ring, an id older than the ring gets the snapshot first, then the rest', async () => {
    const small = await startServer({ storeKind: 'memory', eventReplay: 5 });
    try {
      const dropped = await streamMessage(small.url, 'rest', { message: userMessage('stream 40') }, { stopAfter: 3 });
      const seen = await dropped.items;
      const taskId: string = seen[0]?.data.id;
      const a2a = client(small.url, 'rest');
      await eventually(async () => ((await a2a.get(taskId)).result.artifacts?.[0]?.parts.length >= 15 ? true : undefined));
      const resumed = await (await subscribe(small.url, 'jsonrpc', taskId, { lastEventId: 2 })).items;
      expect(resumed[0]?.data.kind).toBe('task');
      expectConsecutiveIds(resumed, resumed[0]?.id ?? -1);
      expect(resumed.at(-1)?.data).toMatchObject({ kind: 'status-update', final: true });
      expect(rebuildArtifacts(resumed)[0].parts.map((p: Json) => p.text)).toEqual(chunks(40));
      const stored = await a2a.get(taskId);
      expect(comparable(rebuildArtifacts(resumed))).toEqual(comparable(stored.result.artifacts));
    } finally {
      await small.stop();
    }
  });

  it('with streaming off, both endpoints refuse with -32004 on both transports and start nothing', async () => {
    const off = await startServer({ storeKind: 'memory', streaming: false });
    try {
      const card: Json = await (await fetch(`${off.url}/.well-known/agent-card.json`)).json();
      expect(card.capabilities.streaming).toBe(false);
      const done = await client(off.url, 'rest').send({ message: userMessage('ask something') });
      const id: string = done.result.id;

      const restStream = await restCall(off.url, 'POST', '/v1/message:stream', { message: userMessage('echo no') });
      expect(restStream.status).toBe(400);
      expect(restStream.error).toMatchObject({ code: -32004 });
      for (const method of ['POST', 'GET']) {
        const restSub = await restCall(off.url, method, `/v1/tasks/${id}:subscribe`);
        expect(restSub.status).toBe(400);
        expect(restSub.error).toMatchObject({ code: -32004 });
      }
      // JSON-RPC: a plain JSON error, which is what clients read for this case (wire §2.3).
      for (const [method, params] of [
        ['message/stream', { message: userMessage('echo no') }],
        ['message/sendStream', { message: userMessage('echo no') }],
        ['tasks/resubscribe', { id }],
      ] as const) {
        const r = await rpcCall(off.url, method, params);
        expect(r.headers.get('content-type')).toMatch(/^application\/json/);
        expect(r.error).toMatchObject({ code: -32004 });
      }
      const listed = await client(off.url, 'rest').list();
      expect(listed.result.totalSize).toBe(1);
      expect(off.stats()).toMatchObject({ liveTasks: 0, openStreams: 0, subscribers: 0 });
    } finally {
      await off.stop();
    }
  });

  it("a stream's head is the status line, then the stream's headers in their order, each on its own line", async () => {
    // uWS gets them as one status line (http/sse.ts): the bytes must be those of one call per header.
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: userMessage('echo head') } });
    const headers: [string, string][] = [
      ['Content-Type', 'application/json'],
      ['Content-Length', String(Buffer.byteLength(body))],
    ];
    const { text } = await rawExchange(server.url, rawRequest('POST', new URL(server.url).pathname, headers, body), 500);
    const head = text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n');
    expect(head[0]).toBe('HTTP/1.1 200 OK');
    for (const line of head.slice(1)) expect(line).toMatch(/^[A-Za-z0-9-]+: \S/);
    // A host app may add its own headers (Express's X-Powered-By): ours keep their order among them.
    const ours = ['Content-Type', 'Cache-Control', 'Connection', 'X-Accel-Buffering', 'X-Content-Type-Options'];
    expect(head.filter((line) => ours.includes(line.slice(0, line.indexOf(':'))))).toEqual([
      'Content-Type: text/event-stream',
      'Cache-Control: no-cache',
      'Connection: keep-alive',
      'X-Accel-Buffering: no',
      'X-Content-Type-Options: nosniff',
    ]);
    expect(text).toContain('"final":true');
  });
});
