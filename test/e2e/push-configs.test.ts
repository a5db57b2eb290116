/**
 * Push config endpoints (spec "Push notification config endpoints", wire reference §2.2, §3.2):
 * CRUD over both transports, the body shapes REST clients send, the capability gate, and the
 * @a2a-js/sdk 0.3.14 JSON-RPC client's push calls against our server unchanged.
 */
import { A2AClient, ClientFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, restCall, rpcCall, TRANSPORTS, userMessage, type A2AClient as TestClient, type Json } from '../support/a2a.js';
import { sdkMessage as msg } from '../support/sdk.js';
import { startServer, type TestServer } from '../support/server.js';
import { startReceiver, type Receiver } from '../support/webhook.js';

const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };
/** Registered, never called: the CRUD server allows no http webhook, so deliveries stop at the URL check. */
const hook = (name: string) => `http://127.0.0.1:9/${name}`;

describe('push config CRUD', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ storeKind: 'sqlite' });
  });
  afterAll(() => server.stop());

  describe.each(TRANSPORTS)('over %s', (transport) => {
    let a2a: TestClient;
    let taskId: string;
    beforeAll(async () => {
      a2a = client(server.url, transport);
      taskId = (await a2a.send({ message: userMessage('ask configs?') })).result.id;
    });

    it('creating without an id gives "default", then generated ids; an existing id updates in place', async () => {
      const first = await a2a.setPush(taskId, { url: hook('one'), token: 'tok-1' });
      expect(first.status).toBe(200);
      expect(first.result).toEqual({ taskId, pushNotificationConfig: { id: 'default', url: hook('one'), token: 'tok-1' } });
      const second = await a2a.setPush(taskId, { url: hook('two') });
      const secondId: string = second.result.pushNotificationConfig.id;
      expect(secondId).not.toBe('default');
      expect(secondId.length).toBeGreaterThan(0);
      const auth = { schemes: ['Bearer'], credentials: 'c' };
      // Credentials are write-only: every answer leaves them out (the webhook still gets them).
      const readable = { schemes: ['Bearer'] };
      const updated = await a2a.setPush(taskId, { id: 'default', url: hook('one-b'), authentication: auth });
      expect(updated.result.pushNotificationConfig).toEqual({ id: 'default', url: hook('one-b'), authentication: readable });

      const list = await a2a.listPush(taskId);
      expect(list.status).toBe(200);
      expect(list.result).toEqual([
        { taskId, pushNotificationConfig: { id: 'default', url: hook('one-b'), authentication: readable } },
        { taskId, pushNotificationConfig: { id: secondId, url: hook('two') } },
      ]);
      const got = await a2a.getPush(taskId, secondId);
      expect(got.result).toEqual({ taskId, pushNotificationConfig: { id: secondId, url: hook('two') } });
      expect((await a2a.getPush(taskId, 'default')).result.pushNotificationConfig.url).toBe(hook('one-b'));

      const deleted = await a2a.deletePush(taskId, secondId);
      expect(deleted.status).toBe(transport === 'rest' ? 204 : 200);
      if (transport === 'jsonrpc') expect(deleted.result).toBeNull();
      const gone = await a2a.getPush(taskId, secondId);
      expect(gone.status).toBe(transport === 'rest' ? 404 : 200);
      expect(gone.error?.code).toBe(-32001);
      expect((await a2a.listPush(taskId)).result).toHaveLength(1);
      expect((await a2a.deletePush(taskId, secondId)).error?.code).toBe(-32001);
    });

    it('a task without configs lists []', async () => {
      const other = (await a2a.send({ message: userMessage('ask none?') })).result.id;
      expect((await a2a.listPush(other)).result).toEqual([]);
    });

    it('every push call on an unknown task is 404 / -32001', async () => {
      const outcomes = [
        await a2a.setPush('no-such-task', { url: hook('x') }),
        await a2a.getPush('no-such-task', 'default'),
        await a2a.listPush('no-such-task'),
        await a2a.deletePush('no-such-task', 'default'),
      ];
      for (const o of outcomes) {
        expect(o.status).toBe(transport === 'rest' ? 404 : 200);
        expect(o.error?.code).toBe(-32001);
        expect(o.error?.message).toMatch(/not found/i);
      }
    });

    it('a malformed or missing URL is invalid params; registration does not judge a well-formed one', async () => {
      for (const bad of [{ url: 'not a url' }, { token: 'no url' }]) {
        const r = await a2a.setPush(taskId, bad);
        expect(r.status).toBe(transport === 'rest' ? 400 : 200);
        expect(r.error?.code).toBe(-32602);
      }
      // http and loopback are accepted here (wire reference §5): the SSRF check runs at delivery.
      expect((await a2a.setPush(taskId, { id: 'loop', url: 'http://localhost:8888/webhook' })).status).toBe(200);
    });

    it('token "" and authentication {} mean none (wire reference §1.6)', async () => {
      const r = await a2a.setPush(taskId, { id: 'empty', url: hook('empty'), token: '', authentication: {} });
      expect(r.status).toBe(200);
      expect(r.result.pushNotificationConfig).toEqual({ id: 'empty', url: hook('empty') });
      const inline = await a2a.send({
        message: userMessage('ask inline?'),
        configuration: { pushNotificationConfig: { url: hook('inline'), token: '', authentication: {} } },
      });
      expect(inline.result.status.state).toBe('input-required');
      expect((await a2a.listPush(inline.result.id)).result).toEqual([
        { taskId: inline.result.id, pushNotificationConfig: { id: 'default', url: hook('inline') } },
      ]);
    });
  });

  it("JSON-RPC get without a config id returns the task's first config", async () => {
    const a2a = client(server.url, 'jsonrpc');
    const id = (await a2a.send({ message: userMessage('ask first?') })).result.id;
    await a2a.setPush(id, { id: 'one', url: hook('one') });
    await a2a.setPush(id, { id: 'two', url: hook('two') });
    const r = await rpcCall(server.url, 'tasks/pushNotificationConfig/get', { id });
    expect(r.result).toEqual({ taskId: id, pushNotificationConfig: { id: 'one', url: hook('one') } });
  });

  it('REST accepts every create body of wire reference §3.2; the task id comes from the path', async () => {
    const id = (await client(server.url, 'rest').send({ message: userMessage('ask shapes?') })).result.id;
    const path = `/v1/tasks/${id}/pushNotificationConfigs`;
    const bodies = [
      { id: 'flat', url: hook('flat') },
      { config: { taskId: 'ignored', pushNotificationConfig: { id: 'wrapped', url: hook('wrapped') } } },
      { taskId: 'ignored', pushNotificationConfig: { id: 'bare', url: hook('bare') } },
      {
        parent: `tasks/${id}`,
        config_id: 'proto',
        config: {
          name: `tasks/${id}/pushNotificationConfigs/proto`,
          push_notification_config: { url: hook('proto'), token: '', authentication: {} },
        },
      },
    ];
    for (const body of bodies) {
      const r = await restCall(server.url, 'POST', path, body);
      expect(r.status).toBe(200);
      expect(r.result.taskId).toBe(id);
    }
    const list = await restCall(server.url, 'GET', path);
    expect(
      list.result.map((c: { pushNotificationConfig: { id: string; url: string } }) => [
        c.pushNotificationConfig.id,
        c.pushNotificationConfig.url,
      ]),
    ).toEqual([
      ['flat', hook('flat')],
      ['wrapped', hook('wrapped')],
      ['bare', hook('bare')],
      ['proto', hook('proto')],
    ]);
  });
});

