/**
 * The newest official client, @a2a-js/sdk 1.3.0 (installed as `a2a-sdk-v1`), in its DEFAULT
 * native A2A v1.0 mode against our server unchanged: `createFromUrl(server.url)` reads the
 * card, picks the `protocolVersion: "1.0"` interface of the binding asked for, and speaks v1.0
 * to it. Every request goes through a recording `fetch`, so each scenario also proves that what
 * crossed the wire was v1.0 (`A2A-Version: 1.0`, PascalCase JSON-RPC methods, root REST paths),
 * not the v0.3 the same server also serves.
 */
import { randomUUID } from 'node:crypto';
import { TaskState, type Message, type StreamResponse, type Task } from 'a2a-sdk-v1';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from 'a2a-sdk-v1/client';
import { TaskNotCancelableError, TaskNotFoundError } from 'a2a-sdk-v1/errors';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/a2a.js';
import { isV1Task as isTask, recordingFetch, v1Message as msg, v1Send, type SeenCall } from '../support/sdk-v1.js';
import { V1_RPC_METHODS } from '../support/a2a-v1.js';
import { startServer, STORE_KINDS, type TestServer } from '../support/server.js';
import { pushedTask, startReceiver, type Receiver } from '../support/webhook.js';

/** Loopback receivers over plain http: allowed explicitly, as a development setup would. */
const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };
const SCENARIO_TOKEN = 'Bearer scenario-token';

/** The eleven v1.0 JSON-RPC methods (spec §9.4), and the root REST paths of §11.3. */
const V1_METHODS = new Set(V1_RPC_METHODS);
const V1_REST_LINE =
  /^(GET|POST|DELETE) \/(message:(send|stream)|tasks(\/[^/]+(:cancel|:subscribe|\/pushNotificationConfigs(\/[^/]+)?)?)?|extendedAgentCard)$/;
const CARD_LINE = 'GET /.well-known/agent-card.json';

const BINDINGS = [
  { binding: 'JSONRPC', preferred: undefined },
  { binding: 'HTTP+JSON', preferred: ['HTTP+JSON' as const] },
] as const;

const send = (text: string, extra: Partial<Message> = {}, returnImmediately = false) => v1Send(msg(text, extra), returnImmediately);
const textOf = (r: { parts: Message['parts'] } | undefined): string | undefined => {
  const c = r?.parts[0]?.content;
  return c?.$case === 'text' ? c.value : undefined;
};
const asTask = (r: Task | Message): Task => {
  if (!isTask(r)) throw new Error(`expected a task, got ${JSON.stringify(r)}`);
  return r;
};
const byId = (id: string) => ({ tenant: '', id });
const listAll = { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined };

/** The client's stream events as one-line summaries: kind, then state or artifact id. */
async function summaries(stream: AsyncIterable<StreamResponse>): Promise<string[]> {
  const out: string[] = [];
  for await (const { payload } of stream) {
    if (payload?.$case === 'task') out.push(`task:${TaskState[payload.value.status?.state ?? 0]}`);
    else if (payload?.$case === 'statusUpdate') out.push(`status:${TaskState[payload.value.status?.state ?? 0]}`);
    else if (payload?.$case === 'artifactUpdate')
      out.push(`artifact:${payload.value.artifact?.artifactId}${payload.value.append ? ':append' : ''}`);
    else out.push(String(payload?.$case));
  }
  return out;
}

