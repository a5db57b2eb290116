/**
 * An off-the-shelf A2A v0.3 client, @a2a-js/sdk pinned at 0.3.14, against our server unchanged:
 * its ClientFactory reads our card, picks the JSON-RPC transport, and runs send, follow-up,
 * get and cancel. Its legacy A2AClient is checked too.
 */
import { A2AClient, ClientFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSdkTask as isTask, sdkMessage as msg } from '../support/sdk.js';
import { startServer, type TestServer } from '../support/server.js';

describe('@a2a-js/sdk 0.3.14 client against a2actor', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ storeKind: 'sqlite' });
  });
  afterAll(() => server.stop());

  it('ClientFactory: send, follow-up, get and cancel over JSON-RPC', async () => {
    const sdk = await new ClientFactory().createFromUrl(server.url);
    const first = await sdk.sendMessage({ message: msg('ask which colour?') });
    if (!isTask(first)) throw new Error('expected a task');
    expect(first.status.state).toBe('input-required');

    const done = await sdk.sendMessage({ message: msg('green', { taskId: first.id, contextId: first.contextId }) });
    if (!isTask(done)) throw new Error('expected a task');
    expect(done.id).toBe(first.id);
    expect(done.status.state).toBe('completed');
    expect(done.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: 'got: green' });

    const got = await sdk.getTask({ id: first.id, historyLength: 1 });
    expect(got.id).toBe(first.id);
    expect(got.history).toHaveLength(1);

    const slow = await sdk.sendMessage({ message: msg('slow 5000'), configuration: { blocking: false } });
    if (!isTask(slow)) throw new Error('expected a task');
    const canceled = await sdk.cancelTask({ id: slow.id });
    expect(canceled.status.state).toBe('canceled');
    await expect(sdk.cancelTask({ id: slow.id })).rejects.toThrow();
    await expect(sdk.getTask({ id: 'no-such-task' })).rejects.toThrow(/not found/i);
  });

  it('ClientFactory: a direct reply arrives as a Message', async () => {
    const sdk = await new ClientFactory().createFromUrl(server.url);
    const reply = await sdk.sendMessage({ message: msg('direct hello sdk') });
    expect(reply.kind).toBe('message');
    if (reply.kind === 'message') expect(reply.parts[0]).toEqual({ kind: 'text', text: 'hello sdk' });
  });

  it('legacy A2AClient.fromCardUrl: send and get', async () => {
    const legacy = await A2AClient.fromCardUrl(`${server.url}/.well-known/agent-card.json`);
    const res = await legacy.sendMessage({ message: msg('echo legacy') });
    if ('error' in res) throw new Error(res.error.message);
    const task = res.result;
    if (task.kind !== 'task') throw new Error('expected a task');
    expect(task.status.state).toBe('completed');
    const got = await legacy.getTask({ id: task.id });
    if ('error' in got) throw new Error(got.error.message);
    expect(got.result.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: 'legacy' });
  });
});
