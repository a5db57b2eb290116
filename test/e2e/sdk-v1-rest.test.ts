/**
 * The newest official client, @a2a-js/sdk 1.3.0 (installed as `a2a-sdk-v1`), in its documented
 * v0.3 compatibility mode (`legacyCompat: { enabled: true }`) over HTTP+JSON, against our server
 * with SERVICE_REST_DIALECT=proto. Its LegacyRestTransport sends `A2A-Version: 0.3` and reads
 * proto-JSON. Our card lists every transport at v1.0 and at v0.3, and this client prefers v1.0
 * where it can (test/e2e/sdk-v1-native.test.ts covers that); to hold the v0.3 path to the same
 * scenarios, the client here is made from the served card with its v0.3 interfaces only.
 */
import { Role, TaskState, type Message, type Task } from 'a2a-sdk-v1';
import { TaskNotFoundError } from 'a2a-sdk-v1/errors';
import { ClientFactory, DefaultAgentCardResolver, RestTransportFactory, type Client } from 'a2a-sdk-v1/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/a2a.js';
import { isV1Task, v1Message, v1Send } from '../support/sdk-v1.js';
import { startServer, type TestServer } from '../support/server.js';
import { startReceiver, type Receiver } from '../support/webhook.js';

const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };

const msg = v1Message;
const send = (message: Message, blocking = true) => v1Send(message, !blocking);
const isTask = isV1Task;
const textOf = (r: { parts: Message['parts'] } | undefined): string | undefined => {
  const c = r?.parts[0]?.content;
  return c?.$case === 'text' ? c.value : undefined;
};

/** One line per stream event, in the 1.0 StreamResponse's oneof. */
async function collect(stream: AsyncIterable<{ payload?: { $case: string; value: unknown } | undefined }>): Promise<string[]> {
  const out: string[] = [];
  for await (const e of stream) {
    const p = e.payload;
    if (p?.$case === 'task') out.push(`task:${TaskState[(p.value as Task).status?.state ?? 0]}`);
    else if (p?.$case === 'statusUpdate') {
      const v = p.value as { status?: Task['status'] };
      out.push(`status:${TaskState[v.status?.state ?? 0]}`);
    } else if (p?.$case === 'artifactUpdate')
      out.push(`artifact:${(p.value as { artifact?: { artifactId: string } }).artifact?.artifactId}`);
    else out.push(p?.$case ?? 'none');
  }
  return out;
}

describe('@a2a-js/sdk 1.3.0 (v0.3 compatibility mode) REST transport against a2actor (proto dialect)', () => {
  let server: TestServer;
  let sdk: Client;
  const seen: { line: string; version: string | undefined }[] = [];
  beforeAll(async () => {
    server = await startServer({ restDialect: 'proto', ...LOCAL_PUSH });
    const fetchImpl: typeof fetch = (input, init) => {
      const url = new URL(String(input));
      const headers = (init?.headers ?? {}) as Record<string, string>;
      seen.push({ line: `${init?.method ?? 'GET'} ${decodeURIComponent(url.pathname)}`, version: headers['A2A-Version'] });
      return fetch(input, init);
    };
    const factory = new ClientFactory({
      transports: [new RestTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
      preferredTransports: ['HTTP+JSON'],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } }),
    });
    const card = await new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } }).resolve(server.url);
    sdk = await factory.createFromAgentCard({
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3'),
    });
  });
  beforeEach(() => {
    seen.length = 0;
  });
  afterAll(() => server.stop());

  it('send, follow-up on input-required, get with historyLength; every call is REST with A2A-Version 0.3', async () => {
    const first = await sdk.sendMessage(send(msg('ask which colour?')));
    if (!isTask(first)) throw new Error('expected a task');
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(first.status?.message)).toBe('which colour?');
    const done = await sdk.sendMessage(send(msg('green', { taskId: first.id, contextId: first.contextId })));
    if (!isTask(done)) throw new Error('expected a task');
    expect(done.id).toBe(first.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done.artifacts[0])).toBe('got: green');
    const got = await sdk.getTask({ tenant: '', id: first.id, historyLength: 1 });
    expect(got.history).toHaveLength(1);
    expect(seen).toEqual([
      { line: 'POST /v1/message:send', version: '0.3' },
      { line: 'POST /v1/message:send', version: '0.3' },
      { line: `GET /v1/tasks/${first.id}`, version: '0.3' },
    ]);
  });

  it('a direct reply is a Message; cancel; an unknown task is its TaskNotFoundError', async () => {
    const reply = await sdk.sendMessage(send(msg('direct hello v1')));
    if (isTask(reply)) throw new Error('expected a message');
    expect(reply.role).toBe(Role.ROLE_AGENT);
    expect(textOf(reply)).toBe('hello v1');

    const slow = await sdk.sendMessage(send(msg('slow 5000'), false));
    if (!isTask(slow)) throw new Error('expected a task');
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(slow.status?.state);
    const canceled = await sdk.cancelTask({ tenant: '', id: slow.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(sdk.getTask({ tenant: '', id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('stream and resubscribe', async () => {
    expect(await collect(sdk.sendMessageStream(send(msg('stream 3'))))).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:stream',
      'artifact:stream',
      'artifact:stream',
      'status:TASK_STATE_COMPLETED',
    ]);
    const slow = await sdk.sendMessage(send(msg('slow 400'), false));
    if (!isTask(slow)) throw new Error('expected a task');
    const followed = await collect(sdk.resubscribeTask({ tenant: '', id: slow.id }));
    expect(followed[0]).toMatch(/^task:TASK_STATE_(SUBMITTED|WORKING)$/);
    expect(followed.at(-1)).toBe('status:TASK_STATE_COMPLETED');
    await expect(collect(sdk.resubscribeTask({ tenant: '', id: 'no-such-task' }))).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  describe('push configs', () => {
    let rx: Receiver;
    beforeAll(async () => {
      rx = await startReceiver();
    });
    afterAll(() => rx.close());

    it('create, get, list and delete', async () => {
      const task = await sdk.sendMessage(send(msg('ask anything?')));
      if (!isTask(task)) throw new Error('expected a task');
      const config = { tenant: '', id: 'hook-1', taskId: task.id, url: rx.url, token: 'tok', authentication: undefined };
      const created = await sdk.createTaskPushNotificationConfig(config);
      expect(created).toMatchObject({ id: 'hook-1', taskId: task.id, url: rx.url, token: 'tok' });
      const got = await sdk.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
      expect(got).toMatchObject({ id: 'hook-1', taskId: task.id, url: rx.url });
      const list = await sdk.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
      expect(list.configs.map((c) => c.id)).toEqual(['hook-1']);
      await sdk.sendMessage(send(msg('blue', { taskId: task.id })));
      await eventually(() => (rx.bodiesOf(task.id).some((b) => b.status.state === 'completed') ? true : undefined));
      await sdk.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
      expect((await sdk.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
    });
  });
});