describe('push capability off', () => {
  let server: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    server = await startServer({ ...LOCAL_PUSH, pushNotifications: false });
  });
  afterAll(async () => {
    await server.stop();
    await rx.close();
  });

  it('the card says so', async () => {
    const card: Json = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json();
    expect(card.capabilities.pushNotifications).toBe(false);
  });

  it('every push endpoint answers 501 / -32003, on a known task and an unknown one', async () => {
    const known = (await client(server.url, 'rest').send({ message: userMessage('ask off?') })).result.id;
    for (const id of [known, 'no-such-task']) {
      const base = `/v1/tasks/${id}/pushNotificationConfigs`;
      const outcomes = [
        await restCall(server.url, 'POST', base, { url: hook('x') }),
        await restCall(server.url, 'GET', base),
        await restCall(server.url, 'GET', `${base}/default`),
        await restCall(server.url, 'DELETE', `${base}/default`),
      ];
      for (const o of outcomes) {
        expect(o.status).toBe(501);
        expect(o.error).toMatchObject({ code: -32003 });
        expect(o.error?.message).toMatch(/push notification is not supported/i);
      }
    }
  });

  it('every push JSON-RPC method answers -32003', async () => {
    const known = (await client(server.url, 'jsonrpc').send({ message: userMessage('ask off?') })).result.id;
    const calls: [string, unknown][] = [
      ['tasks/pushNotificationConfig/set', { taskId: known, pushNotificationConfig: { url: hook('x') } }],
      ['tasks/pushNotificationConfig/get', { id: known, pushNotificationConfigId: 'default' }],
      ['tasks/pushNotificationConfig/get', { id: known }],
      ['tasks/pushNotificationConfig/list', { id: known }],
      ['tasks/pushNotificationConfig/delete', { id: known, pushNotificationConfigId: 'default' }],
      ['tasks/pushNotificationConfig/set', { taskId: 'no-such-task', pushNotificationConfig: { url: hook('x') } }],
    ];
    for (const [method, params] of calls) {
      const r = await rpcCall(server.url, method, params);
      expect(r.status).toBe(200);
      expect(r.error?.code).toBe(-32003);
    }
  });

  it('an inline config is not registered and nothing is delivered; the task runs as usual', async () => {
    const r = await client(server.url, 'rest').send({
      message: userMessage('echo quiet'),
      configuration: { pushNotificationConfig: { url: rx.url } },
    });
    expect(r.result.status.state).toBe('completed');
    expect(server.stats().push).toEqual({ workers: 0, queued: 0, inFlight: 0, cachedTasks: 0 });
    expect(rx.received).toEqual([]);
  });
});

