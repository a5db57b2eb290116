/**
 * Webhook URL safety end to end (spec "Limits", webhook URL rules), with loopback listeners
 * only: 127.0.0.1, 127.0.0.2, ::1 and the same listeners named as `localhost`, `0.0.0.0` or
 * an IPv4-mapped IPv6 literal. A listener that is not allowlisted must receive nothing.
 * No test here points at any other address (the classifier is tested on those as data).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, userMessage, type Json } from '../support/a2a.js';
import { captureLogs, type CapturedLogs } from '../support/logs.js';
import { startServer, type TestServer } from '../support/server.js';
import { always, startReceiver, type Receiver } from '../support/webhook.js';

const pushSettled = (server: TestServer) =>
  eventually(() => {
    const p = server.stats().push;
    return p.workers === 0 && p.queued === 0 && p.inFlight === 0 ? p : undefined;
  }, 10_000);

/** A task with these configs from its second turn on: working, then completed, to each of them. */
async function runTask(server: TestServer, configs: { id: string; url: string }[]): Promise<string> {
  const a2a = client(server.url, 'rest');
  const first = await a2a.send({ message: userMessage('ask where to?') });
  const id: string = first.result.id;
  for (const config of configs) {
    // Registration accepts any well-formed URL: the check happens at delivery.
    const r = await a2a.setPush(id, config);
    expect(r.status).toBe(200);
    expect(r.result.pushNotificationConfig.url).toBe(config.url);
  }
  const done = await a2a.send({ message: userMessage('here', { taskId: id }) });
  expect(done.result.status.state).toBe('completed');
  await pushSettled(server);
  return id;
}

const rejections = (logs: CapturedLogs, taskId: string): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  for (const e of logs.events('push.url_rejected').filter((x: Json) => x.taskId === taskId)) (out[e.configId] ??= []).push(e.reason);
  return out;
};

