/**
 * Input nobody should send, through the real server on both transports: each case is one of the
 * defects a hostile-input run found (deep JSON, prototype-named methods and keys, HEAD bodies,
 * any content type, conflicting framing, …). The answer is a clear A2A error in the transport's
 * shape; the server keeps serving, and nothing stored changes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, rpcCall, TRANSPORTS, userMessage, type Json } from '../support/a2a.js';
import { parseResponses, rawExchange, rawRequest, rawSequence } from '../support/raw-http.js';
import { startServer, STORE_KINDS, type TestServer } from '../support/server.js';
import { openSse } from '../support/sse.js';

/** JSON text of `levels` nested arrays. */
const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

/** A send body (REST shape, or JSON-RPC params) with `deep` placed where `where` says. */
function sendWithDeep(where: 'metadata' | 'message.metadata' | 'part.metadata' | 'data part', deep: string): string {
  const id = JSON.stringify(randomUUID());
  const text = '{"kind":"text","text":"echo deep"}';
  switch (where) {
    case 'metadata':
      return `{"message":{"role":"user","messageId":${id},"parts":[${text}]},"metadata":{"x":${deep}}}`;
    case 'message.metadata':
      return `{"message":{"role":"user","messageId":${id},"parts":[${text}],"metadata":{"x":${deep}}}}`;
    case 'part.metadata':
      return `{"message":{"role":"user","messageId":${id},"parts":[{"kind":"text","text":"echo deep","metadata":{"x":${deep}}}]}}`;
    case 'data part':
      return `{"message":{"role":"user","messageId":${id},"parts":[{"kind":"data","data":{"x":${deep}}}]}}`;
  }
}
const rpcText = (method: string, params: string): string =>
  `{"jsonrpc":"2.0","id":7,"method":${JSON.stringify(method)},"params":${params}}`;

