/**
 * One caller cannot take what every caller needs: its concurrent streams and its live tasks are
 * capped (429 with Retry-After, in each transport's shape), a JSON-RPC id is too (it is echoed in
 * every event of a stream), and so are the bytes of events kept for replay. Another caller keeps
 * streaming and sending meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import authAgent from '../../examples/auth-agent.js';
import { eventually, rpcCall, userMessage, type Json } from '../support/a2a.js';
import { V1_HEADERS, v1UserMessage } from '../support/a2a-v1.js';
import { ALICE, BOB } from '../support/auth-calls.js';
import { openSse } from '../support/sse.js';
import { rebuildArtifacts, streamMessage, subscribe } from '../support/streams.js';
import { startServer, type TestServer } from '../support/server.js';

/** A stream request as a client makes it: the answer's status and headers, its JSON when refused. */
interface Attempt {
  status: number;
  contentType: string;
  retryAfter: string | null;
  /** The JSON answer (a refusal); undefined for an event stream, which stays open until `abort`. */
  json: Json;
  /** An event stream's first event (its `data`). */
  firstEvent(): Promise<Json>;
  abort(): void;
}

/** Reads an event stream up to its first event, leaving the rest of it unread (and the stream open). */
async function firstEventOf(body: ReadableStream<Uint8Array>): Promise<Json> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended before its first event');
    text += decoder.decode(value, { stream: true });
    const data = /^data: (.*)$/m.exec(text);
    if (data && text.includes('\n\n', data.index)) return JSON.parse(data[1] as string);
  }
}

async function attempt(url: string, body: unknown, headers: Record<string, string>, method = 'POST'): Promise<Attempt> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: controller.signal,
  });
  const contentType = res.headers.get('content-type') ?? '';
  const json: Json = contentType.includes('event-stream') ? undefined : await res.json();
  const firstEvent = () => (res.body ? firstEventOf(res.body) : Promise.reject(new Error('no body')));
  return { status: res.status, contentType, retryAfter: res.headers.get('retry-after'), json, firstEvent, abort: () => controller.abort() };
}

let rpcId = 0;
const rpcBody = (method: string, params: unknown, id: unknown = ++rpcId) => ({ jsonrpc: '2.0', id, method, params });

/** The four ways to open a `message:stream`: v0.3 and v1.0, JSON-RPC and REST. */
const STREAM_OPENERS: { name: string; open: (base: string, text: string, headers: Record<string, string>) => Promise<Attempt> }[] = [
  { name: 'v0.3 JSON-RPC', open: (base, text, h) => attempt(`${base}/`, rpcBody('message/stream', { message: userMessage(text) }), h) },
  { name: 'v0.3 REST', open: (base, text, h) => attempt(`${base}/v1/message:stream`, { message: userMessage(text) }, h) },
  {
    name: 'v1.0 JSON-RPC',
    open: (base, text, h) =>
      attempt(`${base}/`, rpcBody('SendStreamingMessage', { message: v1UserMessage(text) }), { ...V1_HEADERS, ...h }),
  },
  {
    name: 'v1.0 REST',
    open: (base, text, h) => attempt(`${base}/message:stream`, { message: v1UserMessage(text) }, { ...V1_HEADERS, ...h }),
  },
];

