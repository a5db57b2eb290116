/**
 * The official @a2a-js/sdk 0.3.14 client over HTTP+JSON, unchanged, against our server with
 * SERVICE_REST_DIALECT=proto: its RestTransport reads proto-JSON (`{"task": …}`, `TASK_STATE_*`,
 * parts under `content`), so the same scenarios its JSON-RPC transport passes
 * (sdk-client.test.ts, streaming-sdk.test.ts) pass over REST. Every request it makes is recorded
 * so the tests can tell it really went to /v1.
 */
import { ClientFactory, ClientFactoryOptions, RestTransportFactory, TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/client';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually, rpcCall, type Json } from '../support/a2a.js';
import { isSdkTask as isTask, sdkMessage as msg } from '../support/sdk.js';
import { startServer, type TestServer } from '../support/server.js';
import { summarize } from '../support/streams.js';
import { startReceiver, type Receiver } from '../support/webhook.js';

const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };

async function collect(stream: AsyncIterable<unknown>): Promise<string[]> {
  const out: string[] = [];
  for await (const event of stream) out.push(summarize(event));
  return out;
}

/**
 * A client whose only transport is the SDK's RestTransport, with every request's method and
 * path (`seen`) and JSON body (`bodies`) recorded.
 */
async function restClient(baseUrl: string, seen: string[], bodies: Json[] = []): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    seen.push(`${init?.method ?? 'GET'} ${decodeURIComponent(url.pathname)}`);
    if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body));
    return fetch(input, init);
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new RestTransportFactory({ fetchImpl })],
      preferredTransports: ['HTTP+JSON'],
    }),
  );
  return factory.createFromUrl(baseUrl);
}

