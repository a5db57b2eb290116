/**
 * A gRPC stream whose client stops reading is held to the SSE writer's rule: once more than
 * SERVICE_SSE_MAX_BUFFERED_BYTES wait for it, the stream is cut with UNAVAILABLE (subscribe
 * again), not buffered without end; the task runs on and completes. A raw @grpc/grpc-js client,
 * so the test decides when (and whether) the stream is read.
 */
import { fromJson, toBinary } from '@bufbuild/protobuf';
import { credentials, makeGenericClientConstructor, status as GrpcStatus, type ClientReadableStream } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/index.js';
import { SendMessageRequestSchema } from '../../src/grpc/gen/a2a/v1_0/a2a_pb.js';
import { eventually, rpcCall } from '../support/a2a.js';
import { captureLogs, type CapturedLogs } from '../support/logs.js';
import { startServer, type TestServer } from '../support/server.js';

const CHUNK_TEXT = 'x'.repeat(32 * 1024);
const CHUNKS = 200;

/** `firehose`: CHUNKS artifact chunks of 32 KiB, as fast as the runtime takes them. */
const firehoseAgent = defineAgent({
  card: {
    name: 'Firehose',
    description: 'Large streamed output',
    version: '1.0.0',
    skills: [{ id: 'load', name: 'load', description: 'load', tags: ['test'] }],
  },
  capabilities: { streaming: true },
  async handler(ctx) {
    for (let i = 0; i < CHUNKS; i++) {
      ctx.artifact({ artifactId: 'blob', parts: [{ kind: 'text', text: CHUNK_TEXT }], append: i > 0, lastChunk: i === CHUNKS - 1 });
      if (i % 10 === 9) await new Promise((r) => setImmediate(r));
    }
    return ctx.complete();
  },
});

const bytes = (b: Buffer): Buffer => b;
const RawClient = makeGenericClientConstructor(
  {
    SendStreamingMessage: {
      path: '/lf.a2a.v1.A2AService/SendStreamingMessage',
      requestStream: false,
      responseStream: true,
      requestSerialize: bytes,
      requestDeserialize: bytes,
      responseSerialize: bytes,
      responseDeserialize: bytes,
    },
  },
  'A2AService',
);

const streamRequest = (text: string): Buffer =>
  Buffer.from(
    toBinary(
      SendMessageRequestSchema,
      fromJson(SendMessageRequestSchema, { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } }),
    ),
  );

describe('a gRPC stream with a slow client', () => {
  let server: TestServer;
  let logs: CapturedLogs;
  beforeAll(async () => {
    logs = captureLogs('info');
    server = await startServer({
      storeKind: 'memory',
      agent: firehoseAgent,
      grpcPort: 0,
      sseMaxBufferedBytes: 64 * 1024,
      logger: logs.logger,
    });
  });
  afterAll(() => server?.stop());

  it('is cut with UNAVAILABLE once too much waits for it; the task completes anyway', async () => {
    const client = new RawClient(`127.0.0.1:${server.grpcPort}`, credentials.createInsecure());
    try {
      const call = (client as unknown as { SendStreamingMessage(req: Buffer): ClientReadableStream<Buffer> }).SendStreamingMessage(
        streamRequest('firehose'),
      );
      const ended = new Promise<{ code: number; received: number }>((resolve) => {
        let received = 0;
        call.on('data', () => received++);
        call.on('error', (err: { code: number }) => resolve({ code: err.code, received }));
        call.on('end', () => resolve({ code: GrpcStatus.OK, received }));
      });
      call.pause();
      const cut = await eventually(() => logs.events('grpc.stream_cut')[0], 10_000);
      expect(cut).toMatchObject({ limit: 64 * 1024 });
      call.resume();
      const { code, received } = await ended;
      expect(code).toBe(GrpcStatus.UNAVAILABLE);
      // Far fewer than the task's frames reached the client: the rest was never buffered for it.
      expect(received).toBeLessThan(CHUNKS);

      const taskId = cut.taskId as string;
      const done = await eventually(async () => {
        const got = await rpcCall(server.url, 'tasks/get', { id: taskId, historyLength: 0 });
        return got.result?.status?.state === 'completed' ? got.result : undefined;
      }, 10_000);
      expect(done.id).toBe(taskId);
      await eventually(() => (server.stats().subscribers === 0 ? true : undefined));
    } finally {
      client.close();
    }
  });
});