describe('webhook URL safety, loopback only', () => {
  let v4: Receiver; // 127.0.0.1
  let v4b: Receiver; // 127.0.0.2
  let v6: Receiver; // ::1
  let control: Receiver; // 127.0.0.1, the one allowlisted target
  const servers: TestServer[] = [];
  const extra: Receiver[] = [];

  const server = async (settings: Parameters<typeof startServer>[0]) => {
    const logs = captureLogs();
    const s = await startServer({ logger: logs.logger, pushRetryDelay: 0.05, ...settings });
    servers.push(s);
    return { server: s, logs };
  };

  beforeAll(async () => {
    [v4, v4b, v6, control] = await Promise.all([
      startReceiver({ host: '127.0.0.1' }),
      startReceiver({ host: '127.0.0.2' }),
      startReceiver({ host: '::1' }),
      startReceiver({ host: '127.0.0.1' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await Promise.all([v4, v4b, v6, control, ...extra].map((r) => r.close()));
  });

  it('listeners at 127.0.0.2, [::1], localhost, 0.0.0.0 and ::ffff:127.0.0.2 that are not allowlisted receive nothing', async () => {
    const { server: s, logs } = await server({ pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] });
    const before = [v4, v4b, v6].map((r) => r.received.length);
    const id = await runTask(s, [
      { id: 'control', url: control.url },
      { id: 'v4b', url: v4b.url },
      { id: 'v6', url: v6.url },
      { id: 'localhost', url: v4.urlVia('localhost') },
      { id: 'any', url: v4.urlVia('0.0.0.0') },
      { id: 'mapped', url: v4b.urlVia('[::ffff:127.0.0.2]') },
    ]);
    // The allowlisted control got both transitions, so every worker had its turn.
    expect(control.bodiesOf(id).map((b) => b.status.state)).toEqual(['working', 'completed']);
    expect([v4, v4b, v6].map((r) => r.received.length)).toEqual(before);
    expect(rejections(logs, id)).toEqual({
      v4b: ['blocked-address: loopback', 'blocked-address: loopback'],
      v6: ['blocked-address: loopback', 'blocked-address: loopback'],
      // A host name is checked on what it resolves to, at connect time.
      localhost: ['blocked-address: loopback', 'blocked-address: loopback'],
      any: ['blocked-address: this-network', 'blocked-address: this-network'],
      mapped: ['blocked-address: ipv4-mapped loopback', 'blocked-address: ipv4-mapped loopback'],
    });
  });

  it('a redirect from an allowlisted receiver is not followed, to a listener allowlisted or not', async () => {
    const { server: s, logs } = await server({ pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] });
    const toOther = await startReceiver({ respond: always({ status: 302, headers: { location: v4b.url } }) });
    const toAllowed = await startReceiver({ respond: always({ status: 307, headers: { location: control.url } }) });
    extra.push(toOther, toAllowed);
    const controlBefore = control.received.length;
    const v4bBefore = v4b.received.length;
    const id = await runTask(s, [
      { id: 'to-other', url: toOther.url },
      { id: 'to-allowed', url: toAllowed.url },
    ]);
    // One attempt per delivery (a redirect is the receiver's answer, not an error to retry).
    expect(toOther.bodiesOf(id).map((b) => b.status.state)).toEqual(['working', 'completed']);
    expect(toAllowed.bodiesOf(id).map((b) => b.status.state)).toEqual(['working', 'completed']);
    expect(v4b.received.length).toBe(v4bBefore);
    expect(control.received.length).toBe(controlBefore);
    const failures = logs.events('push.delivery_failed').filter((e: Json) => e.taskId === id);
    expect(failures.map((e: Json) => [e.configId, e.reason, e.status, e.attempts])).toEqual(
      expect.arrayContaining([
        ['to-other', 'redirect-not-followed', 302, 1],
        ['to-allowed', 'redirect-not-followed', 307, 1],
      ]),
    );
    expect(failures).toHaveLength(4);
  });

  it('http URLs are refused unless push_allow_http, even for an allowlisted host', async () => {
    const { server: s, logs } = await server({ pushAllowHttp: false, pushAllowedHosts: ['127.0.0.1'] });
    const before = control.received.length;
    const id = await runTask(s, [{ id: 'plain', url: control.url }]);
    expect(control.received.length).toBe(before);
    expect(rejections(logs, id)).toEqual({ plain: ['http-not-allowed', 'http-not-allowed'] });
  });

  it('an allowlisted host name or IPv6 literal is delivered to; the blocklist refuses its hosts', async () => {
    const { server: s, logs } = await server({
      pushAllowHttp: true,
      pushAllowedHosts: ['localhost', '::1'],
      pushBlockedHosts: ['127.0.0.2'],
    });
    const id = await runTask(s, [
      { id: 'by-name', url: v4.urlVia('localhost', '/by-name') },
      { id: 'v6', url: v6.url },
      { id: 'blocked', url: v4b.url },
      { id: 'not-listed', url: v4.url },
    ]);
    expect(v4.received.filter((r) => r.body.id === id).map((r) => [r.path, r.body.status.state])).toEqual([
      ['/by-name', 'working'],
      ['/by-name', 'completed'],
    ]);
    expect(v6.bodiesOf(id).map((b) => b.status.state)).toEqual(['working', 'completed']);
    expect(v4b.bodiesOf(id)).toEqual([]);
    expect(rejections(logs, id)).toEqual({
      blocked: ['blocked-host', 'blocked-host'],
      'not-listed': ['blocked-address: loopback', 'blocked-address: loopback'],
    });
  });

  it('the SERVICE_PUSH_* variables configure all of this', async () => {
    const { server: s, logs } = await server({
      env: { SERVICE_PUSH_ALLOW_HTTP: 'true', SERVICE_PUSH_ALLOWED_HOSTS: 'LOCALHOST, 127.0.0.1', SERVICE_PUSH_BLOCKED_HOSTS: '127.0.0.2' },
    });
    expect(s.settings).toMatchObject({
      pushAllowHttp: true,
      pushAllowedHosts: ['localhost', '127.0.0.1'],
      pushBlockedHosts: ['127.0.0.2'],
    });
    const id = await runTask(s, [
      { id: 'control', url: control.url },
      { id: 'blocked', url: v4b.url },
    ]);
    expect(control.bodiesOf(id).map((b) => b.status.state)).toEqual(['working', 'completed']);
    expect(v4b.bodiesOf(id)).toEqual([]);
    expect(rejections(logs, id)).toEqual({ blocked: ['blocked-host', 'blocked-host'] });
  });

  it('the blocklist wins over the allowlist, for the URL host and for what a name resolves to', async () => {
    const { server: s, logs } = await server({
      pushAllowHttp: true,
      pushAllowedHosts: ['127.0.0.1', 'localhost'],
      pushBlockedHosts: ['127.0.0.1'],
    });
    const before = v4.received.length;
    const id = await runTask(s, [
      { id: 'literal', url: v4.url },
      { id: 'by-name', url: v4.urlVia('localhost') },
    ]);
    expect(v4.received.length).toBe(before);
    expect(rejections(logs, id)).toEqual({ literal: ['blocked-host', 'blocked-host'], 'by-name': ['blocked-host', 'blocked-host'] });
  });
});
