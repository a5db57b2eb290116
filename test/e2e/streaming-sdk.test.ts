/**
 * The @a2a-js/sdk 0.3.14 JSON-RPC client, unchanged, streaming from our server: its legacy
 * A2AClient (`sendMessageStream`, `resubscribeTask`) and the Client its ClientFactory builds
 * from our card.
 */
import { A2AClient, ClientFactory } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { sdkMessage as msg } from '../support/sdk.js';
import { summarize } from '../support/streams.js';

/** Every event of an SDK stream, as one-line summaries (the same ones the e2e tests use). */
async function collect(stream: AsyncIterable<unknown>): Promise<string[]> {
  const out: string[] = [];
  for await (const event of stream) out.push(summarize(event));
  return out;
}

const STREAM_3 = [
  'task:submitted',
  'status:working',
  'artifact:stream:new',
  'artifact:stream:append',
  'artifact:stream:append:last',
  'status:completed:final',
];

describe('@a2a-js/sdk 0.3.14 streaming against a2actor', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ storeKind: 'memory' });
  });
  afterAll(() => server.stop());

  it('A2AClient.sendMessageStream yields the task, its updates and the final event', async () => {
    const sdk = await A2AClient.fromCardUrl(`${server.url}/.well-known/agent-card.json`);
    expect(await collect(sdk.sendMessageStream({ message: msg('stream 3') }))).toEqual(STREAM_3);
    expect(await collect(sdk.sendMessageStream({ message: msg('direct hello') }))).toEqual(['message']);
  });

  it('A2AClient.resubscribeTask joins a running task and follows it to the end', async () => {
    const sdk = await A2AClient.fromCardUrl(`${server.url}/.well-known/agent-card.json`);
    const started = await sdk.sendMessage({ message: msg('slow 600'), configuration: { blocking: false } });
    if ('error' in started) throw new Error(started.error.message);
    const events = await collect(sdk.resubscribeTask({ id: started.result.kind === 'task' ? started.result.id : '' }));
    expect(events[0]).toBe('task:working');
    expect(events.at(-1)).toBe('status:completed:final');
    // An unknown task is an error the client raises.
    await expect(collect(sdk.resubscribeTask({ id: 'no-such-task' }))).rejects.toThrow(/not found/i);
  });

  it('ClientFactory: sendMessageStream and resubscribeTask over the transport our card prefers', async () => {
    const sdk = await new ClientFactory().createFromUrl(server.url);
    expect(await collect(sdk.sendMessageStream({ message: msg('stream 3') }))).toEqual(STREAM_3);

    const first = await collect(sdk.sendMessageStream({ message: msg('ask which?') }));
    expect(first).toEqual(['task:submitted', 'status:working', 'status:input-required+msg:final']);
    const task = await sdk.sendMessage({ message: msg('slow 400'), configuration: { blocking: false } });
    if (task.kind !== 'task') throw new Error('expected a task');
    const followed = await collect(sdk.resubscribeTask({ id: task.id }));
    expect(followed.at(-1)).toBe('status:completed:final');
  });
});
