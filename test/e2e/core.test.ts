/**
 * The spec's endpoint list, error table and version rules over both transports and both stores,
 * against a real server on a 127.0.0.1 port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, restCall, rpcCall, TRANSPORTS, userMessage, type A2AClient, type Json } from '../support/a2a.js';
import { startServer, STORE_KINDS, type TestServer } from '../support/server.js';

const TERMINAL = ['completed', 'failed', 'canceled', 'rejected'];

describe.each(STORE_KINDS)('core endpoints, %s store', (storeKind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ storeKind, cancelForceTimeout: 1, cancelGrace: 2 });
  });
  afterAll(() => server.stop());

  describe.each(TRANSPORTS)('over %s', (transport) => {
    let a2a: A2AClient;
    beforeAll(() => {
      a2a = client(server.url, transport);
    });

    it('a blocking send completes the task with the final-answer artifact', async () => {
      const r = await a2a.send({ message: userMessage('echo hello world') });
      expect(r.status).toBe(200);
      expect(r.result.kind).toBe('task');
      expect(r.result.status.state).toBe('completed');
      expect(r.result.artifacts).toEqual([{ artifactId: 'final-answer', parts: [{ kind: 'text', text: 'hello world' }] }]);
      expect(r.result.history[0].parts[0].text).toBe('echo hello world');
      expect(r.result.metadata.stateTransitions.map((t: Json) => t.state)).toEqual(['submitted', 'working', 'completed']);
    });

    it('a direct reply returns a Message instead of a task', async () => {
      const r = await a2a.send({ message: userMessage('direct hi there') });
      expect(r.status).toBe(200);
      expect(r.result).toMatchObject({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'hi there' }] });
      expect(typeof r.result.messageId).toBe('string');
      expect(r.result.taskId).toBeUndefined();
    });

    it('a non-blocking send to an agent that replies directly returns a task that exists and completes with the reply', async () => {
      const r = await a2a.send({ message: userMessage('direct quick answer'), configuration: { blocking: false } });
      expect(r.result.kind).toBe('task');
      const done = await eventually(async () => {
        const g = await a2a.get(r.result.id);
        expect(g.status).toBe(200);
        return g.result.status.state === 'completed' ? g.result : undefined;
      });
      expect(done.status.message.parts[0].text).toBe('quick answer');
      expect(done.history.at(-1).role).toBe('agent');
    });

    it('a follow-up on an input-required task continues the same task', async () => {
      const first = await a2a.send({ message: userMessage('ask what colour?') });
      expect(first.result.status.state).toBe('input-required');
      expect(first.result.status.message.parts[0].text).toBe('what colour?');
      const again = await a2a.send({ message: userMessage('ask and the shade?', { taskId: first.result.id }) });
      expect(again.result.id).toBe(first.result.id);
      expect(again.result.status.state).toBe('input-required');
      const done = await a2a.send({ message: userMessage('blue', { taskId: first.result.id, contextId: first.result.contextId }) });
      expect(done.result.id).toBe(first.result.id);
      expect(done.result.contextId).toBe(first.result.contextId);
      expect(done.result.status.state).toBe('completed');
      expect(done.result.artifacts[0].parts[0].text).toBe('got: blue');
      expect(done.result.metadata.stateTransitions.map((t: Json) => t.state)).toEqual([
        'submitted',
        'working',
        'input-required',
        'working',
        'input-required',
        'working',
        'completed',
      ]);
      expect(done.result.history.map((m: Json) => m.role)).toEqual(['user', 'agent', 'user', 'agent', 'user']);
    });

    it('auth-required is continued by a follow-up', async () => {
      const first = await a2a.send({ message: userMessage('auth') });
      expect(first.result.status.state).toBe('auth-required');
      const done = await a2a.send({ message: userMessage('token abc', { taskId: first.result.id }) });
      expect(done.result.status.state).toBe('completed');
    });

    it.each([
      ['fail broke', 'failed', 'broke'],
      ['reject no way', 'rejected', 'no way'],
    ])('"%s" ends %s with the reason as status message', async (text, state, reason) => {
      const r = await a2a.send({ message: userMessage(text) });
      expect(r.result.status.state).toBe(state);
      expect(r.result.status.message.parts[0].text).toBe(reason);
    });

    it('a handler that throws fails the task with a safe message and no stack', async () => {
      const r = await a2a.send({ message: userMessage('throw') });
      expect(r.result.status.state).toBe('failed');
      const text: string = r.result.status.message.parts[0].text;
      expect(text).toBe('The agent failed while handling this task.');
      expect(JSON.stringify(r.result)).not.toContain('at ');
    });

    it('data and file parts come back as artifacts', async () => {
      const data = await a2a.send({ message: userMessage('data') });
      expect(data.result.artifacts[0].parts[0]).toEqual({
        kind: 'data',
        data: { answer: 42, items: ['a', 'b'] },
        metadata: { mediaType: 'application/json' },
      });
      const file = await a2a.send({ message: userMessage('file') });
      const part = file.result.artifacts[0].parts[0];
      expect(part.kind).toBe('file');
      expect(Buffer.from(part.file.bytes, 'base64').toString()).toBe('hello file\n');
    });

    it('a non-blocking send returns at once and the task can be polled to completion', async () => {
      const r = await a2a.send({ message: userMessage('slow 300'), configuration: { blocking: false } });
      expect(['submitted', 'working']).toContain(r.result.status.state);
      const seenProgress = await eventually(async () => {
        const g = await a2a.get(r.result.id);
        return g.result.status.message?.parts[0].text.startsWith('working') ? g.result : undefined;
      });
      expect(seenProgress.status.state).toBe('working');
      const done = await eventually(async () => {
        const g = await a2a.get(r.result.id);
        return g.result.status.state === 'completed' ? g.result : undefined;
      });
      expect(done.artifacts[0].parts[0].text).toBe('slept 300 ms');
    });

    it('a repeated messageId returns the existing task instead of a duplicate', async () => {
      const message = userMessage('echo once');
      const a = await a2a.send({ message });
      const b = await a2a.send({ message });
      expect(b.result.id).toBe(a.result.id);
      const contextId = a.result.contextId;
      const inContext = userMessage('echo in context', { contextId });
      const c = await a2a.send({ message: inContext });
      const d = await a2a.send({ message: inContext });
      expect(d.result.id).toBe(c.result.id);
      expect(c.result.contextId).toBe(contextId);
    });

    it('tasks/get honours historyLength: absent = all, 0 = none, N = last N, negative = invalid', async () => {
      const first = await a2a.send({ message: userMessage('ask q') });
      await a2a.send({ message: userMessage('fine', { taskId: first.result.id }) });
      const id = first.result.id;
      expect((await a2a.get(id)).result.history).toHaveLength(3);
      expect((await a2a.get(id, 0)).result.history).toEqual([]);
      const last1 = await a2a.get(id, 1);
      expect(last1.result.history).toHaveLength(1);
      expect(last1.result.history[0].parts[0].text).toBe('fine');
      expect((await a2a.get(id, 9999)).result.history).toHaveLength(3);
      const bad = await a2a.get(id, -1);
      expect(bad.error?.code).toBe(-32602);
      expect(bad.status).toBe(transport === 'rest' ? 400 : 200);
    });

    it('tasks/get of an unknown task is 404 / -32001', async () => {
      const r = await a2a.get('no-such-task');
      expect(r.error?.code).toBe(-32001);
      expect(r.status).toBe(transport === 'rest' ? 404 : 200);
      expect(r.error?.message).toMatch(/task not found/i);
    });

    it('cancel of a working task returns it canceled; a second cancel is 409 / -32002', async () => {
      const r = await a2a.send({ message: userMessage('slow 5000'), configuration: { blocking: false } });
      const c = await a2a.cancel(r.result.id);
      expect(c.status).toBe(200);
      expect(c.result.status.state).toBe('canceled');
      const again = await a2a.cancel(r.result.id);
      expect(again.error?.code).toBe(-32002);
      expect(again.status).toBe(transport === 'rest' ? 409 : 200);
      expect((await a2a.get(r.result.id)).result.status.state).toBe('canceled');
    });

    it('cancel of a paused task cancels it at once', async () => {
      const r = await a2a.send({ message: userMessage('ask q') });
      const c = await a2a.cancel(r.result.id);
      expect(c.result.status.state).toBe('canceled');
      expect(c.result.metadata.stateTransitions.map((t: Json) => t.state)).toEqual(['submitted', 'working', 'input-required', 'canceled']);
    });

    it('a handler that ignores cancellation is force-canceled by the timer', async () => {
      const r = await a2a.send({ message: userMessage('stubborn 3000'), configuration: { blocking: false } });
      const c = await a2a.cancel(r.result.id);
      // force timeout 1 s, grace 2 s: the answer is already canceled
      expect(c.result.status.state).toBe('canceled');
    });

    it('cancel of an unknown task is 404 / -32001', async () => {
      const r = await a2a.cancel('missing');
      expect(r.error?.code).toBe(-32001);
      expect(r.status).toBe(transport === 'rest' ? 404 : 200);
    });

    it('a message to a terminal task is 409 / -32004', async () => {
      const done = await a2a.send({ message: userMessage('echo x') });
      const r = await a2a.send({ message: userMessage('more', { taskId: done.result.id }) });
      expect(r.error?.code).toBe(-32004);
      expect(r.status).toBe(transport === 'rest' ? 409 : 200);
    });

    it('a message to a working task is 422 / -32602', async () => {
      const slow = await a2a.send({ message: userMessage('slow 1500'), configuration: { blocking: false } });
      const r = await a2a.send({ message: userMessage('more', { taskId: slow.result.id }) });
      expect(r.error?.code).toBe(-32602);
      expect(r.status).toBe(transport === 'rest' ? 422 : 200);
      await a2a.cancel(slow.result.id);
    });

    it('a follow-up with another contextId is 400 / -32602', async () => {
      const first = await a2a.send({ message: userMessage('ask q') });
      const r = await a2a.send({ message: userMessage('x', { taskId: first.result.id, contextId: 'other-context' }) });
      expect(r.error?.code).toBe(-32602);
      expect(r.status).toBe(transport === 'rest' ? 400 : 200);
    });

    it('a follow-up on an unknown task is 404 / -32001', async () => {
      const r = await a2a.send({ message: userMessage('x', { taskId: 'nope' }) });
      expect(r.error?.code).toBe(-32001);
      expect(r.status).toBe(transport === 'rest' ? 404 : 200);
    });

    it.each([
      ['missing messageId', { role: 'user', parts: [{ kind: 'text', text: 'x' }] }, -32600],
      ['empty messageId', { role: 'user', parts: [{ kind: 'text', text: 'x' }], messageId: '' }, -32600],
      ['empty parts', { role: 'user', parts: [], messageId: 'a' }, -32602],
      ['unknown part kind', { role: 'user', parts: [{ kind: 'video', url: 'x' }], messageId: 'a' }, -32602],
      ['parts not an array', { role: 'user', parts: 'invalid', messageId: 'a' }, -32602],
      ['missing role', { parts: [{ kind: 'text', text: 'x' }], messageId: 'a' }, -32602],
      ['text of wrong type', { role: 'user', parts: [{ kind: 'text', text: 5 }], messageId: 'a' }, -32602],
    ])('a message with %s is refused with %i', async (_name, message, code) => {
      const r = await a2a.send({ message });
      expect(r.error?.code).toBe(code);
      expect(r.status).toBe(transport === 'rest' ? 400 : 200);
    });

    it('send without a message is invalid params', async () => {
      const r = await a2a.send({ '': 'x' });
      expect(r.error?.code).toBe(-32602);
    });

    it('the extended card needs the bearer token: 401 without, the extra skill with', async () => {
      const denied = await a2a.extendedCard();
      expect(denied.status).toBe(401);
      expect(denied.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const wrong = await a2a.extendedCard({ authorization: 'Bearer nope' });
      expect(wrong.status).toBe(401);
      const ok = await a2a.extendedCard({ authorization: 'Bearer scenario-token' });
      expect(ok.status).toBe(200);
      expect(ok.result.skills.map((s: Json) => s.id)).toEqual(['scenarios', 'secret-scenarios']);
      expect(ok.result.protocolVersion).toBe('0.3.0');
    });

    it.each(['0.3', '0.3.0', '0.3.7'])('A2A-Version %s is accepted', async (version) => {
      const r =
        transport === 'rest'
          ? await restCall(server.url, 'GET', '/v1/health', undefined, { 'A2A-Version': version })
          : await rpcCall(server.url, 'tasks/get', { id: 'x' }, { 'A2A-Version': version });
      expect(r.status).toBe(200);
      if (transport === 'jsonrpc') expect(r.error?.code).toBe(-32001);
    });

    it.each(['2.0', '0.2', '2', 'banana'])('A2A-Version %s is 400 / -32009', async (version) => {
      const r =
        transport === 'rest'
          ? await restCall(server.url, 'POST', '/v1/message:send', { message: userMessage('echo x') }, { 'A2A-Version': version })
          : await rpcCall(server.url, 'message/send', { message: userMessage('echo x') }, { 'A2A-Version': version });
      expect(r.status).toBe(400);
      expect(r.error?.code).toBe(-32009);
    });
  });

  describe('tasks/list', () => {
    it.each(TRANSPORTS)('filters by context and state, pages with stable tokens and counts totals (%s)', async (transport) => {
      const a2a = client(server.url, transport);
      const first = await a2a.send({ message: userMessage('echo 0') });
      const contextId = first.result.contextId;
      const ids = [first.result.id];
      for (let i = 1; i < 7; i++) {
        const r = await a2a.send({ message: userMessage(i % 3 === 0 ? 'ask q' : `echo ${i}`, { contextId }) });
        ids.push(r.result.id);
      }
      const page1 = await a2a.list({ contextId, pageSize: 3 });
      expect(page1.status).toBe(200);
      expect(page1.result.totalSize).toBe(7);
      expect(page1.result.pageSize).toBe(3);
      expect(page1.result.tasks.map((t: Json) => t.id)).toEqual(ids.slice().reverse().slice(0, 3));
      expect(page1.result.tasks[0].artifacts).toBeUndefined();
      // A task inserted between pages does not shift the next page.
      await a2a.send({ message: userMessage('echo inserted', { contextId }) });
      const page2 = await a2a.list({ contextId, pageSize: 3, pageToken: page1.result.nextPageToken });
      expect(page2.result.tasks.map((t: Json) => t.id)).toEqual(ids.slice().reverse().slice(3, 6));
      const page3 = await a2a.list({ contextId, pageSize: 3, pageToken: page2.result.nextPageToken });
      expect(page3.result.tasks.map((t: Json) => t.id)).toEqual([ids[0]]);
      expect(page3.result.nextPageToken).toBe('');

      const paused = await a2a.list({ contextId, status: 'input-required' });
      expect(paused.result.tasks.map((t: Json) => t.id).sort()).toEqual([ids[3], ids[6]].sort());
      expect(paused.result.totalSize).toBe(2);

      const withArtifacts = await a2a.list({ contextId, status: 'completed', includeArtifacts: true, historyLength: 0 });
      expect(withArtifacts.result.tasks[0].artifacts[0].artifactId).toBe('final-answer');
      expect(withArtifacts.result.tasks[0].history).toEqual([]);

      const future = await a2a.list({ contextId, statusTimestampAfter: new Date(Date.now() + 60_000).toISOString() });
      expect(future.result.tasks).toEqual([]);
      const past = await a2a.list({ contextId, statusTimestampAfter: new Date(Date.now() - 60_000).toISOString() });
      expect(past.result.totalSize).toBe(8);
    });

    it.each(TRANSPORTS)('pageSize outside 1..100 and a forged pageToken are invalid params (%s)', async (transport) => {
      const a2a = client(server.url, transport);
      for (const pageSize of [0, 101, -5]) {
        const r = await a2a.list({ pageSize });
        expect(r.error?.code).toBe(-32602);
        expect(r.status).toBe(transport === 'rest' ? 400 : 200);
      }
      const bad = await a2a.list({ pageToken: 'not-a-token' });
      expect(bad.error?.code).toBe(-32602);
      const badState = await a2a.list({ status: 'sleeping' });
      expect(badState.error?.code).toBe(-32602);
    });
  });

  describe('discovery and health', () => {
    it('serves the agent card with both transports and the URL from X-Forwarded-*', async () => {
      const res = await fetch(`${server.url}/.well-known/agent-card.json`, {
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'agents.example.com' },
      });
      expect(res.status).toBe(200);
      const card: Json = await res.json();
      // Mounted in a host app (the mount projects), the card's URLs keep the mount path.
      const base = `https://agents.example.com${new URL(server.url).pathname.replace(/\/$/, '')}`;
      expect(card).toMatchObject({
        protocolVersion: '0.3.0',
        name: 'Scenario Agent',
        url: base,
        preferredTransport: 'JSONRPC',
        capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: true },
        supportsAuthenticatedExtendedCard: true,
        defaultInputModes: ['text/plain'],
      });
      expect(card.additionalInterfaces).toEqual([
        { url: base, transport: 'JSONRPC' },
        { url: base, transport: 'HTTP+JSON' },
      ]);
      const plain: Json = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json();
      expect(plain.url).toBe(server.url.replace('127.0.0.1', '127.0.0.1'));
    });

    it('answers health with ok', async () => {
      const r = await restCall(server.url, 'GET', '/v1/health');
      expect(r).toMatchObject({ status: 200, result: { status: 'ok' } });
    });

    it('unknown REST paths are 404 with an A2A error body', async () => {
      const r = await restCall(server.url, 'GET', '/v1/nothing-here');
      expect(r.status).toBe(404);
      expect(r.error).toMatchObject({ code: -32601 });
      const chat = await fetch(`${server.url}/chat`);
      expect(chat.status).toBe(404);
    });
  });

  it('no task leaves an actor, a timer or a live record behind', async () => {
    await eventually(() => {
      const s = server.stats();
      return s.liveTasks === 0 && s.runningActors === 0 && s.pendingFlushes === 0 ? s : undefined;
    }, 10_000);
  });

  it('no terminal task is ever reported in a non-terminal list state', async () => {
    const all = await client(server.url, 'rest').list({ pageSize: 100 });
    for (const t of all.result.tasks) {
      if (TERMINAL.includes(t.status.state)) expect(t.metadata.stateTransitions.at(-1).state).toBe(t.status.state);
    }
  });
});
