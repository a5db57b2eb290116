/**
 * The official client, @a2a-js/sdk 1.3.0 (installed as `a2a-sdk-v1`), over gRPC against our
 * server's gRPC listener: in its native v1.0 mode (`createFromUrl` reads the card and picks the
 * `GRPC` interface at v1.0), and in its v0.3 compatibility mode (its GrpcTransportFactory with
 * `legacyCompat`, given the card's v0.3 `GRPC` interface, which makes its LegacyGrpcTransport).
 * Both drive the same tasks as JSON-RPC and REST, through the same auth gate and error table.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { TaskState, type AgentCard, type Message, type StreamResponse, type Task } from 'a2a-sdk-v1';
import { DefaultAgentCardResolver, type Transport } from 'a2a-sdk-v1/client';
import { GrpcTransportFactory } from 'a2a-sdk-v1/client/grpc';
import { TaskNotCancelableError, TaskNotFoundError } from 'a2a-sdk-v1/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import authAgent from '../../examples/auth-agent.js';
import { eventually, rpcCall, restCall, userMessage } from '../support/a2a.js';
import { isV1Task, v1Message as msg, v1Send } from '../support/sdk-v1.js';
import { grpcTransport, rejection, statusOf } from '../support/grpc-sdk.js';
import { startServer, type TestServer } from '../support/server.js';
import { pushedTask, startReceiver, type Receiver } from '../support/webhook.js';

const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };
const SCENARIO_TOKEN = { authorization: 'Bearer scenario-token' };

const send = (text: string, extra: Partial<Message> = {}, returnImmediately = false) => v1Send(msg(text, extra), returnImmediately);
const textOf = (r: { parts: Message['parts'] } | undefined): string | undefined => {
  const c = r?.parts[0]?.content;
  return c?.$case === 'text' ? c.value : undefined;
};
const asTask = (r: Task | Message): Task => {
  if (!isV1Task(r)) throw new Error(`expected a task, got ${JSON.stringify(r)}`);
  return r;
};
const byId = (id: string) => ({ tenant: '', id });
const cancelOf = (id: string) => ({ tenant: '', id, metadata: undefined });

/** The client's stream events as one-line summaries: kind, then state. */
async function summaries(stream: AsyncIterable<StreamResponse>): Promise<string[]> {
  const out: string[] = [];
  for await (const { payload } of stream) {
    if (payload?.$case === 'task') out.push(`task:${TaskState[payload.value.status?.state ?? 0]}`);
    else if (payload?.$case === 'statusUpdate') out.push(`status:${TaskState[payload.value.status?.state ?? 0]}`);
    else out.push(String(payload?.$case));
  }
  return out;
}

/** The card as the native client resolves it (`A2A-Version: 1.0`). */
const resolveCard = (url: string): Promise<AgentCard> => new DefaultAgentCardResolver().resolve(url);

/** Native v1.0: discovery as a user does it, the transport the client picked. */
const nativeTransport = (url: string): Promise<Transport> => grpcTransport(url);

/**
 * v0.3 compatibility: the SDK's factory, given our card's v0.3 `GRPC` interface (its interface
 * picker prefers v1.0 when the card lists both, so the card is narrowed to the v0.3 one).
 */
async function legacyTransport(url: string): Promise<Transport> {
  const card = await resolveCard(url);
  const v03 = card.supportedInterfaces.filter((i) => i.protocolBinding === 'GRPC' && i.protocolVersion === '0.3');
  expect(v03).toHaveLength(1);
  return new GrpcTransportFactory({ legacyCompat: { enabled: true } }).create(v03[0]!.url, { ...card, supportedInterfaces: v03 });
}

const MODES = [
  { mode: 'native v1.0', version: '1.0', transportOf: nativeTransport },
  { mode: 'v0.3 compatibility', version: '0.3', transportOf: legacyTransport },
] as const;

