/**
 * Logs people can use (README "Observability"): JSON lines where every request and every state
 * transition has its line at debug, each line inside a request or a task names the task and its
 * context, a refused request is one info line with its error code, and no secret (bearer token,
 * push token, push credentials) appears anywhere, whatever the level.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth, createLogger, type AgentDefinition } from '../../src/index.js';
import scenarioAgent from '../../examples/scenario-agent.js';
import { eventually, rpcCall, userMessage, type Json } from '../support/a2a.js';
import { captureLogs, type CapturedLogs } from '../support/logs.js';
import { startServer, type TestServer } from '../support/server.js';
import { openSse } from '../support/sse.js';
import { startReceiver, type Receiver } from '../support/webhook.js';

const BEARER = 'alice-bearer-Zq81';
const PUSH_TOKEN = 'push-token-Kx27';
const PUSH_CREDENTIALS = 'push-credentials-Wm55';
const SECRETS = [BEARER, PUSH_TOKEN, PUSH_CREDENTIALS];
const AUTH = { authorization: `Bearer ${BEARER}` };
const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };
const agent: AgentDefinition = { ...scenarioAgent, auth: bearerAuth({ tokens: { [BEARER]: 'alice' } }) };

const pushConfig = (url: string) => ({
  url,
  token: PUSH_TOKEN,
  authentication: { schemes: ['Bearer'], credentials: PUSH_CREDENTIALS },
});

describe('a debug-level server with auth on, under a workload', () => {
  let server: TestServer;
  let rx: Receiver;
  let logs: CapturedLogs;
  let sent: Json;
  let streamedTaskId: string;
  beforeAll(async () => {
    rx = await startReceiver();
    logs = captureLogs('debug');
    server = await startServer({ agent, logger: logs.logger, ...LOCAL_PUSH });

    // A send with an inline push config (token and credentials), delivered to the receiver.
    const send = await rpcCall(
      server.url,
      'message/send',
      { message: userMessage('echo logged'), configuration: { pushNotificationConfig: pushConfig(rx.url) } },
      AUTH,
    );
    sent = send.result;
    await eventually(() => rx.bodiesOf(sent.id).find((b) => b.status.state === 'completed'));
    // A config set on a paused task, read back (its token comes back to the caller, not to the log).
    const paused = (await rpcCall(server.url, 'message/send', { message: userMessage('ask name') }, AUTH)).result;
    const set = await rpcCall(
      server.url,
      'tasks/pushNotificationConfig/set',
      { taskId: paused.id, pushNotificationConfig: pushConfig(rx.url) },
      AUTH,
    );
    expect(set.result.pushNotificationConfig.token).toBe(PUSH_TOKEN);
    // Refused: bad params, no credentials, a wrong token.
    expect((await rpcCall(server.url, 'message/send', { message: 'not a message' }, AUTH)).error?.code).toBe(-32602);
    expect((await fetch(`${server.url}/v1/tasks/${paused.id}`)).status).toBe(401);
    expect((await fetch(`${server.url}/v1/tasks/${paused.id}`, { headers: { authorization: 'Bearer wrong-one' } })).status).toBe(401);
    // A stream.
    const stream = await openSse(`${server.url}/v1/message:stream`, { body: { message: userMessage('stream 2') }, headers: AUTH });
    const events = await stream.events;
    streamedTaskId = events[0]?.data.id ?? events[0]?.data.task?.id;
    expect(streamedTaskId).toBeTruthy();
  });
  afterAll(async () => {
    await server.stop();
    await rx.close();
  });

  it('every line is one JSON object with a level name, a time and an event', () => {
    expect(logs.lines.length).toBeGreaterThan(10);
    for (const line of logs.lines) {
      expect(line.endsWith('\n')).toBe(true);
      const entry = JSON.parse(line);
      expect(['debug', 'info', 'warn', 'error']).toContain(entry.level);
      expect(Number.isNaN(Date.parse(entry.time))).toBe(false);
      expect(typeof entry.event).toBe('string');
    }
  });

  it('each request has a debug line with method, path, status and duration, and names its task', () => {
    const requests = logs.events('http.request');
    expect(requests.length).toBeGreaterThanOrEqual(7);
    for (const r of requests) {
      expect(typeof r.method).toBe('string');
      expect(r.path).toMatch(/^\//);
      expect(typeof r.status).toBe('number');
      expect(r.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(requests).toContainEqual(
      expect.objectContaining({
        method: 'POST',
        path: '/',
        status: 200,
        operation: 'message/send',
        taskId: sent.id,
        contextId: sent.contextId,
      }),
    );
    expect(requests).toContainEqual(
      expect.objectContaining({
        method: 'POST',
        path: '/v1/message:stream',
        status: 200,
        operation: 'message/stream',
        taskId: streamedTaskId,
      }),
    );
    expect(requests.filter((r) => r.status === 401)).toHaveLength(2);
  });

  it('each transition has a debug line with the task, its context, from and to', () => {
    const sentTransitions = logs.events('task.transition').filter((e) => e.taskId === sent.id);
    expect(sentTransitions.map((e) => [e.from, e.to])).toEqual([
      ['submitted', 'working'],
      ['working', 'completed'],
    ]);
    for (const t of sentTransitions) expect(t.contextId).toBe(sent.contextId);
    const streamed = logs.events('task.transition').filter((e) => e.taskId === streamedTaskId);
    expect(streamed.map((e) => e.to)).toEqual(['working', 'completed']);
  });

  it('lines written inside a task carry its task and context ids', () => {
    const delivered = logs.events('push.delivered').filter((e) => e.taskId === sent.id);
    expect(delivered.length).toBeGreaterThan(0);
    for (const d of delivered) expect(d.contextId).toBe(sent.contextId);
  });

  it('a refused request is one info line with its A2A error code and HTTP status, no stack', () => {
    const refused = logs.events('request.refused');
    expect(refused).toContainEqual(
      expect.objectContaining({ level: 'info', operation: 'message/send', code: -32602, error: 'InvalidParamsError', status: 200 }),
    );
    const unauthenticated = refused.filter((e) => e.status === 401);
    expect(unauthenticated).toHaveLength(2);
    for (const e of refused) {
      expect(e.level).toBe('info');
      expect(typeof e.code).toBe('number');
      expect(e.stack).toBeUndefined();
    }
  });

  it('no secret appears in any line: bearer token, push token, push credentials, Authorization', () => {
    const text = logs.lines.join('');
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(text).not.toContain('wrong-one');
    expect(text.toLowerCase()).not.toContain('bearer ');
  });
});

describe('the logger', () => {
  it('redacts the places secrets travel under, even if a caller passes them', () => {
    const lines: string[] = [];
    const logger = createLogger('info', (l) => void lines.push(l));
    logger.info('careless.call', {
      headers: { authorization: `Bearer ${BEARER}`, 'x-api-key': 'api-key-Hh31', accept: 'application/json' },
      pushNotificationConfig: { url: 'http://127.0.0.1/hook', token: PUSH_TOKEN, authentication: { credentials: PUSH_CREDENTIALS } },
      apiKey: 'api-key-Hh31',
    });
    const text = lines.join('');
    for (const secret of [...SECRETS, 'api-key-Hh31']) expect(text).not.toContain(secret);
    const entry = JSON.parse(lines[0] as string);
    expect(entry.headers.accept).toBe('application/json');
    expect(entry.headers.authorization).toBe('[redacted]');
    expect(entry.pushNotificationConfig.url).toBe('http://127.0.0.1/hook');
  });

  it('at info level a refused request is logged (with its code) and requests are not', async () => {
    const logs = captureLogs('info');
    const server = await startServer({ agent, logger: logs.logger });
    try {
      expect((await rpcCall(server.url, 'tasks/get', { id: 'nope' }, AUTH)).error?.code).toBe(-32001);
      expect(logs.events('request.refused')).toEqual([
        expect.objectContaining({ code: -32001, error: 'TaskNotFoundError', status: 200, method: 'POST', path: '/' }),
      ]);
      expect(logs.events('http.request')).toEqual([]);
      expect(logs.lines.join('')).not.toContain(BEARER);
    } finally {
      await server.stop();
    }
  });
});
