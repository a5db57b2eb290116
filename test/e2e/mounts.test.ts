/**
 * The server mounted under `/a2a` of real host apps, each as its README section shows it:
 * Express with `express.json()` in front, Fastify with the plugin, Hono on @hono/node-server and
 * Koa with a body parser in front. Every app answers a blocking send, a stream read to its end,
 * the card (whose URL is the mount path) and a POST to the mount root itself, in A2A v0.3 and
 * v1.0. A body an app read before the handler is used, and a body it read and dropped is
 * answered at once with an error that says what to change, never left waiting.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aFastify, a2aHono, a2aKoa, createServer, type A2AServer, type CreateServerOptions } from '../../src/index.js';
import scenarioAgent from '../../examples/scenario-agent.js';
import { restCall, rpcCall, userMessage, type Json } from '../support/a2a.js';
import { V1_HEADERS, v1UserMessage } from '../support/a2a-v1.js';
import { captureLogs } from '../support/logs.js';
import { openSse } from '../support/sse.js';
import { STREAM_5_EVENTS, streamMessage, summarize } from '../support/streams.js';

/** Every request here is answered at once: a hang fails the test in this time, not the suite's. */
const QUICK = 5000;
const MOUNT = '/a2a';

interface HostApp {
  /** The mount's URL: `http://127.0.0.1:<port>/a2a`. */
  url: string;
  close(): Promise<void>;
}

/** A node:http server (the host app's own) on a free loopback port. */
async function listening(server: http.Server): Promise<HostApp> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${MOUNT}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Express as most apps have it: `express.json()` for the app's own routes, before the mount. */
async function expressWithJson(a2a: A2AServer): Promise<HostApp> {
  const app = express();
  app.use(express.json());
  app.post('/echo', (req, res) => void res.json(req.body));
  app.use(MOUNT, a2a.nodeHandler());
  return listening(http.createServer(app));
}

/** Fastify with the plugin; the app's own routes keep Fastify's JSON parsing. */
async function fastifyApp(a2a: A2AServer): Promise<HostApp> {
  const app = Fastify();
  app.post('/echo', async (request) => request.body);
  await app.register(a2aFastify(a2a), { prefix: MOUNT });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${MOUNT}`, close: () => app.close() };
}

/** Hono on @hono/node-server, the middleware first. */
async function honoApp(a2a: A2AServer): Promise<HostApp> {
  const app = new Hono();
  app.use(a2aHono(a2a, { mountPath: MOUNT }));
  app.post('/echo', async (c) => c.json(await c.req.json()));
  const server = await new Promise<http.Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as http.Server));
  });
  return listening(server);
}

/**
 * What Koa body parsers do (@koa/bodyparser, koa-bodyparser): read the whole stream, keep the text
 * on `ctx.request.rawBody` and the value on `ctx.request.body`. Written out here so the test needs
 * no parser package.
 */
const koaJsonParser: Koa.Middleware = async (ctx, next) => {
  if (ctx.method === 'POST' && ctx.is('application/json')) {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    Object.assign(ctx.request, { rawBody, body: rawBody ? JSON.parse(rawBody) : {} });
  }
  await next();
};

/** Koa with a body parser before the middleware. */
async function koaApp(a2a: A2AServer): Promise<HostApp> {
  const app = new Koa();
  app.use(koaJsonParser);
  app.use(a2aKoa(a2a, { mountPath: MOUNT }));
  app.use((ctx) => {
    ctx.body = (ctx.request as { body?: unknown }).body ?? 'the host app';
  });
  const callback = app.callback();
  return listening(http.createServer((req, res) => void callback(req, res)));
}

const HOSTS: [string, (a2a: A2AServer) => Promise<HostApp>][] = [
  ['Express with express.json()', expressWithJson],
  ['Fastify', fastifyApp],
  ['Hono on @hono/node-server', honoApp],
  ['Koa with a body parser', koaApp],
];

const mountedServer = (opts: Partial<CreateServerOptions> = {}): Promise<A2AServer> =>
  createServer({ agent: scenarioAgent, frontEnd: 'none', store: 'memory', logLevel: 'silent', env: {}, ...opts });

/** A JSON-RPC call POSTed to exactly `url` (rpcCall adds a slash). */
async function postRpc(url: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<Json> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return { status: res.status, body: await res.json() };
}

describe.each(HOSTS)('mounted under /a2a of %s', (_name, start) => {
  let a2a: A2AServer;
  let host: HostApp;
  beforeAll(async () => {
    a2a = await mountedServer();
    host = await start(a2a);
  });
  afterAll(async () => {
    await host?.close();
    await a2a?.close();
  });

  it('serves the card at /a2a/.well-known/agent-card.json, its URL the mount path', { timeout: QUICK }, async () => {
    const res = await fetch(`${host.url}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card = (await res.json()) as Json;
    expect(card.url).toBe(host.url);
    expect(card.url.endsWith('/a2a')).toBe(true);
  });

  it('answers a v0.3 JSON-RPC send POSTed to the mount root itself', { timeout: QUICK }, async () => {
    const r = await postRpc(host.url, 'message/send', { message: userMessage('echo at the root') });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(r.body.result.artifacts[0].parts).toEqual([{ kind: 'text', text: 'at the root' }]);
  });

  it('answers a blocking send over JSON-RPC at /a2a/ and over HTTP+JSON', { timeout: QUICK }, async () => {
    const rpc = await rpcCall(host.url, 'message/send', { message: userMessage('echo rpc') });
    expect(rpc.result.status.state).toBe('completed');
    const rest = await restCall(host.url, 'POST', '/v1/message:send', { message: userMessage('echo rest') });
    expect(rest.status).toBe(200);
    expect(rest.result.artifacts[0].parts).toEqual([{ kind: 'text', text: 'rest' }]);
    const got = await restCall(host.url, 'GET', `/v1/tasks/${rest.result.id}`);
    expect(got.result.status.state).toBe('completed');
  });

  it('streams every event of a v0.3 stream through to its end, on both transports', { timeout: QUICK }, async () => {
    for (const transport of ['jsonrpc', 'rest'] as const) {
      const stream = await streamMessage(host.url, transport, { message: userMessage('stream 5') });
      expect(stream.status).toBe(200);
      expect(stream.contentType).toBe('text/event-stream');
      expect((await stream.items).map((i) => summarize(i.data))).toEqual(STREAM_5_EVENTS);
    }
  });

  it('answers v1.0 at the mount root: SendMessage, message:send and a SendStreamingMessage stream', { timeout: QUICK }, async () => {
    const sent = await postRpc(host.url, 'SendMessage', { message: v1UserMessage('echo v1 root') }, { ...V1_HEADERS });
    expect(sent.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(sent.body.result.task.artifacts[0].parts).toEqual([{ text: 'v1 root' }]);

    const rest = await restCall(host.url, 'POST', '/message:send', { message: v1UserMessage('echo v1 rest') }, { ...V1_HEADERS });
    expect(rest.status).toBe(200);
    expect(rest.result.task.status.state).toBe('TASK_STATE_COMPLETED');

    const body = { jsonrpc: '2.0', id: 9, method: 'SendStreamingMessage', params: { message: v1UserMessage('stream 3') } };
    const sse = await openSse(host.url, { body, headers: { ...V1_HEADERS } });
    expect(sse.status).toBe(200);
    const frames = (await sse.events).map((e) => e.data.result);
    expect(frames.length).toBe(6);
    expect(frames.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('answers HEAD of the card with its headers only, and /a2a/ as /a2a', { timeout: QUICK }, async () => {
    const head = await fetch(`${host.url}/.well-known/agent-card.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toContain('application/json');
    expect(await head.text()).toBe('');
    const r = await postRpc(`${host.url}/`, 'message/send', { message: userMessage('echo with a slash') });
    expect(r.body.result.status.state).toBe('completed');
  });

  it('leaves the rest of the app as it was', { timeout: QUICK }, async () => {
    const res = await fetch(`${host.url.slice(0, -MOUNT.length)}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ the: 'app' }),
    });
    expect(await res.json()).toEqual({ the: 'app' });
  });
});

