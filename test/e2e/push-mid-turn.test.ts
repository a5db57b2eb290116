/**
 * A task whose turn starts without push configs costs the runtime no task copies for push
 * (turn-effects.ts asks the dispatcher's `handledWithoutCopy` first), yet a config registered
 * while that turn runs still gets the transitions that follow, a later status of the first
 * `working` included (the dispatcher once took that for the task's first transition, when no
 * config can exist yet, and dropped it and everything after). A real server and a real webhook
 * receiver on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, defineAgent, type A2AServer } from '../../src/index.js';
import { eventually, rpcCall } from '../support/a2a.js';
import { startReceiver, type Receiver } from '../support/webhook.js';

describe('push config registered mid-turn', () => {
  let server: A2AServer;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    const agent = defineAgent({
      card: { name: 'P', description: 'registers its own webhook', version: '1', skills: [] },
      capabilities: { pushNotifications: true },
      async handler(ctx) {
        ctx.status('exposed, no configs yet');
        const set = await rpcCall(server.url, 'tasks/pushNotificationConfig/set', {
          taskId: ctx.taskId,
          pushNotificationConfig: { url: rx.url },
        });
        if (set.status !== 200 || set.error) throw new Error(`set failed: ${JSON.stringify(set.error)}`);
        ctx.status('configured');
        ctx.complete('done');
      },
    });
    server = await createServer({
      agent,
      port: 0,
      store: 'memory',
      logLevel: 'silent',
      env: {},
      pushAllowHttp: true,
      pushAllowedHosts: ['127.0.0.1'],
    });
  });
  afterAll(async () => {
    await server.close();
    await rx.close();
  });

  it('gets the transitions after its registration, and none before', async () => {
    const { result } = await rpcCall(server.url, 'message/send', {
      message: { kind: 'message', role: 'user', messageId: 'mid-1', parts: [{ kind: 'text', text: 'go' }] },
    });
    expect(result.status).toMatchObject({ state: 'completed' });
    const bodies = await eventually(() => {
      const got = rx.bodiesOf(result.id);
      return got.some((b) => b.status.state === 'completed') ? got : undefined;
    });
    expect(bodies.map((b) => [b.status.state, b.status.message?.parts?.[0]?.text])).toEqual([
      ['working', 'configured'],
      ['completed', undefined],
    ]);
  });
});
