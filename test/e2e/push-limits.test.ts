/**
 * Push configs are a resource a client creates on the server: capped per task
 * (SERVICE_PUSH_MAX_CONFIGS_PER_TASK), since every transition is delivered to every config; and
 * their credentials are write-only, since anyone who can read a task could read them back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, TRANSPORTS, userMessage, type Json } from '../support/a2a.js';
import { captureLogs, type CapturedLogs } from '../support/logs.js';
import { startServer, STORE_KINDS, type TestServer } from '../support/server.js';
import { startReceiver, type Receiver } from '../support/webhook.js';

const SECRET = 'webhook-credential-do-not-echo';

describe.each(STORE_KINDS)('push config limits (%s store)', (storeKind) => {
  let server: TestServer;
  let rx: Receiver;
  let logs: CapturedLogs;
  beforeAll(async () => {
    rx = await startReceiver();
    logs = captureLogs('debug');
    server = await startServer({
      storeKind,
      logger: logs.logger,
      pushAllowHttp: true,
      pushAllowedHosts: ['127.0.0.1'],
      pushMaxConfigsPerTask: 3,
    });
  });
  afterAll(async () => {
    await server.stop();
    await rx.close();
  });

  describe.each(TRANSPORTS)('over %s', (transport) => {
    const pausedTask = async (): Promise<string> =>
      (await client(server.url, transport).send({ message: userMessage('ask which?') })).result.id;

    it('a task takes configs up to the cap; the next new one is a clear 400 / -32602, updates still work', async () => {
      const a2a = client(server.url, transport);
      const taskId = await pausedTask();
      for (const id of ['a', 'b', 'c']) expect((await a2a.setPush(taskId, { id, url: `${rx.url}/${id}` })).status).toBe(200);
      const refused = await a2a.setPush(taskId, { id: 'd', url: `${rx.url}/d` });
      expect(refused.status).toBe(transport === 'rest' ? 400 : 200);
      expect(refused.error?.code).toBe(-32602);
      expect(refused.error?.message).toContain('SERVICE_PUSH_MAX_CONFIGS_PER_TASK');
      // Replacing a config the task has is no new config.
      expect((await a2a.setPush(taskId, { id: 'b', url: `${rx.url}/b2` })).status).toBe(200);
      expect((await a2a.listPush(taskId)).result).toHaveLength(3);
      await a2a.deletePush(taskId, 'a');
      expect((await a2a.setPush(taskId, { id: 'd', url: `${rx.url}/d` })).status).toBe(200);
      expect((await a2a.listPush(taskId)).result.map((c: Json) => c.pushNotificationConfig.id)).toEqual(['b', 'c', 'd']);
    });

    it('many creates at once still leave exactly the cap', async () => {
      const a2a = client(server.url, transport);
      const taskId = await pausedTask();
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => a2a.setPush(taskId, { url: `${rx.url}/n${i}` })));
      expect(answers.filter((a) => a.result !== undefined && a.error === undefined)).toHaveLength(3);
      expect(answers.filter((a) => a.error?.code === -32602)).toHaveLength(27);
      expect((await a2a.listPush(taskId)).result).toHaveLength(3);
    });

    it('credentials are never read back, and the webhook still gets them', async () => {
      const a2a = client(server.url, transport);
      const taskId = await pausedTask();
      const config = { id: 'auth', url: rx.url, token: 'tok', authentication: { schemes: ['Bearer'], credentials: SECRET } };
      const set = await a2a.setPush(taskId, config);
      const answers: Json[] = [set.result, (await a2a.getPush(taskId, 'auth')).result, ...(await a2a.listPush(taskId)).result];
      for (const answer of answers) {
        expect(answer.pushNotificationConfig).toEqual({ id: 'auth', url: rx.url, token: 'tok', authentication: { schemes: ['Bearer'] } });
        expect(JSON.stringify(answer)).not.toContain(SECRET);
      }
      await a2a.send({ message: userMessage('blue', { taskId }) });
      const delivered = await eventually(() => rx.received.find((r) => r.body?.id === taskId && r.body?.status?.state === 'completed'));
      expect(delivered.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(logs.lines.join('\n')).not.toContain(SECRET);
    });
  });
});