const post = (url: string, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(url, { method: 'POST', headers, body });

/** The field path the error message names, e.g. `message.metadata`. */
const FIELD_NAMES = {
  metadata: 'metadata',
  'message.metadata': 'message.metadata',
  'part.metadata': 'message.parts[0].metadata',
  'data part': 'message.parts[0].data',
} as const;

describe.each(STORE_KINDS)('hostile input (%s store)', (storeKind) => {
  let server: TestServer;
  /** Tasks stored before the hostile requests, as `tasks/get` shows them. */
  const before = new Map<string, Json>();

  beforeAll(async () => {
    server = await startServer({ storeKind });
    const c = client(server.url, 'jsonrpc');
    for (const text of ['echo kept', 'ask which one?', 'fail on purpose']) {
      const r = await c.send({ message: userMessage(text) });
      before.set(r.result.id, (await c.get(r.result.id)).result);
    }
  });

  afterAll(async () => {
    // Whatever was refused, what was stored before is exactly as it was.
    const c = client(server.url, 'rest');
    for (const [id, task] of before) expect((await c.get(id)).result).toEqual(task);
    const health = await fetch(`${server.url}/v1/health`);
    expect(health.status).toBe(200);
    await server.stop();
  });

  describe('deeply nested JSON', () => {
    const places = ['metadata', 'message.metadata', 'part.metadata', 'data part'] as const;

    it.each(places)('6,000 levels in %s are refused before parsing, naming where, on every send endpoint', async (where) => {
      const body = sendWithDeep(where, nested(6000));
      for (const path of ['/v1/message:send', '/v1/message:stream']) {
        const res = await post(`${server.url}${path}`, body);
        expect(res.status).toBe(400);
        const err: Json = await res.json();
        expect(err).toMatchObject({ code: -32602, error: 'InvalidParamsError' });
        expect(err.message).toContain(`${FIELD_NAMES[where]}.x[0]`);
        expect(err.message).toContain('SERVICE_MAX_JSON_DEPTH');
      }
      for (const method of ['message/send', 'message/stream']) {
        const res = await post(`${server.url}/`, rpcText(method, body));
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json');
        const reply: Json = await res.json();
        expect(reply.error.code).toBe(-32602);
        expect(reply.error.message).toContain(`params.${FIELD_NAMES[where]}`);
      }
    });

    it.each(places)('65 levels in %s are refused after validation, naming the field and the limit', async (where) => {
      const body = sendWithDeep(where, nested(64));
      const rest = await post(`${server.url}/v1/message:send`, body);
      expect(rest.status).toBe(400);
      const err: Json = await rest.json();
      expect(err.code).toBe(-32602);
      expect(err.message).toContain(`${FIELD_NAMES[where]}.x`);
      expect(err.message).toMatch(/deeper than 64 levels \(SERVICE_MAX_JSON_DEPTH\)/);
      const rpc: Json = await (await post(`${server.url}/`, rpcText('message/send', body))).json();
      expect(rpc.error.code).toBe(-32602);
      // A streaming method's validation error is one SSE error event (wire reference §2.3).
      const stream = await openSse(`${server.url}/`, { body: JSON.parse(rpcText('message/stream', body)) });
      const events = await stream.events;
      expect(events).toHaveLength(1);
      expect(events[0]?.data.error.code).toBe(-32602);
    });

    it('64 levels are the limit: accepted, stored and read back unchanged', async () => {
      // {"x": 63 arrays} is 64 levels counting the metadata object itself.
      const metadata = JSON.parse(`{"x":${nested(63)}}`);
      for (const transport of TRANSPORTS) {
        const c = client(server.url, transport);
        const sent = await c.send({ message: userMessage('echo at the limit', { metadata }) });
        expect(sent.status).toBe(200);
        const read = await c.get(sent.result.id);
        expect(read.result.history[0].metadata).toEqual(metadata);
      }
    });

    it('the limit follows SERVICE_MAX_JSON_DEPTH', async () => {
      const strict = await startServer({ maxJsonDepth: 4 });
      try {
        const c = client(strict.url, 'rest');
        // The metadata object is level 1: four levels of objects fit, five do not.
        expect((await c.send({ message: userMessage('echo', { metadata: { a: { b: { c: { d: 1 } } } } }) })).status).toBe(200);
        const refused = await c.send({ message: userMessage('echo', { metadata: { a: { b: { c: { d: { e: 1 } } } } } }) });
        expect(refused.status).toBe(400);
        expect(refused.error?.message).toContain('message.metadata.a.b.c.d nests deeper than 4 levels');
      } finally {
        await strict.stop();
      }
    });
  });

  describe('JSON-RPC methods named after Object.prototype members', () => {
    it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'])(
      '%s is -32601 in a plain JSON reply, never a stream',
      async (method) => {
        const res = await post(`${server.url}/`, rpcText(method, '{}'));
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json');
        const reply: Json = await res.json();
        expect(reply).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32601 } });
        expect(reply.error.message).toContain(JSON.stringify(method));
        expect(server.stats().openStreams).toBe(0);
      },
    );
  });

  describe('HEAD', () => {
    it('answers the headers of the GET route with no body, so the next answer on the connection is read right', async () => {
      const requests = [
        rawRequest('HEAD', '/v1/health'),
        rawRequest('HEAD', '/.well-known/agent-card.json'),
        rawRequest('GET', '/v1/health'),
      ];
      const { text } = await rawSequence(server.url, requests);
      const [health, card, get] = parseResponses(text, (i) => i < 2);
      expect(health?.status).toBe(200);
      expect(Number(health?.headers['content-length'])).toBe('{"status":"ok"}'.length);
      expect(card?.status).toBe(200);
      expect(card?.headers['content-type']).toBe('application/json');
      expect(get?.status).toBe(200);
      expect(JSON.parse(get?.body ?? '')).toEqual({ status: 'ok' });
    });

    it('of a POST-only or unknown route is 404 with no body', async () => {
      const requests = [rawRequest('HEAD', '/v1/message:send'), rawRequest('HEAD', '/nowhere'), rawRequest('GET', '/v1/health')];
      const { text } = await rawSequence(server.url, requests);
      const [send, nowhere, get] = parseResponses(text, (i) => i < 2);
      expect(send?.status).toBe(404);
      expect(nowhere?.status).toBe(404);
      expect(get?.status).toBe(200);
      expect(get?.body).toBe('{"status":"ok"}');
    });

    it('of a subscribe stream answers its headers and starts no stream', async () => {
      const paused = [...before.values()].find((t) => t.status.state === 'input-required');
      const { text } = await rawSequence(server.url, [
        rawRequest('HEAD', `/v1/tasks/${paused.id}:subscribe`),
        rawRequest('GET', '/v1/health'),
      ]);
      const [head, get] = parseResponses(text, (i) => i === 0);
      expect(head?.status).toBe(200);
      expect(head?.headers['content-type']).toBe('text/event-stream');
      expect(get?.body).toBe('{"status":"ok"}');
      expect(server.stats().openStreams).toBe(0);
    });
  });

  describe('content types', () => {
    const send = () => JSON.stringify({ message: userMessage('echo typed') });
    it.each([
      ['text/plain', 'text/plain'],
      ['a form', 'application/x-www-form-urlencoded'],
      ['multipart', 'multipart/form-data; boundary=x'],
      ['XML', 'application/xml'],
    ])('a body sent as %s is 415 on both transports and creates no task', async (_name, type) => {
      const total = (await client(server.url, 'rest').list()).result.totalSize;
      const rest = await post(`${server.url}/v1/message:send`, send(), { 'content-type': type });
      expect(rest.status).toBe(415);
      expect(await rest.json()).toMatchObject({ code: -32005, error: 'ContentTypeNotSupportedError' });
      const rpc = await post(`${server.url}/`, rpcText('message/send', send()), { 'content-type': type });
      expect(rpc.status).toBe(415);
      expect(await rpc.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32005 } });
      expect((await client(server.url, 'rest').list()).result.totalSize).toBe(total);
    });

    it('a body with no Content-Type is 415; a bodyless POST without one is served', async () => {
      const { text } = await rawExchange(
        server.url,
        rawRequest('POST', '/v1/message:send', [['Content-Length', String(send().length)]], send()),
        1000,
      );
      expect(parseResponses(text)[0]?.status).toBe(415);
      const paused = [...before.values()].find((t) => t.status.state === 'input-required');
      const cancel = await fetch(`${server.url}/v1/tasks/${paused.id}x:cancel`, { method: 'POST' });
      expect(cancel.status).toBe(404);
    });

    it.each(['application/json; charset=utf-8', 'APPLICATION/JSON', 'application/a2a+json', 'application/json;charset=UTF-8'])(
      '%s is JSON',
      async (type) => {
        const res = await post(`${server.url}/v1/message:send`, send(), { 'content-type': type });
        expect(res.status).toBe(200);
      },
    );
  });

  describe('request framing', () => {
    const body = JSON.stringify({
      message: { role: 'user', messageId: `smuggled-${storeKind}`, parts: [{ kind: 'text', text: 'echo hidden' }] },
    });
    const hidden = rawRequest(
      'POST',
      '/v1/message:send',
      [
        ['Content-Type', 'application/json'],
        ['Content-Length', String(body.length)],
      ],
      body,
    );
    const smuggled = async (): Promise<boolean> =>
      (await client(server.url, 'rest').list({ pageSize: 100 })).result.tasks.some(
        (t: Json) => t.history[0]?.messageId === `smuggled-${storeKind}`,
      );

    it('two Content-Length headers are 400 and close the connection; a request hidden in the body never runs', async () => {
      const first = rawRequest(
        'POST',
        '/v1/message:send',
        [
          ['Content-Type', 'application/json'],
          ['Content-Length', '0'],
          ['Content-Length', String(hidden.length)],
        ],
        hidden,
      );
      const { text, closed } = await rawExchange(server.url, first, 1500);
      expect(closed).toBe(true);
      // With bytes pipelined behind it, uWS drops the connection before the 400 can go out.
      if (text) expect(parseResponses(text)[0]?.status).toBe(400);
      expect(await smuggled()).toBe(false);
    });

    it.each(['/v1/message:send', '/'])("repeated Content-Length on %s is 400 in the transport's shape", async (path) => {
      const request = rawRequest(
        'POST',
        path,
        [
          ['Content-Type', 'application/json'],
          ['Content-Length', '2'],
          ['Content-Length', '2'],
        ],
        '{}',
      );
      const { text, closed } = await rawExchange(server.url, request, 1500);
      expect(closed).toBe(true);
      const [res] = parseResponses(text);
      expect(res?.status).toBe(400);
      const err = JSON.parse(res?.body ?? '');
      if (path === '/') expect(err).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      else expect(err).toMatchObject({ code: -32600, error: 'InvalidRequestError' });
    });

    it.each([
      [
        'Content-Length beside Transfer-Encoding',
        [
          ['Content-Length', String(hidden.length)],
          ['Transfer-Encoding', 'chunked'],
        ],
      ],
      ['a signed Content-Length', [['Content-Length', `+${hidden.length}`]]],
      ['a list as Content-Length', [['Content-Length', `${hidden.length}, ${hidden.length}`]]],
    ] as [string, [string, string][]][])('%s is refused before anything runs', async (_name, headers) => {
      const { text, closed } = await rawExchange(
        server.url,
        rawRequest('POST', '/v1/message:send', [['Content-Type', 'application/json'], ...headers], hidden),
        1500,
      );
      expect(closed).toBe(true);
      // uWS's own parser drops these connections; if an answer comes, it is a 400.
      if (text) expect(parseResponses(text)[0]?.status).toBe(400);
      expect(await smuggled()).toBe(false);
    });
  });

  describe('smaller rows', () => {
    it('a 413 at the JSON-RPC endpoint is a JSON-RPC error envelope', async () => {
      const small = await startServer({ maxBodyBytes: 1024 });
      try {
        const res = await post(`${small.url}/`, rpcText('message/send', JSON.stringify({ message: userMessage('x'.repeat(2000)) })));
        expect(res.status).toBe(413);
        expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
        const rest = await post(`${small.url}/v1/message:send`, JSON.stringify({ message: userMessage('x'.repeat(2000)) }));
        expect(rest.status).toBe(413);
        expect(await rest.json()).toMatchObject({ code: -32600, error: 'InvalidRequestError' });
      } finally {
        await small.stop();
      }
    });

    it('a notification is carried out and answered 204 with no body', async () => {
      const messageId = randomUUID();
      const res = await post(
        `${server.url}/`,
        JSON.stringify({ jsonrpc: '2.0', method: 'message/send', params: { message: userMessage('echo quietly', { messageId }) } }),
      );
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      const page = await client(server.url, 'rest').list({ pageSize: 100 });
      expect(page.result.tasks.some((t: Json) => t.history[0]?.messageId === messageId)).toBe(true);
    });

    it('a notification that cannot be carried out is still answered, with a null id', async () => {
      const unknown: Json = await (await post(`${server.url}/`, '{"jsonrpc":"2.0","method":"nonexistent/method"}')).json();
      expect(unknown).toMatchObject({ id: null, error: { code: -32601 } });
      const bad: Json = await (await post(`${server.url}/`, '{"jsonrpc":"2.0","method":"tasks/get","params":{"id":7}}')).json();
      expect(bad).toMatchObject({ id: null, error: { code: -32602 } });
    });

    it('a batch is one -32600 saying batches are not supported', async () => {
      const res = await post(`${server.url}/`, `[${rpcText('tasks/list', '{}')},${rpcText('tasks/list', '{}')}]`);
      expect(res.status).toBe(200);
      const reply: Json = await res.json();
      expect(reply).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect(reply.error.message).toMatch(/batch/);
    });

    it('a __proto__ key lends a REST part nothing: refused exactly as over JSON-RPC', async () => {
      const message = `{"role":"user","messageId":"${randomUUID()}","parts":[{"__proto__":{"kind":"text"},"text":"x"}]}`;
      const rest = await post(`${server.url}/v1/message:send`, `{"message":${message}}`);
      expect(rest.status).toBe(400);
      expect(((await rest.json()) as Json).code).toBe(-32602);
      const rpc: Json = await (await post(`${server.url}/`, rpcText('message/send', `{"message":${message}}`))).json();
      expect(rpc.error.code).toBe(-32602);
    });

    it.each(TRANSPORTS)('a metadata key named __proto__ is kept as data (%s)', async (transport) => {
      const c = client(server.url, transport);
      const metadata = JSON.parse('{"__proto__":{"polluted":true},"plain":1}');
      const sent = await c.send({ message: userMessage('echo proto', { metadata }) });
      expect(sent.status).toBe(200);
      const stored = (await c.get(sent.result.id)).result.history[0].metadata;
      expect(Object.keys(stored)).toEqual(['__proto__', 'plain']);
      expect(JSON.stringify(stored)).toBe('{"__proto__":{"polluted":true},"plain":1}');
      expect(({} as Json).polluted).toBeUndefined();
    });

    it.each(TRANSPORTS)('file bytes must be base64 (%s)', async (transport) => {
      const c = client(server.url, transport);
      const file = (bytes: string) => ({
        message: { ...userMessage('file'), parts: [{ kind: 'file', file: { bytes, mimeType: 'text/plain' } }] },
      });
      for (const bad of ['not base64!', 'abcde', '====', 'ab=c']) {
        const r = await c.send(file(bad));
        expect(r.error?.code, bad).toBe(-32602);
      }
      for (const good of ['aGVsbG8=', 'aGVsbG8', 'aGk-_w', '']) {
        const r = await c.send(file(good));
        expect(r.status, good).toBe(200);
        expect(r.result.status.state, good).toBe('completed');
      }
    });

    it('invalid UTF-8 is a parse error, not silently replaced', async () => {
      const bytes = Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{"contextId":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}}'),
      ]);
      const rpc: Json = await (await post(`${server.url}/`, bytes)).json();
      expect(rpc.error.code).toBe(-32700);
      const restBytes = Buffer.concat([
        Buffer.from('{"message":{"role":"user","messageId":"u8","parts":[{"kind":"text","text":"'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}]}}'),
      ]);
      const rest = await post(`${server.url}/v1/message:send`, restBytes);
      expect(rest.status).toBe(400);
      expect(((await rest.json()) as Json).code).toBe(-32700);
    });

    it('every kind of answer says nosniff and names no server software', async () => {
      const answers = [
        await fetch(`${server.url}/v1/health`),
        await post(`${server.url}/`, rpcText('tasks/list', '{}')),
        await fetch(`${server.url}/v1/tasks/nope`),
        await fetch(`${server.url}/v1/tasks/nope/pushNotificationConfigs/x`, { method: 'DELETE' }),
        await post(`${server.url}/`, '{"jsonrpc":"2.0","method":"tasks/list"}'),
      ];
      for (const res of answers) {
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('uwebsockets')).toBeNull();
        await res.arrayBuffer();
      }
      const stream = await openSse(`${server.url}/v1/message:stream`, { body: { message: userMessage('echo streamed') } });
      await stream.events;
      const { text } = await rawExchange(
        server.url,
        rawRequest(
          'POST',
          '/v1/message:stream',
          [
            ['Content-Type', 'application/json'],
            ['Content-Length', '2'],
          ],
          '{}',
        ),
        500,
      );
      expect(text.toLowerCase()).toContain('x-content-type-options: nosniff');
      expect(text.toLowerCase()).not.toContain('uwebsockets');
    });
  });
});

