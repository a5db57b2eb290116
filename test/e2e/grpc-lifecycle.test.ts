/**
 * The gRPC listener's part in the server's life: its open streams are counted in
 * stats().openStreams with the HTTP ones, and a graceful shutdown stops it taking new calls while
 * the calls under way finish, as the HTTP listener does. Everything listens and dials on 127.0.0.1.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { TaskState, type Message, type Task } from 'a2a-sdk-v1';
import { describe, expect, it } from 'vitest';
import scenarioAgent from '../../examples/scenario-agent.js';
import { createServer } from '../../src/index.js';
import { eventually } from '../support/a2a.js';
import { grpcTransport } from '../support/grpc-sdk.js';
import { isV1Task, v1Message, v1Send } from '../support/sdk-v1.js';

const start = () =>
  createServer({ agent: scenarioAgent, host: '127.0.0.1', port: 0, grpcPort: 0, store: 'memory', logLevel: 'silent', env: {} });

const asTask = (r: Task | Message): Task => {
  if (!isV1Task(r)) throw new Error(`expected a task, got ${JSON.stringify(r)}`);
  return r;
};

describe('the gRPC listener in the server life', () => {
  it('counts its open streams in stats().openStreams until they end', async () => {
    const server = await start();
    try {
      const sdk = await grpcTransport(server.url);
      expect(server.stats().openStreams).toBe(0);
      const stream = sdk.sendMessageStream(v1Send(v1Message('slow 600')));
      const iterator = stream[Symbol.asyncIterator]();
      await iterator.next();
      expect(server.stats().openStreams).toBe(1);
      while (!(await iterator.next()).done);
      expect(await eventually(() => (server.stats().openStreams === 0 ? true : undefined), 5_000)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('a graceful shutdown takes no new calls and lets the call under way finish', async () => {
    const server = await start();
    let closed = false;
    try {
      const sdk = await grpcTransport(server.url);
      const running = sdk.sendMessage(v1Send(v1Message('slow 800')));
      await eventually(() => (server.stats().liveTasks > 0 ? true : undefined), 5_000);
      const stopped = server.shutdown({ graceMs: 10_000 });
      const late = await sdk.sendMessage(v1Send(v1Message('echo late'))).then(
        () => 'answered',
        (err: unknown) => (err as { status?: number }).status,
      );
      expect(late).toBe(GrpcStatus.UNAVAILABLE);
      expect(asTask(await running).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      await stopped;
      closed = true;
    } finally {
      if (!closed) await server.close();
    }
  });
});
