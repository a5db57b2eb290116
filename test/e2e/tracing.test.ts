/**
 * OpenTelemetry traces (README "Observability"): a client's trace continues through the request's
 * SERVER span, the task's turn and each webhook attempt, and the webhook receiver gets a
 * `traceparent` in the same trace. In-process with a provider the test registers (what an
 * embedder does), and through `a2actor serve` exporting OTLP/HTTP JSON to a collector the test
 * runs on 127.0.0.1. With no provider: no spans and no trace header on webhooks.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, rpcCall, userMessage, type Json } from '../support/a2a.js';
import { captureLogs, type CapturedLogs } from '../support/logs.js';
import { spawnServer } from '../support/process.js';
import { startServer, type TestServer } from '../support/server.js';
import { sequence, startReceiver, type Receiver } from '../support/webhook.js';

const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };
const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const hrMs = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;

/** A client's own span, as a `traceparent` it sends (W3C Trace Context §3.2). */
function clientSpan(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** `{trace id, parent span id}` of a traceparent header. */
function parseTraceparent(value: unknown): { traceId: string; parentId: string } | undefined {
  const m = typeof value === 'string' ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(value) : null;
  return m ? { traceId: m[1] as string, parentId: m[2] as string } : undefined;
}

/** The terminal webhook of a task, once it arrived. */
const terminalHook = (rx: Receiver, taskId: string) =>
  eventually(() => rx.received.find((r) => (r.body as Json)?.id === taskId && (r.body as Json).status.state === 'completed'), 10_000);

describe('with no tracer provider', () => {
  let server: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    server = await startServer({ ...LOCAL_PUSH });
  });
  afterAll(async () => {
    await server.stop();
    await rx.close();
  });

  it('spans are the API no-op and webhooks carry no traceparent, even when the client sent one', async () => {
    expect(trace.getTracer('a2actor').startSpan('probe').isRecording()).toBe(false);
    const caller = clientSpan();
    const sent = await rpcCall(
      server.url,
      'message/send',
      { message: userMessage('echo quiet'), configuration: { pushNotificationConfig: { url: rx.url, token: 't-off' } } },
      { traceparent: caller.traceparent },
    );
    expect(sent.result.status.state).toBe('completed');
    const hook = await terminalHook(rx, sent.result.id);
    expect(hook.headers.traceparent).toBeUndefined();
    expect(hook.headers.tracestate).toBeUndefined();
    expect(rx.received.every((r) => r.headers.traceparent === undefined)).toBe(true);
  });
});