describe('@a2a-js/sdk 0.3.14 REST transport against a2actor (proto dialect)', () => {
  let server: TestServer;
  let sdk: Client;
  const seen: string[] = [];
  const bodies: Json[] = [];
  beforeAll(async () => {
    server = await startServer({ storeKind: 'sqlite', restDialect: 'proto', ...LOCAL_PUSH });
    sdk = await restClient(server.url, seen, bodies);
  });
  beforeEach(() => {
    seen.length = 0;
    bodies.length = 0;
  });
  afterAll(() => server.stop());

  it('every call goes over HTTP+JSON under /v1', async () => {
    await sdk.sendMessage({ message: msg('echo where') });
    expect(seen).toEqual(['POST /v1/message:send']);
  });

  it('reads the extended card from /v1/card with a token, and maps its refusal without one', async () => {
    await expect(sdk.getAgentCard()).rejects.toThrow(/401|auth/i);
    const card = await sdk.getAgentCard({ serviceParameters: { Authorization: 'Bearer scenario-token' } });
    expect(card.name).toBe('Scenario Agent');
    expect(card.skills.map((s) => s.id)).toEqual(['scenarios', 'secret-scenarios']);
    expect(card.capabilities.streaming).toBe(true);
    expect(seen).toEqual(['GET /v1/card', 'GET /v1/card']);
  });

  it('send returns a task; a follow-up on input-required continues it; get honours historyLength', async () => {
    const first = await sdk.sendMessage({ message: msg('ask which colour?') });
    if (!isTask(first)) throw new Error('expected a task');
    expect(first.status.state).toBe('input-required');
    expect(first.status.message?.role).toBe('agent');
    expect(first.status.message?.parts[0]).toEqual({ kind: 'text', text: 'which colour?' });

    const done = await sdk.sendMessage({ message: msg('green', { taskId: first.id, contextId: first.contextId }) });
    if (!isTask(done)) throw new Error('expected a task');
    expect(done.id).toBe(first.id);
    expect(done.status.state).toBe('completed');
    expect(done.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: 'got: green' });

    const got = await sdk.getTask({ id: first.id, historyLength: 1 });
    expect(got.id).toBe(first.id);
    expect(got.history).toHaveLength(1);
    // The same history JSON-RPC answers, read back into the A2A shapes.
    const viaRpc = (await rpcCall(server.url, 'tasks/get', { id: first.id })).result;
    expect(got.history?.[0]?.messageId).toBe(viaRpc.history.at(-1).messageId);
    const all = await sdk.getTask({ id: first.id });
    expect(all.history?.map((m) => [m.role, m.parts])).toEqual(viaRpc.history.map((m: Json) => [m.role, m.parts]));
    expect(all.status).toEqual(viaRpc.status);
  });

  it('a direct reply arrives as a Message', async () => {
    const reply = await sdk.sendMessage({ message: msg('direct hello sdk') });
    expect(reply.kind).toBe('message');
    if (reply.kind === 'message') {
      expect(reply.role).toBe('agent');
      expect(reply.parts[0]).toEqual({ kind: 'text', text: 'hello sdk' });
    }
  });

  it('data and file parts come back in the A2A shapes', async () => {
    const data = await sdk.sendMessage({ message: msg('data') });
    if (!isTask(data)) throw new Error('expected a task');
    expect(data.artifacts?.[0]?.parts[0]).toEqual({ kind: 'data', data: { answer: 42, items: ['a', 'b'] } });
    const file = await sdk.sendMessage({ message: msg('file') });
    if (!isTask(file)) throw new Error('expected a task');
    expect(file.artifacts?.[0]?.parts[0]).toEqual({
      kind: 'file',
      file: { bytes: Buffer.from('hello file\n').toString('base64'), mimeType: 'text/plain' },
    });
  });

  it('a non-blocking send, then cancel; canceling again and an unknown task map to the SDK error types', async () => {
    const slow = await sdk.sendMessage({ message: msg('slow 5000'), configuration: { blocking: false } });
    if (!isTask(slow)) throw new Error('expected a task');
    expect(['submitted', 'working']).toContain(slow.status.state);
    const canceled = await sdk.cancelTask({ id: slow.id });
    expect(canceled.status.state).toBe('canceled');
    await expect(sdk.cancelTask({ id: slow.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(sdk.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(sdk.getTask({ id: 'no-such-task' })).rejects.toThrow(/not found/i);
  });

  it('a non-blocking send works although the SDK leaves `blocking: false` out (proto3 omits a false)', async () => {
    const slow = await sdk.sendMessage({ message: msg('slow 300'), configuration: { blocking: false } });
    expect(bodies[0].configuration).toEqual({});
    if (!isTask(slow)) throw new Error('expected a task');
    expect(['submitted', 'working']).toContain(slow.status.state);
    const done = await eventually(async () => {
      const t = await sdk.getTask({ id: slow.id });
      return t.status.state === 'completed' ? t : undefined;
    });
    expect(done.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: 'slept 300 ms' });
  });

  it('message:stream yields the task, its updates in order, and the final event', async () => {
    // The 0.3.14 client drops `append` from artifact updates (its FromProto never copies it):
    // every chunk reads as new here; rest-dialect.test.ts checks `append` on the wire.
    expect(await collect(sdk.sendMessageStream({ message: msg('stream 3') }))).toEqual([
      'task:submitted',
      'status:working',
      'artifact:stream:new',
      'artifact:stream:new',
      'artifact:stream:new:last',
      'status:completed:final',
    ]);
    expect(await collect(sdk.sendMessageStream({ message: msg('ask which?') }))).toEqual([
      'task:submitted',
      'status:working',
      'status:input-required+msg:final',
    ]);
    expect(await collect(sdk.sendMessageStream({ message: msg('direct hello') }))).toEqual(['message']);
    expect(seen.every((s) => s === 'POST /v1/message:stream')).toBe(true);
  });

  it('resubscribe joins a running task and follows it to the end; an unknown task is TaskNotFoundError', async () => {
    const task = await sdk.sendMessage({ message: msg('slow 600'), configuration: { blocking: false } });
    if (!isTask(task)) throw new Error('expected a task');
    const events = await collect(sdk.resubscribeTask({ id: task.id }));
    expect(events[0]).toMatch(/^task:(submitted|working)$/);
    // The agent's progress messages, its answer, then the end.
    expect(events.slice(1, -2).length).toBeGreaterThan(0);
    expect(events.slice(1, -2).every((e) => e === 'status:working+msg')).toBe(true);
    expect(events.slice(-2)).toEqual(['artifact:final-answer:new:last', 'status:completed:final']);
    await expect(collect(sdk.resubscribeTask({ id: 'no-such-task' }))).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(seen).toContain(`POST /v1/tasks/${task.id}:subscribe`);
  });

  describe('push configs', () => {
    let rx: Receiver;
    beforeAll(async () => {
      rx = await startReceiver();
    });
    afterAll(() => rx.close());

    it('set, get, list and delete; an unknown config is TaskNotFoundError', async () => {
      const task = await sdk.sendMessage({ message: msg('ask anything?') });
      if (!isTask(task)) throw new Error('expected a task');
      const config = { id: 'hook-1', url: rx.url, token: 'tok', authentication: { schemes: ['Bearer'], credentials: 'c' } };
      const set = await sdk.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: config });
      // Credentials are write-only: the server leaves them out, the SDK reads that as ''.
      const readBack = { ...config, authentication: { schemes: ['Bearer'], credentials: '' } };
      expect(set).toEqual({ taskId: task.id, pushNotificationConfig: readBack });
      // In a variable: the SDK's params type is a union the literal's extra key does not fit at once.
      const hook1 = { id: task.id, pushNotificationConfigId: 'hook-1' };
      const got = await sdk.getTaskPushNotificationConfig(hook1);
      expect(got).toEqual({ taskId: task.id, pushNotificationConfig: readBack });

      await sdk.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { id: 'hook-2', url: rx.url } });
      const list = await sdk.listTaskPushNotificationConfig({ id: task.id });
      expect(list.map((c) => [c.taskId, c.pushNotificationConfig.id]).sort()).toEqual([
        [task.id, 'hook-1'],
        [task.id, 'hook-2'],
      ]);

      await sdk.deleteTaskPushNotificationConfig(hook1);
      expect((await sdk.listTaskPushNotificationConfig({ id: task.id })).map((c) => c.pushNotificationConfig.id)).toEqual(['hook-2']);
      await expect(sdk.getTaskPushNotificationConfig(hook1)).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(sdk.listTaskPushNotificationConfig({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);

      // The follow-up's transitions reach the remaining webhook.
      await sdk.sendMessage({ message: msg('blue', { taskId: task.id }) });
      const bodies = await eventually(() => {
        const b = rx.bodiesOf(task.id);
        return b.some((x) => x.status.state === 'completed') ? b : undefined;
      });
      expect(bodies.at(-1).status.state).toBe('completed');
    });

    it('an inline push config on send (the SDK sends it as `pushNotification`) is stored and notified', async () => {
      const task = await sdk.sendMessage({
        message: msg('echo pushed'),
        configuration: { blocking: true, pushNotificationConfig: { id: 'inline', url: rx.url } },
      });
      if (!isTask(task)) throw new Error('expected a task');
      const list = await sdk.listTaskPushNotificationConfig({ id: task.id });
      expect(list.map((c) => c.pushNotificationConfig)).toEqual([{ id: 'inline', url: rx.url }]);
      await eventually(() => (rx.bodiesOf(task.id).some((b) => b.status.state === 'completed') ? true : undefined));
    });
  });
});