describe.each(MODES)('@a2a-js/sdk 1.3.0 over gRPC, $mode', ({ version, transportOf }) => {
  let server: TestServer;
  let rx: Receiver;
  let sdk: Transport;
  beforeAll(async () => {
    rx = await startReceiver();
    server = await startServer({ storeKind: 'memory', grpcPort: 0, ...LOCAL_PUSH });
    sdk = await transportOf(server.url);
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
  });

  it('the card lists the gRPC target at both versions, and the client speaks this one', async () => {
    const card = await resolveCard(server.url);
    const target = `127.0.0.1:${server.grpcPort}`;
    expect(card.supportedInterfaces.filter((i) => i.protocolBinding === 'GRPC')).toEqual([
      expect.objectContaining({ url: target, protocolVersion: '1.0' }),
      expect.objectContaining({ url: target, protocolVersion: '0.3' }),
    ]);
    const v03 = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as { additionalInterfaces: unknown[] };
    expect(v03.additionalInterfaces).toContainEqual({ url: target, transport: 'GRPC' });
    expect(sdk.protocolName).toBe('GRPC');
    expect(sdk.protocolVersion).toBe(version);
  });

  it('a blocking send answers the finished task; get reads it back', async () => {
    const task = asTask(await sdk.sendMessage(send('echo hello grpc')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.artifacts[0])).toBe('hello grpc');
    const got = await sdk.getTask({ ...byId(task.id), historyLength: 1 });
    expect(got.id).toBe(task.id);
    expect(got.history).toHaveLength(1);
  });

  it('a direct reply arrives as a Message', async () => {
    const reply = await sdk.sendMessage(send('direct hello'));
    expect(isV1Task(reply)).toBe(false);
    expect(textOf(reply as Message)).toBe('hello');
  });

  it('a streamed send delivers the task, its updates and the final state', async () => {
    const events = await summaries(sdk.sendMessageStream(send('echo streamed')));
    expect(events[0]).toMatch(/^task:/);
    expect(events).toContain('artifactUpdate');
    expect(events.at(-1)).toBe('status:TASK_STATE_COMPLETED');
  });

  it('subscribe follows a running task to its end', async () => {
    const started = asTask(await sdk.sendMessage(send('slow 400', {}, true)));
    const events = await summaries(sdk.resubscribeTask(byId(started.id)));
    expect(events[0]).toMatch(/^task:/);
    expect(events.at(-1)).toBe('status:TASK_STATE_COMPLETED');
  });

  it('cancel ends a running task; a second cancel is TaskNotCancelableError', async () => {
    const started = asTask(await sdk.sendMessage(send('stubborn', {}, true)));
    const canceled = await sdk.cancelTask(cancelOf(started.id));
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const again = await rejection(sdk.cancelTask(cancelOf(started.id)));
    expect(again).toBeInstanceOf(TaskNotCancelableError);
    expect(statusOf(again)).toBe(GrpcStatus.FAILED_PRECONDITION);
  });

  it('an unknown task is TaskNotFoundError with NOT_FOUND', async () => {
    const err = await rejection(sdk.getTask(byId('no-such-task')));
    expect(err).toBeInstanceOf(TaskNotFoundError);
    expect(statusOf(err)).toBe(GrpcStatus.NOT_FOUND);
  });

  it('push configs: create, get, list and delete; a real delivery reaches the receiver', async () => {
    const task = asTask(await sdk.sendMessage(send('ask for a push?')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const config = { tenant: '', id: 'hook-1', taskId: task.id, url: rx.url, token: 'tok', authentication: undefined };
    expect(await sdk.createTaskPushNotificationConfig(config)).toMatchObject({ id: 'hook-1', taskId: task.id, url: rx.url, token: 'tok' });
    expect(await sdk.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' })).toMatchObject({
      id: 'hook-1',
      url: rx.url,
    });
    const listed = await sdk.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
    expect(listed.configs.map((c) => c.id)).toEqual(['hook-1']);

    await sdk.sendMessage(send('blue', { taskId: task.id, contextId: task.contextId }));
    const delivery = await eventually(() =>
      rx.received.find((r) => {
        const pushed = pushedTask(r.body);
        return pushed?.id === task.id && ['completed', 'TASK_STATE_COMPLETED'].includes(pushed.status?.state);
      }),
    );
    expect(delivery.headers['x-a2a-notification-token']).toBe('tok');

    await sdk.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
    const after = await sdk.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
    expect(after.configs).toEqual([]);
    expect(statusOf(await rejection(sdk.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' })))).toBe(
      GrpcStatus.NOT_FOUND,
    );
  });

  it('the extended card needs the bearer token in metadata, then adds its secret skill', async () => {
    expect(statusOf(await rejection(sdk.getExtendedAgentCard({ tenant: '' })))).toBe(GrpcStatus.UNAUTHENTICATED);
    const extended = await sdk.getExtendedAgentCard({ tenant: '' }, { serviceParameters: SCENARIO_TOKEN });
    expect(extended.skills.map((s) => s.id)).toContain('secret-scenarios');
  });

  it('a client that cancels its stream ends the stream, not the task', async () => {
    const abort = new AbortController();
    const stream = sdk.sendMessageStream(send('slow 600'), { signal: abort.signal });
    let taskId = '';
    await expect(
      (async () => {
        for await (const { payload } of stream) {
          if (payload?.$case === 'task') {
            taskId = payload.value.id;
            abort.abort();
          }
        }
      })(),
    ).rejects.toThrow();
    expect(taskId).not.toBe('');
    const done = await eventually(async () => {
      const t = await sdk.getTask(byId(taskId));
      return t.status?.state === TaskState.TASK_STATE_COMPLETED ? t : undefined;
    }, 10_000);
    expect(textOf(done.artifacts[0])).toBe('slept 600 ms');
    await eventually(() => (server.stats().subscribers === 0 ? true : undefined));
  });

  if (version === '1.0') {
    it('list finds the tasks of a context', async () => {
      const contextId = crypto.randomUUID();
      const ids = [];
      for (const text of ['echo one', 'echo two']) ids.push(asTask(await sdk.sendMessage(send(text, { contextId }))).id);
      const listed = await sdk.listTasks({
        tenant: '',
        contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: '',
        statusTimestampAfter: undefined,
      });
      expect(listed.tasks.map((t) => t.id).sort()).toEqual(ids.sort());
      expect(listed.totalSize).toBe(2);
    });
  }
});

describe('gRPC and the other transports share one server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ storeKind: 'memory', grpcPort: 0 });
  });
  afterAll(() => server?.stop());

  it('a task made over gRPC is the same task over JSON-RPC (both versions) and REST, and back', async () => {
    const sdk = await nativeTransport(server.url);
    const task = asTask(await sdk.sendMessage(send('echo across')));

    const v03 = await rpcCall(server.url, 'tasks/get', { id: task.id });
    expect(v03.result).toMatchObject({ id: task.id, status: { state: 'completed' } });
    const v1 = await rpcCall(server.url, 'GetTask', { id: task.id }, { 'A2A-Version': '1.0' });
    expect(v1.result).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_COMPLETED' } });
    const rest = await restCall(server.url, 'GET', `/v1/tasks/${task.id}`);
    expect(rest.result).toMatchObject({ id: task.id, contextId: task.contextId });

    const made = await rpcCall(server.url, 'message/send', { message: userMessage('echo back') });
    const id = (made.result as { id: string }).id;
    const legacy = await legacyTransport(server.url);
    expect((await legacy.getTask(byId(id))).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await sdk.getTask(byId(id))).id).toBe(id);
  });

  it('gRPC calls are counted under transport grpc, by operation', async () => {
    const sdk = await nativeTransport(server.url);
    await sdk.sendMessage(send('echo counted'));
    await rejection(sdk.getTask(byId('missing')));
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/a2actor_requests_total\{transport="grpc",operation="message\/send",outcome="ok"\} [1-9]/);
    expect(text).toMatch(/a2actor_requests_total\{transport="grpc",operation="tasks\/get",outcome="-32001"\} [1-9]/);
  });
});