/** What each transport says for a quota: 429, Retry-After, the v0.3 code or v1.0's RESOURCE_EXHAUSTED, the setting named. */
function expectQuotaRefusal(name: string, a: Attempt, setting: string): void {
  expect(a.status, name).toBe(429);
  expect(a.retryAfter, name).toMatch(/^\d+$/);
  expect(a.contentType, name).toMatch(/json/);
  const text = JSON.stringify(a.json);
  expect(text, name).toContain(setting);
  if (name === 'v0.3 JSON-RPC') expect(a.json.error.code).toBe(-32603);
  if (name === 'v0.3 REST') expect(a.json).toMatchObject({ code: -32603, error: 'InternalError' });
  if (name === 'v1.0 JSON-RPC') {
    expect(a.json.error.code).toBe(-32603);
    expect(a.json.error.data[0].reason).toBe('RESOURCE_EXHAUSTED');
  }
  if (name === 'v1.0 REST') expect(a.json.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
}

describe('streams per caller', () => {
  let server: TestServer;
  const held: Attempt[] = [];
  beforeAll(async () => {
    server = await startServer({ agent: authAgent, maxStreamsPerCaller: 3 });
  });
  afterAll(async () => {
    for (const a of held) a.abort();
    await server?.stop();
  });

  it('a caller over its stream limit gets 429 with Retry-After on every transport, while another caller still streams', async () => {
    for (let i = 0; i < 3; i++) {
      const opened = await STREAM_OPENERS[0]!.open(server.url, 'slow 8000', ALICE);
      held.push(opened);
      expect(opened.status).toBe(200);
    }
    for (const { name, open } of STREAM_OPENERS)
      expectQuotaRefusal(name, await open(server.url, 'echo one too many', ALICE), 'SERVICE_MAX_STREAMS_PER_CALLER');

    // A subscribe is a stream too, even to the caller's own running task.
    const task = (await held[0]!.firstEvent()).result;
    const resubscribe = await attempt(`${server.url}/v1/tasks/${task.id}:subscribe`, undefined, ALICE, 'GET');
    expectQuotaRefusal('v0.3 REST', resubscribe, 'SERVICE_MAX_STREAMS_PER_CALLER');
    // A refused message:stream started no task.
    expect(server.stats().liveTasks).toBe(3);

    // Bob is another caller: his streams run to their end, on both versions.
    const bob = await openSse(`${server.url}/`, { body: rpcBody('message/stream', { message: userMessage('echo hi bob') }), headers: BOB });
    expect(bob.status).toBe(200);
    const bobEvents = await bob.events;
    expect(bobEvents.at(-1)?.data.result).toMatchObject({ kind: 'status-update', final: true });
    const bobV1 = await openSse(`${server.url}/message:stream`, {
      body: { message: v1UserMessage('echo hi') },
      headers: { ...V1_HEADERS, ...BOB },
    });
    expect(bobV1.status).toBe(200);
    expect((await bobV1.events).length).toBeGreaterThan(0);

    // A stream that ends gives its slot back.
    held.shift()?.abort();
    const again = await eventually(async () => {
      const a = await STREAM_OPENERS[3]!.open(server.url, 'echo room again', ALICE);
      if (a.status === 200) return a;
      a.abort();
      return undefined;
    });
    held.push(again);
  });
});

describe('many streams from one caller', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ agent: authAgent, maxStreamsPerCaller: 50 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('300 streams tried at once: 50 are served, the rest refused, memory stays bounded and another caller is served', async () => {
    const rssBefore = process.memoryUsage().rss;
    const attempts = await Promise.all(Array.from({ length: 300 }, () => STREAM_OPENERS[1]!.open(server.url, 'stubborn 6000', ALICE)));
    try {
      const served = attempts.filter((a) => a.status === 200);
      const refused = attempts.filter((a) => a.status === 429);
      expect(served).toHaveLength(50);
      expect(refused).toHaveLength(250);
      for (const r of refused) expect(r.retryAfter).toMatch(/^\d+$/);
      expect(server.stats().openStreams).toBeLessThanOrEqual(50);
      expect(server.stats().liveTasks).toBeLessThanOrEqual(50);
      // Bob is served while Alice holds her 50.
      const started = performance.now();
      const bob = await rpcCall(server.url, 'message/send', { message: userMessage('echo still here') }, BOB);
      expect(bob.result.status.state).toBe('completed');
      expect(performance.now() - started).toBeLessThan(2000);
      const grownMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
      // Client and server share this process: a generous bound, far below what 300 held streams take.
      expect(grownMb).toBeLessThan(200);
    } finally {
      for (const a of attempts) a.abort();
    }
  });
});

