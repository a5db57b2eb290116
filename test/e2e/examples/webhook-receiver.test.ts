/**
 * examples/webhook-receiver.ts receiving real push notifications: a server (push on, loopback
 * http allowed as in development) runs the form agent with the receiver's URL and token in the
 * push config; the receiver logs each state once, ignores a duplicate delivery and refuses
 * wrong tokens. Everything on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import formAgent from '../../../examples/form-agent.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../examples/webhook-receiver.js';
import { client, eventually, userMessage, type A2AClient, type Json } from '../../support/a2a.js';
import { startServer, type TestServer } from '../../support/server.js';

const TOKEN = 'receiver-secret';
/** Loopback receivers over plain http: allowed explicitly, as a development setup would. */
const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };

const post = (url: string, body: unknown, token?: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { 'x-a2a-notification-token': token }) },
    body: JSON.stringify(body),
  });

describe('webhook receiver', () => {
  let receiver: WebhookReceiver;
  let server: TestServer;
  let a2a: A2AClient;
  const lines: Json[] = [];
  beforeAll(async () => {
    receiver = await startWebhookReceiver({ port: 0, token: TOKEN, log: (line) => lines.push(JSON.parse(line)) });
    server = await startServer({ agent: formAgent, ...LOCAL_PUSH });
    a2a = client(server.url, 'jsonrpc');
  });
  afterAll(async () => {
    await server.stop();
    await receiver.close();
  });
  const linesOf = (taskId: string) => lines.filter((l) => l.taskId === taskId);

  it('logs every state of a task once, and a duplicate delivery not again', async () => {
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const first = await a2a.send({
      message: userMessage('sign me up'),
      configuration: { pushNotificationConfig: { url: receiver.url, token: TOKEN } },
    });
    const id: string = first.result.id;
    expect(first.result.status.state).toBe('input-required');
    await eventually(() => (linesOf(id).length === 2 ? true : undefined));
    const done = await a2a.send({ message: userMessage('name: Ada\nemail: ada@example.com', { taskId: id }) });
    expect(done.result.status.state).toBe('completed');
    await eventually(() => (linesOf(id).some((l) => l.state === 'completed') ? true : undefined));
    // Every delivery has gone out: nothing more can arrive from the server.
    await eventually(() => {
      const push = server.stats().push;
      return push.queued === 0 && push.inFlight === 0 ? true : undefined;
    });
    expect(linesOf(id).map((l) => l.state)).toEqual(['working', 'input-required', 'working', 'completed']);
    expect(linesOf(id)[1]).toMatchObject({ event: 'task.state', message: 'What is your name?' });

    // The server's last notification, delivered again (as a retry after a lost answer would be):
    // acknowledged, not logged twice.
    const stored = (await a2a.get(id)).result;
    expect(stored.status.timestamp).toBe(linesOf(id)[3].timestamp);
    const again = await post(receiver.url, stored, TOKEN);
    expect(again.status).toBe(200);
    expect(linesOf(id)).toHaveLength(4);

    // The key is (id, status.timestamp), not the state: a later notification in the same state is new.
    const later = {
      ...stored,
      status: { ...stored.status, timestamp: new Date(Date.parse(stored.status.timestamp) + 1000).toISOString() },
    };
    expect((await post(receiver.url, later, TOKEN)).status).toBe(200);
    expect(linesOf(id)).toHaveLength(5);
  });

  it('refuses a wrong, same-length or missing token with 401 and logs nothing', async () => {
    const task = { kind: 'task', id: 'forged-task', contextId: 'c', status: { state: 'completed', timestamp: new Date().toISOString() } };
    for (const token of ['wrong', 'receiver-secreT', 'receiver-secret-and-more', undefined]) {
      const res = await post(receiver.url, task, token);
      expect(res.status, `token ${token}`).toBe(401);
    }
    expect(linesOf('forged-task')).toEqual([]);
    // The right token on the same body is accepted: the refusals were about the token alone.
    expect((await post(receiver.url, task, TOKEN)).status).toBe(200);
    expect(linesOf('forged-task').map((l) => l.state)).toEqual(['completed']);
  });

  it('refuses what is not a task notification', async () => {
    expect((await post(receiver.url, { id: 'no-status' }, TOKEN)).status).toBe(400);
    expect((await post(receiver.url, { id: 'x', status: { state: 'working' } }, TOKEN)).status).toBe(400);
    const notJson = await fetch(receiver.url, { method: 'POST', headers: { 'x-a2a-notification-token': TOKEN }, body: '{oops' });
    expect(notJson.status).toBe(400);
    expect((await fetch(receiver.url)).status).toBe(405);
  });

  it('runs as a program: node --import tsx examples/webhook-receiver.ts', async () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/webhook-receiver.ts'], {
      cwd: root,
      env: { ...process.env, WEBHOOK_TOKEN: 'cli-token', WEBHOOK_PORT: '0', WEBHOOK_HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    try {
      const url = await eventually(() => /listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(err)?.[1], 15_000);
      const task = { kind: 'task', id: 'cli-task', status: { state: 'working', timestamp: '2025-01-01T00:00:00.000Z' } };
      expect((await post(url, task, 'nope')).status).toBe(401);
      expect((await post(url, task, 'cli-token')).status).toBe(200);
      expect((await post(url, task, 'cli-token')).status).toBe(200);
      await eventually(() => (out.includes('\n') ? true : undefined), 5000);
      expect(
        out
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual([{ event: 'task.state', taskId: 'cli-task', state: 'working', timestamp: '2025-01-01T00:00:00.000Z' }]);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
