/**
 * SERVICE_REST_DIALECT on the wire: `a2a` (the default) answers REST in the spec's bare A2A
 * objects exactly as before, `proto` in the v0.3 proto's JSON. Also: an omitted
 * `configuration.blocking` is non-blocking only in the proto dialect, and an inline push config
 * is taken under both of its names (`pushNotificationConfig`, the proto's `pushNotification`)
 * in both dialects, on `message:send` and `message:stream`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/index.js';
import scenarioAgent from '../../examples/scenario-agent.js';
import { client, eventually, restCall, rpcCall, userMessage, type Json } from '../support/a2a.js';
import { startServer, type TestServer } from '../support/server.js';
import { streamMessage, summarize, STREAM_5_EVENTS } from '../support/streams.js';
import { startReceiver, type Receiver } from '../support/webhook.js';
import { ProtoSendMessageResponseSchema, ProtoStreamResponseSchema, ProtoTaskSchema } from '../../src/protocol/proto-schemas.js';

const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };
const DIALECTS = ['a2a', 'proto'] as const;

/** The task in a send answer of either dialect. */
const taskOf = (dialect: (typeof DIALECTS)[number], result: Json): Json => (dialect === 'proto' ? result.task : result);
/** A stream frame of either dialect as the A2A event kind it carries. */
const kindOf = (frame: Json): string => Object.keys(frame)[0] as string;