describe('live tasks per caller', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ agent: authAgent, maxLiveTasksPerCaller: 5 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a caller with its limit of tasks in progress gets 429 for another, however many it sends at once; another caller does not', async () => {
    const sends = await Promise.all(
      Array.from({ length: 20 }, () =>
        rpcCall(server.url, 'message/send', { message: userMessage('stubborn 4000'), configuration: { blocking: false } }, ALICE),
      ),
    );
    expect(sends.filter((s) => s.result?.status)).toHaveLength(5);
    const refused = sends.filter((s) => s.status === 429);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r.error?.code).toBe(-32603);
      expect(r.error?.message).toContain('SERVICE_MAX_LIVE_TASKS_PER_CALLER');
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    const rest = await attempt(`${server.url}/v1/message:send`, { message: userMessage('echo') }, ALICE);
    expectQuotaRefusal('v0.3 REST', rest, 'SERVICE_MAX_LIVE_TASKS_PER_CALLER');
    const v1 = await attempt(`${server.url}/message:send`, { message: v1UserMessage('echo') }, { ...V1_HEADERS, ...ALICE });
    expectQuotaRefusal('v1.0 REST', v1, 'SERVICE_MAX_LIVE_TASKS_PER_CALLER');
    const stream = await STREAM_OPENERS[0]!.open(server.url, 'echo', ALICE);
    expectQuotaRefusal('v0.3 JSON-RPC', stream, 'SERVICE_MAX_LIVE_TASKS_PER_CALLER');

    const bob = await rpcCall(server.url, 'message/send', { message: userMessage('echo bob') }, BOB);
    expect(bob.result.status.state).toBe('completed');
    // Once Alice's tasks end, she may start more.
    const later = await eventually(
      async () => {
        const s = await rpcCall(server.url, 'message/send', { message: userMessage('echo later') }, ALICE);
        return s.status === 200 ? s : undefined;
      },
      10_000,
      200,
    );
    expect(later.result.status.state).toBe('completed');
  });
});

describe('JSON-RPC ids', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json: JSON.parse(text) as Json };
  };

  it.each([
    { version: 'v0.3', headers: {}, send: 'message/send', stream: 'tasks/resubscribe', message: () => userMessage('echo') },
    { version: 'v1.0', headers: V1_HEADERS, send: 'SendMessage', stream: 'SubscribeToTask', message: () => v1UserMessage('echo') },
  ])('$version: an id longer than 256 characters is an invalid request answered with id null, never echoed', async (v) => {
    const long = 'i'.repeat(257);
    for (const body of [rpcBody(v.send, { message: v.message() }, long), rpcBody(v.stream, { id: 'any' }, long)]) {
      const answer = await post(body, v.headers);
      expect(answer.contentType).toMatch(/json/);
      expect(answer.json.id).toBeNull();
      expect(answer.json.error.code).toBe(-32600);
      expect(answer.json.error.message).toContain('SERVICE_MAX_RPC_ID_LENGTH');
      expect(answer.text).not.toContain(long);
    }
    // At the limit, the id is echoed as ever.
    const fits = 'i'.repeat(256);
    const ok = await post(rpcBody(v.send, { message: v.message() }, fits), v.headers);
    expect(ok.json.id).toBe(fits);
    expect(ok.json.error).toBeUndefined();
  });

  it('a parse-level refusal does not echo a long id either', async () => {
    const long = 'j'.repeat(5000);
    const answer = await post({ jsonrpc: '1.0', id: long, method: 'message/send', params: {} });
    expect(answer.json.id).toBeNull();
    expect(answer.text.length).toBeLessThan(1000);
  });
});

describe('events kept for replay', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ eventReplayMaxBytes: 4096 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('are bounded by bytes: a resume from before what was dropped gets the task as it stands, a recent one the events', async () => {
    const stream = await streamMessage(server.url, 'rest', { message: userMessage('stream 120') });
    const items = await stream.items;
    const lastId = items.at(-1)?.id as number;
    expect(lastId).toBeGreaterThan(100);
    const taskId = (items[0]?.data as Json).id as string;

    // Event 2 on is far more than 4096 bytes of JSON: the log no longer holds it.
    const old = await (await subscribe(server.url, 'rest', taskId, { lastEventId: 1, httpMethod: 'GET' })).items;
    expect(old[0]?.data.kind).toBe('task');
    expect(old[0]?.data.status.state).toBe('completed');
    expect(rebuildArtifacts(old)).toEqual(rebuildArtifacts(items));

    const recent = await (await subscribe(server.url, 'rest', taskId, { lastEventId: lastId - 3, httpMethod: 'GET' })).items;
    expect(recent.map((i) => i.id)).toEqual([lastId - 2, lastId - 1, lastId]);
  });
});