describe('@a2a-js/sdk 0.3.14 push config calls against a2actor', () => {
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

  it('legacy A2AClient: set, get, list, then delivery with the token, then delete', async () => {
    const sdk = await A2AClient.fromCardUrl(`${server.url}/.well-known/agent-card.json`);
    const sent = await sdk.sendMessage({ message: msg('ask for the sdk?') });
    if ('error' in sent) throw new Error(sent.error.message);
    const task = sent.result;
    if (task.kind !== 'task') throw new Error('expected a task');

    const set = await sdk.setTaskPushNotificationConfig({
      taskId: task.id,
      pushNotificationConfig: { id: 'sdk', url: rx.url, token: 'sdk-token' },
    });
    if ('error' in set) throw new Error(set.error.message);
    expect(set.result).toEqual({ taskId: task.id, pushNotificationConfig: { id: 'sdk', url: rx.url, token: 'sdk-token' } });

    // The SDK types `get` params as TaskIdParams but sends what it is given: the config id goes through.
    const byId = { id: task.id, pushNotificationConfigId: 'sdk' };
    const got = await sdk.getTaskPushNotificationConfig(byId);
    if ('error' in got) throw new Error(got.error.message);
    expect(got.result.pushNotificationConfig.url).toBe(rx.url);

    const list = await sdk.listTaskPushNotificationConfig({ id: task.id });
    if ('error' in list) throw new Error(list.error.message);
    expect(list.result.map((c) => c.pushNotificationConfig.id)).toEqual(['sdk']);

    const done = await sdk.sendMessage({ message: msg('yes', { taskId: task.id }) });
    if ('error' in done) throw new Error(done.error.message);
    const bodies = await eventually(() => (rx.bodiesOf(task.id).length === 2 ? rx.bodiesOf(task.id) : undefined));
    expect(bodies.map((b) => b.status.state)).toEqual(['working', 'completed']);
    expect(rx.received.filter((r) => r.body.id === task.id).every((r) => r.headers['x-a2a-notification-token'] === 'sdk-token')).toBe(true);

    const deleted = await sdk.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'sdk' });
    if ('error' in deleted) throw new Error(deleted.error.message);
    expect(deleted.result).toBeNull();
    const after = await sdk.listTaskPushNotificationConfig({ id: task.id });
    if ('error' in after) throw new Error(after.error.message);
    expect(after.result).toEqual([]);
  });

  it('ClientFactory client: set, get, list and delete; errors surface as thrown errors', async () => {
    const sdk = await new ClientFactory().createFromUrl(server.url);
    const task = await sdk.sendMessage({ message: msg('ask factory?') });
    if (task.kind !== 'task') throw new Error('expected a task');
    const set = await sdk.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { url: rx.url } });
    expect(set.pushNotificationConfig).toMatchObject({ id: 'default', url: rx.url });
    const byId = { id: task.id, pushNotificationConfigId: 'default' };
    const got = await sdk.getTaskPushNotificationConfig(byId);
    expect(got).toEqual(set);
    expect(await sdk.listTaskPushNotificationConfig({ id: task.id })).toEqual([set]);
    await sdk.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'default' });
    expect(await sdk.listTaskPushNotificationConfig({ id: task.id })).toEqual([]);
    await expect(sdk.getTaskPushNotificationConfig({ id: 'no-such-task' })).rejects.toThrow(/not found/i);
  });
});