describe('with a tracer provider registered by the embedder', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let server: TestServer;
  let rx: Receiver;
  let logs: CapturedLogs;
  beforeAll(async () => {
    provider.register();
    rx = await startReceiver();
    logs = captureLogs('debug');
    server = await startServer({ ...LOCAL_PUSH, logger: logs.logger });
  });
  afterAll(async () => {
    await server.stop();
    await rx.close();
    await provider.shutdown();
    trace.disable();
  });

  const spans = () => exporter.getFinishedSpans();
  const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

  it('client span -> SERVER span -> turn span -> webhook CLIENT span, and the receiver joins the trace', async () => {
    const caller = clientSpan();
    const sent = await rpcCall(
      server.url,
      'message/send',
      { message: userMessage('echo traced'), configuration: { pushNotificationConfig: { url: rx.url, token: 't-on' } } },
      { traceparent: caller.traceparent, tracestate: 'vendor=1' },
    );
    const task = sent.result;
    expect(task.status.state).toBe('completed');
    const hook = await terminalHook(rx, task.id);

    // The request: a SERVER span continuing the client's span, named after the operation.
    const request = await eventually(() => spans().find((s) => s.kind === SpanKind.SERVER && s.attributes['a2a.task_id'] === task.id));
    expect(request.name).toBe('message/send');
    expect(request.spanContext().traceId).toBe(caller.traceId);
    expect(parentOf(request)).toBe(caller.spanId);
    expect(request.attributes).toMatchObject({
      'a2a.task_id': task.id,
      'a2a.context_id': task.contextId,
      'rpc.method': 'message/send',
      'a2a.method': 'message/send',
      'a2a.transport': 'jsonrpc',
      'a2a.outcome': 'ok',
      'http.response.status_code': 200,
    });

    // The turn: the request's child, with each state entered as an event.
    const turn = await eventually(() => spans().find((s) => s.name === 'a2a.turn' && s.attributes['a2a.task_id'] === task.id));
    expect(turn.spanContext().traceId).toBe(caller.traceId);
    expect(parentOf(turn)).toBe(request.spanContext().spanId);
    expect(turn.events.map((e) => e.attributes?.state)).toEqual(['working', 'completed']);
    expect(turn.attributes['a2a.task.state']).toBe('completed');

    // Each webhook attempt: a CLIENT span under the turn, whose context the receiver got.
    const deliveries = await eventually(() => {
      const found = spans().filter((s) => s.kind === SpanKind.CLIENT && s.attributes['a2a.task_id'] === task.id);
      return found.length >= 2 ? found : undefined;
    });
    for (const d of deliveries) {
      expect(d.spanContext().traceId).toBe(caller.traceId);
      expect(parentOf(d)).toBe(turn.spanContext().spanId);
      expect(d.attributes['a2a.push.outcome']).toBe('delivered');
      expect(d.attributes['http.response.status_code']).toBe(200);
    }
    const received = parseTraceparent(hook.headers.traceparent);
    expect(received?.traceId).toBe(caller.traceId);
    expect(deliveries.map((d) => d.spanContext().spanId)).toContain(received?.parentId);
    for (const r of rx.received.filter((x) => (x.body as Json)?.id === task.id)) {
      expect(parseTraceparent(r.headers.traceparent)?.traceId).toBe(caller.traceId);
    }

    // Log lines of the request and of the task carry the trace.
    const line = logs.events('http.request').find((e) => e.taskId === task.id);
    expect(line).toMatchObject({ traceId: caller.traceId, contextId: task.contextId, operation: 'message/send', status: 200 });
    expect(logs.events('task.transition').filter((e) => e.taskId === task.id)).toEqual([
      expect.objectContaining({ from: 'submitted', to: 'working', traceId: caller.traceId }),
      expect.objectContaining({ from: 'working', to: 'completed', traceId: caller.traceId }),
    ]);
  });

  it('a follow-up turn is a child of the follow-up request, and its webhooks join that trace', async () => {
    const first = await rpcCall(server.url, 'message/send', {
      message: userMessage('ask your name'),
      configuration: { pushNotificationConfig: { url: rx.url, token: 't-follow' } },
    });
    expect(first.result.status.state).toBe('input-required');
    const caller = clientSpan();
    const rest = client(server.url, 'rest');
    const followUp = await rest.send(
      { message: userMessage('Ada', { taskId: first.result.id, contextId: first.result.contextId }) },
      { traceparent: caller.traceparent },
    );
    expect(followUp.result.status.state).toBe('completed');
    const hook = await terminalHook(rx, first.result.id);
    expect(parseTraceparent(hook.headers.traceparent)?.traceId).toBe(caller.traceId);
    const request = await eventually(() =>
      spans().find((s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === caller.traceId && s.name === 'message/send'),
    );
    expect(request.attributes).toMatchObject({ 'a2a.transport': 'rest', 'a2a.task_id': first.result.id, 'http.response.status_code': 200 });
    const turn = await eventually(() => spans().find((s) => s.name === 'a2a.turn' && parentOf(s) === request.spanContext().spanId));
    expect(turn.events.map((e) => [e.attributes?.['state.from'], e.attributes?.state])).toEqual([
      ['input-required', 'working'],
      ['working', 'completed'],
    ]);
    const got = await rest.get(first.result.id);
    expect(got.status).toBe(200);
    expect(
      await eventually(() => spans().find((s) => s.name === 'tasks/get' && s.attributes['a2a.task_id'] === first.result.id)),
    ).toBeDefined();
  });

  it('a retry sent after the turn ended is still a CLIENT span under that turn, one span per attempt', async () => {
    const flaky = await startReceiver({ respond: sequence([{ status: 503 }]) });
    try {
      const caller = clientSpan();
      const sent = await rpcCall(
        server.url,
        'message/send',
        { message: userMessage('echo retried'), configuration: { pushNotificationConfig: { url: flaky.url, token: 't-retry' } } },
        { traceparent: caller.traceparent },
      );
      const task = sent.result;
      await terminalHook(flaky, task.id);
      const turn = await eventually(() => spans().find((s) => s.name === 'a2a.turn' && s.attributes['a2a.task_id'] === task.id));
      const attempts = await eventually(() => {
        const found = spans().filter((s) => s.kind === SpanKind.CLIENT && s.attributes['a2a.task_id'] === task.id);
        return found.length >= 3 ? found : undefined;
      });
      expect(
        attempts.map((a) => [a.attributes['a2a.task.state'], a.attributes['a2a.push.attempt'], a.attributes['a2a.push.outcome']]),
      ).toEqual([
        ['working', 1, 'retryable'],
        ['working', 2, 'delivered'],
        ['completed', 1, 'delivered'],
      ]);
      for (const a of attempts) expect(parentOf(a)).toBe(turn.spanContext().spanId);
      // The retry (SERVICE_PUSH_RETRY_DELAY later) started after the turn had ended.
      const retry = attempts[1] as ReadableSpan;
      expect(hrMs(retry.startTime)).toBeGreaterThan(hrMs(turn.endTime));
      expect(flaky.received.map((r) => parseTraceparent(r.headers.traceparent)?.traceId)).toEqual([
        caller.traceId,
        caller.traceId,
        caller.traceId,
      ]);
    } finally {
      await flaky.close();
    }
  });

  it('a refused request is a span with the A2A error code as its outcome', async () => {
    const caller = clientSpan();
    const missing = await rpcCall(server.url, 'tasks/get', { id: 'no-such-task' }, { traceparent: caller.traceparent });
    expect(missing.error?.code).toBe(-32001);
    const span = await eventually(() => spans().find((s) => s.spanContext().traceId === caller.traceId));
    expect(span.name).toBe('tasks/get');
    expect(span.attributes).toMatchObject({
      'a2a.outcome': 'TaskNotFoundError',
      'a2a.error.code': -32001,
      'http.response.status_code': 200,
    });
  });
});

