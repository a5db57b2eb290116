/**
 * The gRPC listener as an operator meets it: off unless SERVICE_GRPC_PORT is set, TLS when a
 * certificate is configured, plaintext refused off loopback, the request size cap, and a span
 * per call continuing the caller's `traceparent`. Everything listens and dials on 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { credentials, status as GrpcStatus } from '@grpc/grpc-js';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { TaskState, type Message, type Task } from 'a2a-sdk-v1';
import { GrpcTransportFactory } from 'a2a-sdk-v1/client/grpc';
import { VersionNotSupportedError } from 'a2a-sdk-v1/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import scenarioAgent from '../../examples/scenario-agent.js';
import { createServer } from '../../src/index.js';
import { eventually, rpcCall } from '../support/a2a.js';
import { isV1Task, v1Message, v1Send } from '../support/sdk-v1.js';
import { grpcTransport, rejection, statusOf } from '../support/grpc-sdk.js';
import { startServer, tempDir, type TestServer } from '../support/server.js';

const asTask = (r: Task | Message): Task => {
  if (!isV1Task(r)) throw new Error(`expected a task, got ${JSON.stringify(r)}`);
  return r;
};

describe('the gRPC listener', () => {
  it('is off by default: the card lists no gRPC interface', async () => {
    const server = await startServer({ storeKind: 'memory' });
    try {
      expect(server.grpcPort).toBeUndefined();
      const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as {
        additionalInterfaces: { transport: string }[];
        supportedInterfaces: { protocolBinding: string }[];
      };
      expect(card.additionalInterfaces.map((i) => i.transport)).not.toContain('GRPC');
      expect(card.supportedInterfaces.map((i) => i.protocolBinding)).not.toContain('GRPC');
    } finally {
      await server.stop();
    }
  });

  it('refuses plaintext on a host that is not loopback, naming the settings that fix it', async () => {
    await expect(
      createServer({ agent: scenarioAgent, store: 'memory', port: 0, grpcPort: 0, grpcHost: '0.0.0.0', logLevel: 'silent' }),
    ).rejects.toThrow(/SERVICE_GRPC_TLS_CERT.*SERVICE_GRPC_ALLOW_PLAINTEXT/s);
  });

  it('refuses a certificate without its key', async () => {
    await expect(
      createServer({ agent: scenarioAgent, store: 'memory', port: 0, grpcPort: 0, grpcTlsCert: 'cert.pem', logLevel: 'silent' }),
    ).rejects.toThrow('gRPC TLS needs both SERVICE_GRPC_TLS_CERT and SERVICE_GRPC_TLS_KEY');
  });

  it('each service speaks its version: an a2a-version that disagrees is VersionNotSupportedError', async () => {
    const server = await startServer({ storeKind: 'memory', grpcPort: 0 });
    try {
      const sdk = await grpcTransport(server.url);
      const refused = await rejection(sdk.sendMessage(v1Send(v1Message('echo hi')), { serviceParameters: { 'a2a-version': '0.3' } }));
      expect(refused).toBeInstanceOf(VersionNotSupportedError);
      expect(statusOf(refused)).toBe(GrpcStatus.FAILED_PRECONDITION);
      const sent = await sdk.sendMessage(v1Send(v1Message('echo hi')), { serviceParameters: { 'a2a-version': '1.0' } });
      expect(asTask(sent).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    } finally {
      await server.stop();
    }
  });

  it('a blocking send past its deadline is DEADLINE_EXCEEDED for the client; the task runs on', async () => {
    const server = await startServer({ storeKind: 'memory', grpcPort: 0 });
    try {
      const hurried = await grpcTransport(server.url, new GrpcTransportFactory({ grpcCallOptions: { deadline: Date.now() + 300 } }));
      const contextId = crypto.randomUUID();
      const late = await rejection(hurried.sendMessage(v1Send(v1Message('slow 1000', { contextId }))));
      expect(statusOf(late)).toBe(GrpcStatus.DEADLINE_EXCEEDED);
      const done = await eventually(async () => {
        const listed = await rpcCall(server.url, 'tasks/list', { contextId });
        const task = (listed.result as { tasks: { status: { state: string } }[] }).tasks[0];
        return task?.status.state === 'completed' ? task : undefined;
      }, 10_000);
      expect(done).toBeDefined();
    } finally {
      await server.stop();
    }
  });

  it('refuses a request message past SERVICE_MAX_BODY_BYTES with RESOURCE_EXHAUSTED', async () => {
    const server = await startServer({ storeKind: 'memory', grpcPort: 0, maxBodyBytes: 64 * 1024 });
    try {
      const sdk = await grpcTransport(server.url);
      const big = await rejection(sdk.sendMessage(v1Send(v1Message(`echo ${'x'.repeat(100 * 1024)}`))));
      expect(statusOf(big)).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
      expect(asTask(await sdk.sendMessage(v1Send(v1Message('echo small')))).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    } finally {
      await server.stop();
    }
  });
});

describe('gRPC over TLS', () => {
  const dir = tempDir('a2actor-grpc-tls-');
  let server: TestServer;
  let cert: Buffer;
  beforeAll(async () => {
    const [certPath, keyPath] = [join(dir.dir, 'cert.pem'), join(dir.dir, 'key.pem')];
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyPath, '-out', certPath,
    ], { stdio: 'pipe' }); // prettier-ignore
    cert = readFileSync(certPath);
    // The key as PEM text, the certificate as a path: both forms are read.
    server = await startServer({ storeKind: 'memory', grpcPort: 0, grpcTlsCert: certPath, grpcTlsKey: readFileSync(keyPath, 'utf8') });
  });
  afterAll(async () => {
    await server?.stop();
    dir.cleanup();
  });

  it('a client trusting the certificate sends over TLS; a plaintext client is not answered', async () => {
    const tls = await grpcTransport(server.url, new GrpcTransportFactory({ grpcChannelCredentials: credentials.createSsl(cert) }));
    expect(asTask(await tls.sendMessage(v1Send(v1Message('echo over tls')))).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const plain = await grpcTransport(server.url, new GrpcTransportFactory({ grpcCallOptions: { deadline: Date.now() + 2000 } }));
    expect(statusOf(await rejection(plain.sendMessage(v1Send(v1Message('echo in the clear')))))).toBeOneOf([
      GrpcStatus.UNAVAILABLE,
      GrpcStatus.DEADLINE_EXCEEDED,
    ]);
  });
});

describe('gRPC calls are traced', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let server: TestServer;
  beforeAll(async () => {
    provider.register();
    server = await startServer({ storeKind: 'memory', grpcPort: 0 });
  });
  afterAll(async () => {
    await server?.stop();
    await provider.shutdown();
    trace.disable();
  });

  it('a SERVER span per call continues the traceparent sent in metadata', async () => {
    const traceId = randomBytes(16).toString('hex');
    const spanId = randomBytes(8).toString('hex');
    const sdk = await grpcTransport(server.url);
    const task = asTask(
      await sdk.sendMessage(v1Send(v1Message('echo traced')), { serviceParameters: { traceparent: `00-${traceId}-${spanId}-01` } }),
    );
    const span = await eventually(() =>
      exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER && s.attributes['a2a.transport'] === 'grpc'),
    );
    expect(span.name).toBe('message/send');
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.parentSpanContext?.spanId).toBe(spanId);
    expect(span.attributes).toMatchObject({ 'rpc.system': 'grpc', 'a2a.outcome': 'ok', 'a2a.task_id': task.id });
  });
});