describe('one request cannot kill the process', () => {
  it('the CLI survives deep JSON, prototype-named methods, HEAD and bad framing, and keeps serving', async () => {
    const { spawnServer } = await import('../support/process.js');
    // A fast heartbeat: a stream writer left registered on a finished response crashed the
    // process at the first heartbeat (15 s by default).
    const proc = await spawnServer(['examples/scenario-agent.ts', '--store', 'memory'], { SERVICE_SSE_HEARTBEAT: '0.1' });
    try {
      const deep = nested(6000);
      for (const where of ['metadata', 'message.metadata', 'part.metadata', 'data part'] as const) {
        await post(`${proc.url}/v1/message:send`, sendWithDeep(where, deep));
        await post(`${proc.url}/v1/message:stream`, sendWithDeep(where, deep));
        await post(`${proc.url}/`, rpcText('message/send', sendWithDeep(where, deep)));
        await post(`${proc.url}/`, rpcText('message/stream', sendWithDeep(where, deep)));
        await post(`${proc.url}/`, rpcText('message/send', sendWithDeep(where, nested(70))));
      }
      for (const method of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
        await post(`${proc.url}/`, rpcText(method, '{}'));
      }
      await rawExchange(proc.url, rawRequest('HEAD', '/v1/health') + rawRequest('HEAD', '/v1/tasks/x:subscribe'), 300);
      await rawExchange(
        proc.url,
        rawRequest(
          'POST',
          '/',
          [
            ['Content-Length', '2'],
            ['Content-Length', '3'],
          ],
          '{} ',
        ),
        300,
      );
      // Several heartbeats later the process is alive and answers.
      await new Promise((r) => setTimeout(r, 1000));
      expect(proc.child.exitCode).toBeNull();
      const health = await fetch(`${proc.url}/v1/health`);
      expect(health.status).toBe(200);
      const echo = await rpcCall(proc.url, 'message/send', { message: userMessage('echo still here') });
      expect(echo.result.status.state).toBe('completed');
    } finally {
      await proc.kill('SIGKILL');
    }
  });
});