describe('gRPC through the auth gate', () => {
  let server: TestServer;
  const ALICE = { authorization: 'Bearer alice-token' };
  const BOB = { authorization: 'Bearer bob-token' };
  beforeAll(async () => {
    server = await startServer({
      storeKind: 'memory',
      grpcPort: 0,
      maxStreamsPerCaller: 1,
      agent: {
        ...authAgent,
        auth: { ...authAgent.auth!, authorize: (principal, { operation }) => !(principal.id === 'bob' && operation === 'tasks/cancel') },
      },
    });
  });
  afterAll(() => server?.stop());

  it.each(MODES)(
    '$mode: no token is UNAUTHENTICATED; a refused operation is PERMISSION_DENIED; owners keep their tasks',
    async ({ transportOf }) => {
      const sdk = await transportOf(server.url);
      expect(statusOf(await rejection(sdk.sendMessage(send('echo hi'))))).toBe(GrpcStatus.UNAUTHENTICATED);
      expect(statusOf(await rejection(sdk.sendMessage(send('echo hi'), { serviceParameters: { authorization: 'Bearer wrong' } })))).toBe(
        GrpcStatus.UNAUTHENTICATED,
      );

      const mine = asTask(await sdk.sendMessage(send('whoami'), { serviceParameters: ALICE }));
      expect(textOf(mine.artifacts[0])).toBe('you are alice');
      // Another caller cannot tell the task exists.
      expect(await rejection(sdk.getTask(byId(mine.id), { serviceParameters: BOB }))).toBeInstanceOf(TaskNotFoundError);
      expect(statusOf(await rejection(sdk.cancelTask(cancelOf(mine.id), { serviceParameters: BOB })))).toBe(GrpcStatus.PERMISSION_DENIED);
      expect((await sdk.getTask(byId(mine.id), { serviceParameters: ALICE })).id).toBe(mine.id);
    },
  );

  it('streams count against the caller quota: a second open stream is RESOURCE_EXHAUSTED', async () => {
    const sdk = await nativeTransport(server.url);
    const first = sdk.sendMessageStream(send('slow 800'), { serviceParameters: ALICE });
    const iterator = first[Symbol.asyncIterator]();
    await iterator.next();
    const second = await rejection(summaries(sdk.sendMessageStream(send('echo more'), { serviceParameters: ALICE })));
    expect(statusOf(second)).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    while (!(await iterator.next()).done);
  });
});
