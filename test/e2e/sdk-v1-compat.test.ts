/**
 * The newest official client, @a2a-js/sdk 1.3.0 (installed as `a2a-sdk-v1`), in its documented
 * v0.3 compatibility mode (`legacyCompat: { enabled: true }`), against our server unchanged: it
 * discovers us with `createFromUrl` (its card request says `A2A-Version: 1.0`, which the
 * discovery card answers whatever the header says), then speaks v0.3 JSON-RPC.
 */
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from 'a2a-sdk-v1/client';
import { TaskState, type Message, type StreamResponse } from 'a2a-sdk-v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isV1Task, v1Message, v1Send } from '../support/sdk-v1.js';
import { startServer, type TestServer } from '../support/server.js';

const COMPAT = { legacyCompat: { enabled: true } };

function v1Factory(): ClientFactory {
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory(COMPAT)],
      cardResolver: new DefaultAgentCardResolver(COMPAT),
    }),
  );
}

const send = (text: string, extra: Partial<Message> = {}, returnImmediately = false) => v1Send(v1Message(text, extra), returnImmediately);
const isTask = isV1Task;

/** The 1.x client's stream events as one-line summaries: kind, then state or artifact id. */
async function summaries(stream: AsyncIterable<StreamResponse>): Promise<string[]> {
  const out: string[] = [];
  for await (const { payload } of stream) {
    if (payload?.$case === 'task') out.push(`task:${payload.value.status?.state}`);
    else if (payload?.$case === 'statusUpdate') out.push(`status:${payload.value.status?.state}`);
    else if (payload?.$case === 'artifactUpdate')
      out.push(`artifact:${payload.value.artifact?.artifactId}${payload.value.append ? ':append' : ''}`);
    else out.push(String(payload?.$case));
  }
  return out;
}

describe('@a2a-js/sdk 1.3.0 (v0.3 compatibility mode) against a2actor over JSON-RPC', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ storeKind: 'sqlite' });
  });
  afterAll(() => server.stop());

  it('createFromUrl discovers the server and send, follow-up, get and cancel work', async () => {
    const sdk = await v1Factory().createFromUrl(server.url);
    const first = await sdk.sendMessage(send('ask which colour?'));
    if (!isTask(first)) throw new Error('expected a task');
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const done = await sdk.sendMessage(send('green', { taskId: first.id, contextId: first.contextId }));
    if (!isTask(done)) throw new Error('expected a task');
    expect(done.id).toBe(first.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'got: green' });

    const got = await sdk.getTask({ tenant: '', id: first.id, historyLength: 1 });
    expect(got.id).toBe(first.id);
    expect(got.history).toHaveLength(1);

    const slow = await sdk.sendMessage(send('slow 5000', {}, true));
    if (!isTask(slow)) throw new Error('expected a task');
    const canceled = await sdk.cancelTask({ tenant: '', id: slow.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(sdk.getTask({ tenant: '', id: 'no-such-task' })).rejects.toThrow(/not found/i);
  });

  it('a direct reply arrives as a Message', async () => {
    const sdk = await v1Factory().createFromUrl(server.url);
    const reply = await sdk.sendMessage(send('direct hello v1'));
    expect(isTask(reply)).toBe(false);
    expect((reply as Message).parts[0]?.content).toEqual({ $case: 'text', value: 'hello v1' });
  });

  it('streams a task and resubscribes to a running one, each to its final state', async () => {
    const sdk = await v1Factory().createFromUrl(server.url);
    expect(await summaries(sdk.sendMessageStream(send('stream 3')))).toEqual([
      `task:${TaskState.TASK_STATE_SUBMITTED}`,
      `status:${TaskState.TASK_STATE_WORKING}`,
      'artifact:stream',
      'artifact:stream:append',
      'artifact:stream:append',
      `status:${TaskState.TASK_STATE_COMPLETED}`,
    ]);
    const running = await sdk.sendMessage(send('slow 400', {}, true));
    if (!isTask(running)) throw new Error('expected a task');
    const followed = await summaries(sdk.resubscribeTask({ tenant: '', id: running.id }));
    expect(followed[0]).toBe(`task:${TaskState.TASK_STATE_WORKING}`);
    expect(followed.at(-1)).toBe(`status:${TaskState.TASK_STATE_COMPLETED}`);
  });
});