describe('a body the host app read first', () => {
  const logs = captureLogs('info');
  let a2a: A2AServer;
  let host: HostApp;
  beforeAll(async () => {
    a2a = await mountedServer({ logger: logs.logger, maxBodyBytes: 4096 });
    const app = express();
    // Read and dropped: what a logging or signature middleware that forgets the body does.
    app.use('/dropped', (req, _res, next) => {
      req.resume();
      req.once('end', () => next());
    });
    app.use('/dropped', a2a.nodeHandler());
    app.use('/raw', express.raw({ type: 'application/json' }), a2a.nodeHandler());
    app.use('/text', express.text({ type: 'application/json' }), a2a.nodeHandler());
    app.use('/json', express.json({ limit: '1mb' }), a2a.nodeHandler());
    host = await listening(http.createServer(app));
  });
  afterAll(async () => {
    await host?.close();
    await a2a?.close();
  });
  const origin = (): string => host.url.slice(0, -MOUNT.length);

  it('is used whether the app kept it as bytes, text or a parsed value', { timeout: QUICK }, async () => {
    for (const kept of ['raw', 'text', 'json']) {
      const r = await rpcCall(`${origin()}/${kept}`, 'message/send', { message: userMessage(`echo kept as ${kept}`) });
      expect(r.result?.artifacts[0].parts[0].text).toBe(`kept as ${kept}`);
    }
  });

  it('keeps the body limit: a gzipped body the app inflated past maxBodyBytes is 413', { timeout: QUICK }, async () => {
    // Small on the wire (its Content-Length passes), large once express.json() inflated it.
    const body = gzipSync(JSON.stringify({ message: userMessage(`echo ${'x'.repeat(8000)}`) }));
    expect(body.byteLength).toBeLessThan(4096);
    const res = await fetch(`${origin()}/json/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as Json).message).toContain('the limit is 4096 bytes');
  });

  it('keeps the depth limit: a parsed body nesting too deep is refused as one sent to the server', { timeout: QUICK }, async () => {
    let deep: Json = 'bottom';
    for (let i = 0; i < 100; i++) deep = { d: deep };
    const rest = await restCall(`${origin()}/json`, 'POST', '/v1/message:send', { message: userMessage('echo deep', { metadata: deep }) });
    expect(rest.status).toBe(400);
    expect(rest.error?.message).toMatch(/nests deeper than/);
  });

  it('read and dropped, is answered at once with an error saying what to change, and logged once', { timeout: QUICK }, async () => {
    const rest = await restCall(`${origin()}/dropped`, 'POST', '/v1/message:send', { message: userMessage('echo lost') });
    expect(rest.status).toBe(500);
    expect(rest.error?.message).toMatch(/read the request body before the A2A handler.*before any body parser/);

    const rpc = await rpcCall(`${origin()}/dropped`, 'message/send', { message: userMessage('echo lost') });
    expect(rpc.error?.code).toBe(-32603);
    expect(rpc.error?.message).toContain('express.json()');

    const logged = logs.events('http.body_already_read');
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatchObject({ level: 'error', method: 'POST', path: '/v1/message:send' });
    expect(logged[0].fix).toContain('express.json()');
  });
});