describe('@a2a-js/sdk 1.3.0 in its native v1.0 mode against a2actor', () => {
  let server: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    // SQLite where the suite runs it (not on the newer Nodes' memory-only runs: .ci/run).
    server = await startServer({ storeKind: STORE_KINDS.includes('sqlite') ? 'sqlite' : 'memory', ...LOCAL_PUSH });
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
  });

  describe.each(BINDINGS)('over $binding', ({ binding, preferred }) => {
    const seen: SeenCall[] = [];
    let sdk: Client;
    /** A client made as a user would: the default native factories, `createFromUrl` on our URL. */
    const clientWith = (headers: Record<string, string> = {}): Promise<Client> => {
      const fetchImpl = recordingFetch(seen, headers);
      return new ClientFactory({
        transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
        ...(preferred ? { preferredTransports: [...preferred] } : {}),
      }).createFromUrl(server.url);
    };
    beforeAll(async () => {
      sdk = await clientWith();
    });
    beforeEach(() => {
      seen.length = 0;
    });
    // Every scenario proves it spoke v1.0: the header on every call, and v1.0's names for the binding.
    afterEach(() => {
      expect(seen.length).toBeGreaterThan(0);
      for (const call of seen) {
        expect(call.version, call.line).toBe('1.0');
        if (call.line === CARD_LINE) continue;
        if (binding === 'JSONRPC') {
          expect(call.line).toBe('POST /');
          expect(V1_METHODS, String(call.rpcMethod)).toContain(call.rpcMethod);
        } else {
          expect(call.line).toMatch(V1_REST_LINE);
          expect(call.rpcMethod).toBeUndefined();
        }
      }
    });

    it('createFromUrl reads the card and chooses this binding at v1.0', async () => {
      const fresh = await clientWith();
      expect(seen).toEqual([{ line: CARD_LINE, version: '1.0' }]);
      expect(fresh.protocolVersion).toBe('1.0');
      expect(fresh.transport.protocolName).toBe(binding);
    });

    it('a blocking send answers the finished task', async () => {
      const task = asTask(await sdk.sendMessage(send('echo hello v1')));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(task.artifacts[0])).toBe('hello v1');
      expect(seen.map((c) => c.rpcMethod ?? c.line)).toEqual([binding === 'JSONRPC' ? 'SendMessage' : 'POST /message:send']);
    });

    it('a send with returnImmediately answers at once; get follows the task to its final state', async () => {
      const started = asTask(await sdk.sendMessage(send('slow 300', {}, true)));
      expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(started.status?.state);
      const done = await eventually(async () => {
        const t = await sdk.getTask(byId(started.id));
        return t.status?.state === TaskState.TASK_STATE_COMPLETED ? t : undefined;
      }, 10_000);
      expect(textOf(done.artifacts[0])).toBe('slept 300 ms');
    });

    it('a direct reply arrives as a Message from the agent', async () => {
      const reply = await sdk.sendMessage(send('direct hello v1'));
      expect(isTask(reply)).toBe(false);
      expect(textOf(reply as Message)).toBe('hello v1');
    });

    it('a follow-up on an input-required task continues the same task; get honours historyLength', async () => {
      const first = asTask(await sdk.sendMessage(send('ask which colour?')));
      expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(textOf(first.status?.message)).toBe('which colour?');
      const done = asTask(await sdk.sendMessage(send('green', { taskId: first.id, contextId: first.contextId })));
      expect(done.id).toBe(first.id);
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(done.artifacts[0])).toBe('got: green');

      const full = await sdk.getTask(byId(first.id));
      expect(full.history.length).toBeGreaterThan(1);
      const last = await sdk.getTask({ ...byId(first.id), historyLength: 1 });
      expect(last.history).toHaveLength(1);
      expect(last.history[0]).toEqual(full.history.at(-1));
    });

    it('a stream brings the task, its artifact chunks in order and its final state, then ends', async () => {
      expect(await summaries(sdk.sendMessageStream(send('stream 3')))).toEqual([
        'task:TASK_STATE_SUBMITTED',
        'status:TASK_STATE_WORKING',
        'artifact:stream',
        'artifact:stream:append',
        'artifact:stream:append',
        'status:TASK_STATE_COMPLETED',
      ]);
    });

    it('subscribing to a running task follows it to its final state', async () => {
      const running = asTask(await sdk.sendMessage(send('slow 400', {}, true)));
      const followed = await summaries(sdk.resubscribeTask(byId(running.id)));
      expect(followed[0]).toMatch(/^task:TASK_STATE_(SUBMITTED|WORKING)$/);
      // The agent's progress messages, its answer, then the final state.
      expect(followed.slice(-2)).toEqual(['artifact:final-answer', 'status:TASK_STATE_COMPLETED']);
      expect(followed.slice(1, -2), JSON.stringify(followed)).toEqual(followed.slice(1, -2).map(() => 'status:TASK_STATE_WORKING'));
    });

    it('cancel ends a running task; a finished one is TaskNotCancelableError; an unknown id is TaskNotFoundError', async () => {
      const running = asTask(await sdk.sendMessage(send('slow 5000', {}, true)));
      const canceled = await sdk.cancelTask({ ...byId(running.id), metadata: undefined });
      expect(canceled.id).toBe(running.id);
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect((await sdk.getTask(byId(running.id))).status?.state).toBe(TaskState.TASK_STATE_CANCELED);

      const finished = asTask(await sdk.sendMessage(send('echo done')));
      await expect(sdk.cancelTask({ ...byId(finished.id), metadata: undefined })).rejects.toBeInstanceOf(TaskNotCancelableError);
      await expect(sdk.cancelTask({ ...byId('no-such-task'), metadata: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(sdk.getTask(byId('no-such-task'))).rejects.toBeInstanceOf(TaskNotFoundError);
    });

    it('ListTasks pages through a context and filters by status', async () => {
      const contextId = randomUUID();
      const completed: string[] = [];
      for (const text of ['echo one', 'echo two', 'echo three']) {
        completed.push(asTask(await sdk.sendMessage(send(text, { contextId }))).id);
      }
      const waiting = asTask(await sdk.sendMessage(send('ask more?', { contextId }))).id;

      const first = await sdk.listTasks({ ...listAll, contextId, pageSize: 3 });
      expect(first.tasks).toHaveLength(3);
      expect(first.totalSize).toBe(4);
      expect(first.nextPageToken).not.toBe('');
      const second = await sdk.listTasks({ ...listAll, contextId, pageSize: 3, pageToken: first.nextPageToken });
      expect(second.tasks).toHaveLength(1);
      expect(second.nextPageToken).toBe('');
      const ids = [...first.tasks, ...second.tasks].map((t) => t.id);
      expect([...ids].sort()).toEqual([...completed, waiting].sort());
      for (const t of [...first.tasks, ...second.tasks]) expect(t.contextId).toBe(contextId);

      const done = await sdk.listTasks({ ...listAll, contextId, status: TaskState.TASK_STATE_COMPLETED });
      expect(done.tasks.map((t) => t.id).sort()).toEqual([...completed].sort());
      expect(done.tasks.every((t) => t.status?.state === TaskState.TASK_STATE_COMPLETED)).toBe(true);
      expect(done.totalSize).toBe(3);
      expect(done.nextPageToken).toBe('');
    });

    it('push configs: create, get, list and delete; a real delivery is v1.0 in application/a2a+json', async () => {
      const task = asTask(await sdk.sendMessage(send('ask for a push?')));
      const config = {
        tenant: '',
        id: 'hook-1',
        taskId: task.id,
        url: rx.url,
        token: 'tok',
        authentication: { scheme: 'Bearer', credentials: 'cred' },
      };
      expect(await sdk.createTaskPushNotificationConfig(config)).toMatchObject({
        id: 'hook-1',
        taskId: task.id,
        url: rx.url,
        token: 'tok',
        // Credentials are write-only (src/push/configs.ts): the proto default comes back.
        authentication: { scheme: 'Bearer', credentials: '' },
      });
      expect(await sdk.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' })).toMatchObject({
        id: 'hook-1',
        taskId: task.id,
        url: rx.url,
      });
      const listed = await sdk.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
      expect(listed.configs.map((c) => c.id)).toEqual(['hook-1']);

      await sdk.sendMessage(send('blue', { taskId: task.id, contextId: task.contextId }));
      const delivery = await eventually(() =>
        rx.received.find((r) => pushedTask(r.body)?.id === task.id && r.body.task?.status?.state === 'TASK_STATE_COMPLETED'),
      );
      expect(Object.keys(delivery.body)).toEqual(['task']);
      expect(delivery.body.task).toMatchObject({ id: task.id, contextId: task.contextId, status: { state: 'TASK_STATE_COMPLETED' } });
      expect(delivery.body.task.kind).toBeUndefined();
      expect(delivery.headers['content-type']).toBe('application/a2a+json');
      expect(delivery.headers.authorization).toBe('Bearer cred');
      expect(delivery.headers['x-a2a-notification-token']).toBe('tok');

      await sdk.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
      const after = await sdk.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
      expect(after.configs).toEqual([]);
      await expect(sdk.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' })).rejects.toThrow();
    });

    it('the extended card needs the bearer token and then adds its secret skill', async () => {
      // The card advertises an extended card, so getAgentCard asks for it, with whatever credentials the client has.
      await expect(sdk.getAgentCard()).rejects.toThrow();
      const authorized = await clientWith({ authorization: SCENARIO_TOKEN });
      const extended = await authorized.getAgentCard();
      expect(extended.capabilities?.extendedAgentCard).toBe(true);
      expect(extended.skills.map((s) => s.id)).toContain('secret-scenarios');
      expect(seen.filter((c) => c.rpcMethod === 'GetExtendedAgentCard' || c.line === 'GET /extendedAgentCard')).toHaveLength(2);
    });
  });
});
