/**
 * Property-based fuzzing of both transports of a real server on 127.0.0.1 (fast-check, fixed
 * seed, bounded runs; FUZZ_RUNS raises the count), in A2A v0.3 and v1.0 input alike. Whatever
 * arrives:
 *   1. no 5xx but the documented 503, and no hang;
 *   2. it is served in the version README "Protocol versions" names (versions.ts), and every
 *      answer has that version's shape: errors in their transport's shape with a known code
 *      (SSE error events too), v1.0 results without `kind`, v1.0 stream events StreamResponses;
 *   3. the server is healthy after every case;
 *   4. tasks stored before are unchanged by anything it refused.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, userMessage, type Json } from '../support/a2a.js';
import { startServer, STORE_KINDS, type TestServer } from '../support/server.js';
import { parseResponses, rawExchange } from '../support/raw-http.js';
import { rawFraming, requestHeaders, rpcBodyText, restRequest, type RestRequest } from './arbitraries.js';
import { v1ParamsText, v1RestRequest, V1_RPC_METHODS } from './arbitraries-v1.js';
import { expectStreamResponse, expectV1RestError, expectV1Result, expectV1RpcErrorData } from './v1-shapes.js';
import {
  isCardPath,
  isV1Route,
  METHODS,
  methodOf,
  restVersion,
  rpcVersion,
  STREAMING_METHODS,
  type Served,
  type Version,
} from './versions.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? '400');
const SEED = 20_261_123;
const KNOWN_CODES = new Set([-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32007, -32009]);
/** How long a stream is read before the client hangs up (a subscription to a paused task never ends). */
const STREAM_READ_MS = 400;

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** One request, with the body read in full (or, for a stream, for a moment). */
async function send(url: string, method: string, headers: Record<string, string | undefined>, body?: string): Promise<Answer> {
  const controller = new AbortController();
  const hang = setTimeout(() => controller.abort(new Error(`no answer in 10 s: ${method} ${url}`)), 10_000);
  try {
    const sent: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) sent[k] = v;
    const res = await fetch(url, { method, headers: sent, ...(body === undefined ? {} : { body }), signal: controller.signal });
    const contentType = res.headers.get('content-type') ?? '';
    if (!contentType.startsWith('text/event-stream')) return { status: res.status, contentType, text: await res.text() };
    let text = '';
    const decoder = new TextDecoder();
    const stop = setTimeout(() => controller.abort(), STREAM_READ_MS);
    try {
      for await (const chunk of res.body ?? []) text += decoder.decode(chunk as Uint8Array, { stream: true });
    } catch {
      // We hung up on a stream that was still going: what was read is checked.
    } finally {
      clearTimeout(stop);
    }
    return { status: res.status, contentType, text };
  } finally {
    clearTimeout(hang);
  }
}

/**
 * A known code; -32603 only for the documented rows (503 not initialized / unavailable, 401 a
 * refused extended card), never as a crash answered 200 or 500.
 */