/** An OTLP/HTTP JSON collector on 127.0.0.1: keeps every span posted to /v1/traces. */
async function startCollector(): Promise<{ url: string; spans: Json[]; resources: Json[]; close(): Promise<void> }> {
  const spans: Json[] = [];
  const resources: Json[] = [];
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          resources.push(rs.resource);
          for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    resources,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('a2actor serve with OTEL_TRACES_EXPORTER=otlp (http/json)', () => {
  it('exports the request, turn and webhook spans in the client trace, flushed at shutdown', async () => {
    const collector = await startCollector();
    const rx = await startReceiver();
    const proc = await spawnServer(['examples/scenario-agent.ts', '--store', 'memory'], {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      SERVICE_PUSH_ALLOW_HTTP: 'true',
      SERVICE_PUSH_ALLOWED_HOSTS: '127.0.0.1',
    });
    try {
      const caller = clientSpan();
      const sent = await rpcCall(
        proc.url,
        'message/send',
        { message: userMessage('echo exported'), configuration: { pushNotificationConfig: { url: rx.url, token: 't-cli' } } },
        { traceparent: caller.traceparent },
      );
      const task = sent.result;
      const hook = await terminalHook(rx, task.id);
      expect(parseTraceparent(hook.headers.traceparent)?.traceId).toBe(caller.traceId);
      // SIGTERM: a graceful shutdown exports what the batch processor still holds.
      expect(await proc.kill('SIGTERM')).toBe(0);

      const inTrace = collector.spans.filter((s) => s.traceId === caller.traceId);
      const request = inTrace.find((s) => s.name === 'message/send');
      expect(request?.parentSpanId).toBe(caller.spanId);
      const attrs = Object.fromEntries((request?.attributes ?? []).map((a: Json) => [a.key, Object.values(a.value)[0]]));
      expect(attrs).toMatchObject({ 'a2a.task_id': task.id, 'a2a.transport': 'jsonrpc', 'a2a.outcome': 'ok' });
      const turn = inTrace.find((s) => s.name === 'a2a.turn');
      expect(turn?.parentSpanId).toBe(request?.spanId);
      expect(turn?.events.map((e: Json) => e.attributes.find((a: Json) => a.key === 'state')?.value.stringValue)).toEqual([
        'working',
        'completed',
      ]);
      const pushes = inTrace.filter((s) => s.name === 'a2a.push');
      expect(pushes.length).toBeGreaterThanOrEqual(2);
      for (const p of pushes) expect(p.parentSpanId).toBe(turn?.spanId);
      expect(pushes.map((p) => p.spanId)).toContain(parseTraceparent(hook.headers.traceparent)?.parentId);
      const serviceNames = collector.resources.map((r) => r.attributes.find((a: Json) => a.key === 'service.name')?.value.stringValue);
      expect(serviceNames).toContain('a2actor');
    } finally {
      if (proc.child.exitCode === null) await proc.kill('SIGKILL');
      await rx.close();
      await collector.close();
    }
  });
});