describe('REST dialects', () => {
  const servers = {} as Record<(typeof DIALECTS)[number], TestServer>;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    servers.a2a = await startServer(LOCAL_PUSH);
    // The environment variable, as an operator sets it.
    servers.proto = await startServer({ ...LOCAL_PUSH, env: { SERVICE_REST_DIALECT: 'proto' } });
  });
  afterAll(async () => {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
    await rx.close();
  });

  describe('a2a (default)', () => {
    it('a send answers the bare Task, and a get the very bytes JSON-RPC answers as its result', async () => {
      const url = servers.a2a.url;
      expect(servers.a2a.settings.restDialect).toBe('a2a');
      const sent = await restCall(url, 'POST', '/v1/message:send', { message: userMessage('echo plain') });
      expect(sent.status).toBe(200);
      expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
      expect(sent.result.artifacts[0].parts).toEqual([{ kind: 'text', text: 'plain' }]);
      expect(sent.result.history[0]).toMatchObject({ kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'echo plain' }] });

      const rest = await fetch(`${url}/v1/tasks/${sent.result.id}`);
      const rpc = await rpcCall(url, 'tasks/get', { id: sent.result.id });
      expect(await rest.text()).toBe(JSON.stringify(rpc.result));

      const direct = await restCall(url, 'POST', '/v1/message:send', { message: userMessage('direct hi') });
      expect(direct.result).toMatchObject({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] });
    });

    it('a stream sends bare events with their kind', async () => {
      const s = await streamMessage(servers.a2a.url, 'rest', { message: userMessage('stream 5') });
      const items = await s.items;
      expect(items.map((i) => summarize(i.data))).toEqual(STREAM_5_EVENTS);
      expect(items[1]?.data).toMatchObject({ kind: 'status-update', status: { state: 'working' }, final: false });
    });

    it('an omitted `blocking` waits for the turn (the spec default)', async () => {
      const sent = await restCall(servers.a2a.url, 'POST', '/v1/message:send', { message: userMessage('slow 200') });
      expect(sent.result.status.state).toBe('completed');
    });
  });

  describe('proto', () => {
    it('a send answers {"task": …} in proto-JSON; a direct reply {"message": …}', async () => {
      const url = servers.proto.url;
      const sent = await restCall(url, 'POST', '/v1/message:send', {
        message: userMessage('echo plain'),
        configuration: { blocking: true },
      });
      expect(sent.status).toBe(200);
      ProtoSendMessageResponseSchema.parse(sent.result);
      expect(sent.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(sent.result.task.artifacts[0].parts).toEqual([{ text: 'plain' }]);
      expect(sent.result.task.history[0]).toMatchObject({ role: 'ROLE_USER', content: [{ text: 'echo plain' }] });

      const got = await restCall(url, 'GET', `/v1/tasks/${sent.result.task.id}`);
      ProtoTaskSchema.parse(got.result);
      expect(got.result).toEqual(sent.result.task);

      // Blocking: a non-blocking send hands out a task before the agent decides to reply directly.
      const direct = await restCall(url, 'POST', '/v1/message:send', {
        message: userMessage('direct hi'),
        configuration: { blocking: true },
      });
      expect(direct.result).toEqual({ message: expect.objectContaining({ role: 'ROLE_AGENT', content: [{ text: 'hi' }] }) });
    });

    it('an omitted `blocking` does not wait: the task comes back still running', async () => {
      const url = servers.proto.url;
      const sent = await restCall(url, 'POST', '/v1/message:send', { message: userMessage('slow 300') });
      expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(sent.result.task.status.state);
      const withConfig = await restCall(url, 'POST', '/v1/message:send', { message: userMessage('slow 300'), configuration: {} });
      expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(withConfig.result.task.status.state);
      const blocking = await restCall(url, 'POST', '/v1/message:send', {
        message: userMessage('slow 100'),
        configuration: { blocking: true },
      });
      expect(blocking.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('a stream sends StreamResponse frames, `append` and `lastChunk` included', async () => {
      const s = await streamMessage(servers.proto.url, 'rest', { message: userMessage('stream 3') });
      const frames = (await s.items).map((i) => i.data);
      for (const f of frames) ProtoStreamResponseSchema.parse(f);
      expect(frames.map(kindOf)).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
      expect(frames.slice(2, 5).map((f) => [f.artifactUpdate.append ?? false, f.artifactUpdate.lastChunk ?? false])).toEqual([
        [false, false],
        [true, false],
        [true, true],
      ]);
      expect(frames.at(-1).statusUpdate).toMatchObject({ final: true, status: { state: 'TASK_STATE_COMPLETED' } });
    });

    it('a canceled task reads TASK_STATE_CANCELLED; errors keep the REST error body', async () => {
      const url = servers.proto.url;
      const sent = await restCall(url, 'POST', '/v1/message:send', { message: userMessage('slow 5000') });
      const canceled = await restCall(url, 'POST', `/v1/tasks/${sent.result.task.id}:cancel`);
      expect(canceled.result.status.state).toBe('TASK_STATE_CANCELLED');
      const missing = await restCall(url, 'GET', '/v1/tasks/no-such-task');
      expect(missing.status).toBe(404);
      expect(missing.error).toMatchObject({ code: -32001, error: 'TaskNotFoundError' });
    });

    it('push configs are named resources; the list is {configs, nextPageToken}', async () => {
      const url = servers.proto.url;
      const a2a = client(url, 'rest');
      const sent = await a2a.send({ message: userMessage('ask what?') });
      const id = sent.result.task.id;
      const set = await a2a.setPush(id, { id: 'h1', url: rx.url, token: 't' });
      expect(set.result).toEqual({
        name: `tasks/${id}/pushNotificationConfigs/h1`,
        pushNotificationConfig: { id: 'h1', url: rx.url, token: 't' },
      });
      expect((await a2a.getPush(id, 'h1')).result).toEqual(set.result);
      expect((await a2a.listPush(id)).result).toEqual({ configs: [set.result], nextPageToken: '' });
      expect((await a2a.deletePush(id, 'h1')).status).toBe(204);
      expect((await a2a.listPush(id)).result).toEqual({ configs: [], nextPageToken: '' });
    });
  });

  describe('an inline push config under either name is stored and notified', () => {
    for (const dialect of DIALECTS) {
      for (const key of ['pushNotificationConfig', 'pushNotification'] as const) {
        for (const via of ['message:send', 'message:stream'] as const) {
          it(`${dialect}: configuration.${key} on ${via}`, async () => {
            const url = servers[dialect].url;
            const configId = `${dialect}-${key}-${via.replace(':', '-')}`;
            const body = { message: userMessage('echo pushed'), configuration: { blocking: true, [key]: { id: configId, url: rx.url } } };
            let taskId: string;
            if (via === 'message:send') {
              const sent = await restCall(url, 'POST', '/v1/message:send', body);
              expect(sent.status).toBe(200);
              taskId = taskOf(dialect, sent.result).id;
            } else {
              const items = await (await streamMessage(url, 'rest', body)).items;
              const first = items[0]?.data;
              taskId = dialect === 'proto' ? first.task.id : first.id;
            }
            const list = await restCall(url, 'GET', `/v1/tasks/${taskId}/pushNotificationConfigs`);
            const ids =
              dialect === 'proto'
                ? list.result.configs.map((c: Json) => c.pushNotificationConfig.id)
                : list.result.map((c: Json) => c.pushNotificationConfig.id);
            expect(ids).toEqual([configId]);
            // Webhook bodies are A2A Tasks whatever the REST dialect.
            await eventually(() => (rx.bodiesOf(taskId).some((b) => b.status.state === 'completed') ? true : undefined));
          });
        }
      }
    }
  });

  it('an unknown SERVICE_REST_DIALECT stops the server at start-up, naming the variable and the values', async () => {
    await expect(
      createServer({ agent: scenarioAgent, store: 'memory', port: 0, logLevel: 'silent', env: { SERVICE_REST_DIALECT: 'grpc' } }),
    ).rejects.toThrow(/SERVICE_REST_DIALECT: use "a2a".*or "proto"/);
  });
});