function expectKnownError(error: Json, status: number, where: string): void {
  expect(typeof error?.code, where).toBe('number');
  expect(KNOWN_CODES.has(error.code), `${where}: code ${error?.code}`).toBe(true);
  expect(typeof error.message, where).toBe('string');
  if (error.code === -32603) expect([401, 503], `${where}: an internal error`).toContain(status);
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Property 2 for content types: an A2A body that does not say it is JSON is 415, whatever it holds. */
function expectMediaTypeRule(a: Answer, contentType: string | undefined, body: string | undefined, where: string): void {
  const refused = contentType === undefined ? body !== undefined && body.length > 0 : !JSON_TYPE.test(contentType);
  if (refused) expect(a.status, `${where}: content type ${contentType}`).toBe(415);
  else expect(a.status, where).not.toBe(415);
}

/** An unsupported `A2A-Version` is refused before anything but the media type is looked at. */
function expectVersionRefusal(a: Answer, served: Served, code: number | undefined, reason: string | undefined, where: string): void {
  if (!served.unsupportedHeader || a.status === 415) return;
  expect(a.status, `${where}: unsupported A2A-Version`).toBe(400);
  if (served.version === '1.0') expect(reason, where).toBe('VERSION_NOT_SUPPORTED');
  else expect(code, where).toBe(-32009);
}

/** Property 2 for a JSON-RPC error member: v0.3's `{code, message, data?}`, v1.0's with typed `data`. */
function expectRpcError(error: Json, status: number, version: Version, where: string): void {
  expectKnownError(error, status, where);
  if (version === '1.0') expectV1RpcErrorData(error, where);
  else expect(Array.isArray(error.data), `${where}: v1.0's typed data in v0.3`).toBe(false);
}

/** Properties 1 and 2 for an answer at the JSON-RPC endpoint. */
function checkRpcAnswer(a: Answer, body: string, headers: Record<string, string | undefined>): void {
  const served = rpcVersion(body, headers['a2a-version']);
  const { version } = served;
  const where = `POST / v${version} ${body.slice(0, 300)} -> ${a.status} ${a.text.slice(0, 300)}`;
  expect(a.status < 500 || a.status === 503, where).toBe(true);
  expectMediaTypeRule(a, headers['content-type'], body, where);
  const method = methodOf(body) as string;
  if (a.status === 204) {
    // A notification carried out: only one of this version's methods can be.
    expect(served.unsupportedHeader, where).toBe(false);
    expect(METHODS[version].has(method), where).toBe(true);
    expect(a.text, where).toBe('');
    return;
  }
  if (a.contentType.startsWith('text/event-stream')) {
    // Only a streaming method of the version served streams (a method named `constructor` once did).
    expect(served.unsupportedHeader, where).toBe(false);
    expect(STREAMING_METHODS[version].has(method), where).toBe(true);
    expect(a.status, where).toBe(200);
    for (const line of a.text.split('\n')) {
      if (!line.startsWith('data: ')) continue;
      const event: Json = JSON.parse(line.slice(6));
      expect(event.jsonrpc, where).toBe('2.0');
      if (event.error) expectRpcError(event.error, 200, version, where);
      else if (version === '1.0') expectStreamResponse(event.result, where);
      else expect(event.result, where).toBeDefined();
    }
    return;
  }
  expect(a.contentType, where).toBe('application/json');
  const reply: Json = JSON.parse(a.text);
  expect(reply.jsonrpc, where).toBe('2.0');
  expect('id' in reply, where).toBe(true);
  if (reply.error) {
    expectRpcError(reply.error, a.status, version, where);
    expect([200, 400, 401, 413, 415, 503], where).toContain(a.status);
    expectVersionRefusal(a, served, reply.error.code, reply.error.data?.[0]?.reason, where);
  } else {
    expect(served.unsupportedHeader, where).toBe(false);
    expect(a.status, where).toBe(200);
    expect('result' in reply, where).toBe(true);
    // An explicit header wins: v0.3 names are -32601 in v1.0, and v1.0 names in v0.3.
    expect(METHODS[version].has(method), where).toBe(true);
    if (version === '1.0') expectV1Result(reply.result, where);
  }
}

/** Properties 1 and 2 for a REST answer. */
function checkRestAnswer(a: Answer, req: RestRequest, headers: Record<string, string | undefined>): void {
  // As the client sent it: `..` segments resolved, the query apart.
  const pathname = new URL(req.path, 'http://127.0.0.1').pathname;
  // `POST /` is the JSON-RPC endpoint, whatever the generator meant.
  if (req.method === 'POST' && pathname === '/') {
    checkRpcAnswer(a, req.body ?? '', headers);
    return;
  }
  const contentType = headers['content-type'];
  // HEAD answers as GET, with no body.
  const card = (req.method === 'GET' || req.method === 'HEAD') && isCardPath(pathname);
  const served = restVersion(pathname, headers['a2a-version']);
  const { version } = served;
  const where = `${req.method} ${req.path.slice(0, 200)} v${card ? 'any' : version} ${req.body?.slice(0, 200) ?? ''} -> ${a.status} ${a.text.slice(0, 300)}`;
  expect(a.status < 500 || a.status === 503, where).toBe(true);
  if (card) {
    // The discovery card answers whatever the header says.
    expect(a.status, where).toBe(200);
    if (req.method === 'HEAD') expect(a.text, where).toBe('');
    else expect(JSON.parse(a.text).name, where).toBeTypeOf('string');
    return;
  }
  // An A2A body: every body sent to v1.0, and v0.3's under /v1.
  const hasBody = req.method === 'POST' || req.method === 'PUT';
  if (hasBody && (version === '1.0' || pathname.startsWith('/v1/'))) expectMediaTypeRule(a, contentType, req.body, where);
  if (a.status < 300) {
    expect(served.unsupportedHeader, where).toBe(false);
    // Only a route of the version served succeeds (HEAD answers as GET).
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (version === '1.0') expect(isV1Route(pathname, method), `${where}: not a v1.0 route`).toBe(true);
    else expect(pathname.startsWith('/v1/'), `${where}: not a v0.3 route`).toBe(true);
  }
  if (req.method === 'HEAD' || a.status === 204) {
    expect(a.text, where).toBe('');
    return;
  }
  if (a.contentType.startsWith('text/event-stream')) {
    expect(/:stream$|:subscribe$/.test(pathname), where).toBe(true);
    expect(a.status, where).toBe(200);
    for (const line of a.text.split('\n')) {
      if (!line.startsWith('data: ')) continue;
      const event: Json = JSON.parse(line.slice(6));
      if (version === '0.3') expect(event.kind, where).toBeDefined();
      else if (event.error) expectV1RestError(event, undefined, where);
      else expectStreamResponse(event, where);
    }
    return;
  }
  if (version === '1.0') {
    expect(a.contentType, where).toBe('application/a2a+json');
    const answer: Json = JSON.parse(a.text);
    if (a.status >= 400) {
      const reason = expectV1RestError(answer, a.status, where);
      expectVersionRefusal(a, served, undefined, reason, where);
    } else {
      expectV1Result(answer, where);
    }
    return;
  }
  if (a.status >= 400) {
    expect(a.contentType, where).toBe('application/json');
    const error: Json = JSON.parse(a.text);
    expectKnownError(error, a.status, where);
    expect(typeof error.error, where).toBe('string');
    expectVersionRefusal(a, served, error.code, undefined, where);
  } else if (a.text !== '') {
    JSON.parse(a.text);
  }
}

describe.each(STORE_KINDS)('fuzzing both transports (%s store)', (storeKind) => {
  let server: TestServer;
  /** Tasks stored before the fuzzing, as they read then. */
  const before = new Map<string, Json>();
  let healthChecks = 0;

  beforeAll(async () => {
    server = await startServer({ storeKind, pushAllowHttp: true });
    const a2a = client(server.url, 'jsonrpc');
    for (const text of ['echo before', 'ask which one?', 'fail before']) {
      const r = await a2a.send({ message: userMessage(text) });
      before.set(r.result.id, (await a2a.get(r.result.id)).result);
    }
  });

  afterAll(async () => {
    await server.stop();
  });

  const healthy = async (): Promise<void> => {
    healthChecks++;
    const res = await fetch(`${server.url}/v1/health`, { signal: AbortSignal.timeout(5000) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  };

  /** Property 4: the tasks stored before read back exactly as they were. */
  const unchanged = async (): Promise<void> => {
    const a2a = client(server.url, 'rest');
    for (const [id, task] of before) {
      const now = (await a2a.get(id)).result;
      // A paused task may be continued by a valid generated follow-up: only its history grows.
      if (task.status.state === 'input-required' && now.status.state !== 'input-required') continue;
      expect(now, `task ${id} changed`).toEqual(task);
    }
  };

  it(`JSON-RPC: ${RUNS} generated requests`, async () => {
    const ids = [...before.keys()];
    await fc.assert(
      fc.asyncProperty(rpcBodyText(ids, { methods: V1_RPC_METHODS, params: v1ParamsText(ids) }), requestHeaders, async (body, headers) => {
        checkRpcAnswer(await send(`${server.url}/`, 'POST', headers, body), body, headers);
        await healthy();
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    await unchanged();
  }, 120_000);

  it(`HTTP+JSON: ${RUNS} generated requests`, async () => {
    const ids = [...before.keys()];
    await fc.assert(
      fc.asyncProperty(fc.oneof(restRequest(ids), v1RestRequest(ids)), requestHeaders, async (req, headers) => {
        checkRestAnswer(await send(`${server.url}${req.path}`, req.method, headers, req.body), req, headers);
        await healthy();
      }),
      { seed: SEED + 1, numRuns: RUNS, endOnFailure: true },
    );
    await unchanged();
    expect(healthChecks).toBeGreaterThanOrEqual(2 * RUNS);
  }, 120_000);

  it(`raw framing: ${Math.ceil(RUNS / 4)} generated requests on their own connections`, async () => {
    const hidden: string[] = [];
    await fc.assert(
      fc.asyncProperty(rawFraming, async ({ text, hiddenId, head, ambiguous }) => {
        if (ambiguous) hidden.push(hiddenId);
        const answer = await rawExchange(server.url, text, 150);
        const where = `${text.slice(0, 400)} -> ${answer.text.slice(0, 300)}`;
        // The parser may drop the connection unanswered; whatever is answered is well formed.
        if (answer.text !== '') {
          // node:http may answer a parse error in the bytes after a HEAD (400 with a body and
          // `Connection: close`) before the HEAD itself: only a first answer that is not that
          // one is the HEAD's.
          const parserRefusal = (status: number, headers: Record<string, string>): boolean =>
            status === 400 && headers.connection === 'close';
          const headless = (i: number, status: number, headers: Record<string, string>): boolean =>
            (head && i === 0 && !parserRefusal(status, headers)) || status === 204;
          const responses = parseResponses(answer.text, headless);
          for (const r of responses) expect(r.status < 500 || r.status === 503, where).toBe(true);
          const first = responses[0];
          if (head && first && !parserRefusal(first.status, first.headers)) expect(first.body, where).toBe('');
        }
        await healthy();
      }),
      { seed: SEED + 2, numRuns: Math.ceil(RUNS / 4), endOnFailure: true },
    );
    // Give any request that should not have run the time it would have taken, then look for it.
    await new Promise((r) => setTimeout(r, 200));
    const page = await client(server.url, 'rest').list({ pageSize: 100 });
    const ran = page.result.tasks.map((t: Json) => t.history?.[0]?.messageId).filter((m: string) => hidden.includes(m));
    expect(ran, 'requests hidden behind ambiguous framing ran').toEqual([]);
    expect(hidden.length, 'ambiguous framings generated').toBeGreaterThan(10);
  }, 120_000);
});
