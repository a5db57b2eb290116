/**
 * The official client (@a2a-js/sdk 0.3.14) against examples/auth-agent.ts, given its token the
 * way the SDK documents: a `fetchImpl` that adds the Authorization header. The card is public,
 * so discovery needs no token; every call after it does.
 */
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, TaskNotFoundError, type Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import authAgent from '../../examples/auth-agent.js';
import { isSdkTask as isTask, sdkMessage as msg } from '../support/sdk.js';
import { startServer, type TestServer } from '../support/server.js';
import { startReceiver, type Receiver } from '../support/webhook.js';

/** fetch with a bearer token on every request. */
const withToken =
  (token: string | undefined): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };

const clientFor = (url: string, token: string | undefined): Promise<Client> =>
  new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: withToken(token) })],
    }),
  ).createFromUrl(url);

describe('@a2a-js/sdk 0.3.14 with a bearer token against the auth example', () => {
  let server: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startServer({ agent: authAgent, storeKind: 'sqlite', pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  it('send, follow-up, get with history, whoami and cancel', async () => {
    const sdk = await clientFor(server.url, 'alice-token');
    const first = await sdk.sendMessage({ message: msg('ask which colour?') });
    if (!isTask(first)) throw new Error('expected a task');
    expect(first.status.state).toBe('input-required');
    const done = await sdk.sendMessage({ message: msg('green', { taskId: first.id, contextId: first.contextId }) });
    if (!isTask(done)) throw new Error('expected a task');
    expect(done.status.state).toBe('completed');
    const got = await sdk.getTask({ id: first.id, historyLength: 1 });
    expect(got.history).toHaveLength(1);
    const who = await sdk.sendMessage({ message: msg('whoami') });
    if (!isTask(who)) throw new Error('expected a task');
    expect(who.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: 'you are alice' });
    const slow = await sdk.sendMessage({ message: msg('slow 5000'), configuration: { blocking: false } });
    if (!isTask(slow)) throw new Error('expected a task');
    expect((await sdk.cancelTask({ id: slow.id })).status.state).toBe('canceled');
  });

  it('stream and resubscribe', async () => {
    const sdk = await clientFor(server.url, 'alice-token');
    const kinds: string[] = [];
    let taskId = '';
    for await (const event of sdk.sendMessageStream({ message: msg('stream 3') })) {
      kinds.push(event.kind);
      if (event.kind === 'task') taskId = event.id;
    }
    expect(kinds[0]).toBe('task');
    expect(kinds.filter((k) => k === 'artifact-update')).toHaveLength(3);
    const paused = await sdk.sendMessage({ message: msg('ask again?') });
    if (!isTask(paused)) throw new Error('expected a task');
    const again = sdk.resubscribeTask({ id: paused.id });
    const firstEvent = await again.next();
    expect(firstEvent.value).toMatchObject({ kind: 'task', id: paused.id });
    await again.return(undefined);
    expect(taskId).not.toBe('');
  });

  it('push config set, get, list and delete', async () => {
    const sdk = await clientFor(server.url, 'alice-token');
    const paused = await sdk.sendMessage({ message: msg('ask for push?') });
    if (!isTask(paused)) throw new Error('expected a task');
    const set = await sdk.setTaskPushNotificationConfig({
      taskId: paused.id,
      pushNotificationConfig: { id: 'p1', url: receiver.url, token: 't' },
    });
    expect(set.pushNotificationConfig.id).toBe('p1');
    // 0.3.14 types this parameter as TaskIdParams, but sends what it is given.
    const byId = { id: paused.id, pushNotificationConfigId: 'p1' } as Parameters<Client['getTaskPushNotificationConfig']>[0];
    const got = await sdk.getTaskPushNotificationConfig(byId);
    expect(got.pushNotificationConfig.url).toBe(receiver.url);
    expect((await sdk.listTaskPushNotificationConfig({ id: paused.id })).map((c) => c.pushNotificationConfig.id)).toEqual(['p1']);
    await sdk.deleteTaskPushNotificationConfig({ id: paused.id, pushNotificationConfigId: 'p1' });
    expect(await sdk.listTaskPushNotificationConfig({ id: paused.id })).toEqual([]);
  });

  it("another user's task is the SDK's TaskNotFoundError; no token is refused", async () => {
    const alice = await clientFor(server.url, 'alice-token');
    const bob = await clientFor(server.url, 'bob-token');
    const task = await alice.sendMessage({ message: msg('echo mine') });
    if (!isTask(task)) throw new Error('expected a task');
    await expect(bob.getTask({ id: task.id })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(bob.cancelTask({ id: task.id })).rejects.toBeInstanceOf(TaskNotFoundError);
    const anonymous = await clientFor(server.url, undefined);
    await expect(anonymous.sendMessage({ message: msg('echo who?') })).rejects.toThrow(/401|Authentication required/);
  });
});
