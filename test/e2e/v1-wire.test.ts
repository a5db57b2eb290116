/**
 * A2A v1.0 on the wire, byte by byte, beside v0.3 on the same server (docs/architecture.md
 * "Protocol versions"): which version a request is answered in, v1.0's media type, error bodies
 * (google.rpc.Status and ErrorInfo, spec §5.4, §9.5, §11.6), stream frames (§4.2.3), parts, the
 * card's two shapes, owner rules, and one task living through both versions at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import authAgent from '../../examples/auth-agent.js';
import { client, eventually, restCall, rpcCall, TRANSPORTS, userMessage, type Json, type Outcome } from '../support/a2a.js';
import { BAD_REQUEST, ERROR_INFO, errorInfoOf, detailsOf, V1_HEADERS, v1Client, v1UserMessage } from '../support/a2a-v1.js';
import { startServer, type TestServer } from '../support/server.js';
import { openSse, type SseEvent } from '../support/sse.js';
import { startReceiver, type Receiver } from '../support/webhook.js';

/** Loopback receivers over plain http: allowed explicitly, as a development setup would. */
const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };
const DOMAIN = 'a2a-protocol.org';
const errorInfo = (reason: string) => ({ '@type': ERROR_INFO, reason, domain: DOMAIN });

/** A stream's frames, or a failure if it has not ended in `ms` (every stream here must end). */
const ended = (events: Promise<SseEvent[]>, ms = 10_000): Promise<SseEvent[]> =>
  Promise.race([events, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the stream did not end in ${ms} ms`)), ms))]);

/** The one key of each StreamResponse (`task`, `statusUpdate`, …), JSON-RPC envelopes opened. */
const frames = (events: SseEvent[]): Json[] => events.map((e) => ('jsonrpc' in e.data ? e.data.result : e.data));
const oneofs = (events: SseEvent[]): string[] => frames(events).map((f) => Object.keys(f).join('+'));
const stateOf = (frame: Json): string | undefined => (frame.task ?? frame.statusUpdate)?.status?.state;

const rpcBody = (method: string, params: unknown, id = 1) => ({ jsonrpc: '2.0', id, method, params });
const sendRequest = (text: string, extra: Record<string, unknown> = {}, configuration: Json = {}) => ({
  message: v1UserMessage(text, extra),
  configuration,
});

/** A v1.0 stream over either transport: SendStreamingMessage / `message:stream`, SubscribeToTask / `:subscribe`. */
function v1Stream(url: string, transport: 'jsonrpc' | 'rest', what: { send: Json } | { subscribe: string }) {
  if (transport === 'jsonrpc') {
    const body = 'send' in what ? rpcBody('SendStreamingMessage', what.send) : rpcBody('SubscribeToTask', { id: what.subscribe });
    return openSse(`${url}/`, { body, headers: { ...V1_HEADERS } });
  }
  return 'send' in what
    ? openSse(`${url}/message:stream`, { body: what.send, headers: { ...V1_HEADERS } })
    : openSse(`${url}/tasks/${encodeURIComponent(what.subscribe)}:subscribe`, { headers: { ...V1_HEADERS } });
}

describe('A2A v1.0 on the wire', () => {
  let server: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    server = await startServer({ ...LOCAL_PUSH });
  });
  afterAll(async () => {
    await server?.stop();
    await rx?.close();
  });

  describe('which version answers', () => {
    it('SendMessage without A2A-Version is v1.0: a `task` oneof, TASK_STATE_* and no `kind`', async () => {
      const r = await rpcCall(server.url, 'SendMessage', sendRequest('echo v1 by name'));
      expect(r.status).toBe(200);
      expect(Object.keys(r.result)).toEqual(['task']);
      expect(r.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(r.result.task.artifacts[0].parts).toEqual([{ text: 'v1 by name' }]);
      expect(JSON.stringify(r.result)).not.toContain('"kind"');
    });

    it('message/send without A2A-Version is v0.3, byte for byte as before', async () => {
      const r = await rpcCall(server.url, 'message/send', { message: userMessage('echo v03 by name') });
      expect(r.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
      expect(r.result.artifacts[0].parts).toEqual([{ kind: 'text', text: 'v03 by name' }]);
    });

    it('A2A-Version: 1.0 with a v0.3 method name is -32601, in v1.0 error shape', async () => {
      const r = await rpcCall(server.url, 'message/send', { message: userMessage('echo') }, { ...V1_HEADERS });
      expect(r.error).toEqual({ code: -32601, message: expect.stringContaining('message/send'), data: [errorInfo('METHOD_NOT_FOUND')] });
    });

    it('A2A-Version: 2.0 is -32009 / VERSION_NOT_SUPPORTED in the shape of what was asked for', async () => {
      const v2 = { 'A2A-Version': '2.0' };
      // A v1.0 method name and a v1.0 path: v1.0's error shapes (typed data, google.rpc.Status).
      const rpc = await rpcCall(server.url, 'SendMessage', sendRequest('echo'), v2);
      expect(rpc.status).toBe(400);
      expect(rpc.error).toEqual({ code: -32009, message: expect.stringContaining('2.0'), data: [errorInfo('VERSION_NOT_SUPPORTED')] });
      const root = await restCall(server.url, 'POST', '/message:send', sendRequest('echo'), v2);
      expect(root.status).toBe(400);
      expect(root.error).toEqual({
        error: { code: 400, status: 'FAILED_PRECONDITION', message: expect.any(String), details: [errorInfo('VERSION_NOT_SUPPORTED')] },
      });
      const tasks = await restCall(server.url, 'GET', '/acme/tasks/some-task', undefined, v2);
      expect(tasks.status).toBe(400);
      expect(errorInfoOf(tasks)).toEqual(errorInfo('VERSION_NOT_SUPPORTED'));

      // A v0.3 method name and a v0.3 path: v0.3's.
      const legacyRpc = await rpcCall(server.url, 'tasks/get', { id: 'some-task' }, v2);
      expect(legacyRpc.error).toEqual({ code: -32009, message: expect.any(String) });
      const legacy = await restCall(server.url, 'POST', '/v1/message:send', { message: userMessage('echo') }, v2);
      expect(legacy.status).toBe(400);
      expect(legacy.error).toMatchObject({ code: -32009, error: 'VersionNotSupportedError' });
    });

    it('/v1/message:send without A2A-Version is v0.3; the root /message:send is v1.0', async () => {
      const legacy = await restCall(server.url, 'POST', '/v1/message:send', { message: userMessage('echo legacy path') });
      expect(legacy.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
      const root = await restCall(server.url, 'POST', '/message:send', sendRequest('echo root path'));
      expect(Object.keys(root.result)).toEqual(['task']);
      expect(root.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('a /{tenant} prefix is v1.0 and reaches the same tasks as no tenant and as v0.3', async () => {
      const sent = await restCall(server.url, 'POST', '/acme/message:send', sendRequest('echo for a tenant'));
      expect(sent.status).toBe(200);
      const id: string = sent.result.task.id;
      const viaTenant = await restCall(server.url, 'GET', `/acme/tasks/${id}`);
      const viaRoot = await restCall(server.url, 'GET', `/tasks/${id}`);
      expect(viaTenant.result).toEqual(viaRoot.result);
      expect(viaTenant.result).toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
      expect((await client(server.url, 'rest').get(id)).result).toMatchObject({ kind: 'task', id });
    });
  });

  describe('HTTP+JSON', () => {
    it('accepts application/a2a+json and answers in it', async () => {
      const res = await fetch(`${server.url}/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/a2a+json', accept: 'application/a2a+json', ...V1_HEADERS },
        body: JSON.stringify(sendRequest('echo in a2a+json')),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/a2a\+json/);
      expect(((await res.json()) as Json).task.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('an unknown task is 404 NOT_FOUND with the TASK_NOT_FOUND ErrorInfo', async () => {
      const r = await restCall(server.url, 'GET', '/tasks/no-such-task', undefined, { ...V1_HEADERS });
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^application\/a2a\+json/);
      expect(r.error).toEqual({
        error: { code: 404, status: 'NOT_FOUND', message: expect.any(String), details: [errorInfo('TASK_NOT_FOUND')] },
      });
    });

    it('canceling a finished task is 400 FAILED_PRECONDITION with TASK_NOT_CANCELABLE', async () => {
      const rest = v1Client(server.url, 'rest');
      const done = await rest.send(sendRequest('echo finished'));
      const r = await rest.cancel(done.result.task.id);
      expect(r.status).toBe(400);
      expect(r.error).toEqual({
        error: { code: 400, status: 'FAILED_PRECONDITION', message: expect.any(String), details: [errorInfo('TASK_NOT_CANCELABLE')] },
      });
    });

    it('a push config is created with 201 and deleted with 204 and no body', async () => {
      const rest = v1Client(server.url, 'rest');
      const task = await rest.send(sendRequest('ask for a hook?'));
      const id: string = task.result.task.id;
      const created = await rest.createPush(id, { id: 'rest-hook', url: rx.url, token: 'tok' });
      expect(created.status).toBe(201);
      expect(created.result).toEqual({ id: 'rest-hook', taskId: id, url: rx.url, token: 'tok' });
      const res = await fetch(`${server.url}/tasks/${id}/pushNotificationConfigs/rest-hook`, {
        method: 'DELETE',
        headers: { ...V1_HEADERS },
      });
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect((await rest.listPush(id)).result).toEqual({ configs: [], nextPageToken: '' });
    });
  });

  describe('JSON-RPC errors keep their codes and carry typed data', () => {
    it('an unknown task is -32001 with the TASK_NOT_FOUND ErrorInfo', async () => {
      const r = await v1Client(server.url, 'jsonrpc').get('no-such-task');
      expect(r.status).toBe(200);
      expect(r.error).toEqual({ code: -32001, message: expect.any(String), data: [errorInfo('TASK_NOT_FOUND')] });
    });

    it('canceling a finished task is -32002 with TASK_NOT_CANCELABLE', async () => {
      const rpc = v1Client(server.url, 'jsonrpc');
      const done = await rpc.send(sendRequest('echo finished'));
      const r = await rpc.cancel(done.result.task.id);
      expect(r.error).toEqual({ code: -32002, message: expect.any(String), data: [errorInfo('TASK_NOT_CANCELABLE')] });
    });

    it('invalid params are -32602 with INVALID_PARAMS and a BadRequest naming the field', async () => {
      const r = await v1Client(server.url, 'jsonrpc').send({ message: { ...v1UserMessage('x'), parts: [] } });
      expect(r.error?.code).toBe(-32602);
      expect(errorInfoOf(r)).toEqual(errorInfo('INVALID_PARAMS'));
      const badRequest = detailsOf(r).find((d) => d['@type'] === BAD_REQUEST);
      expect(badRequest.fieldViolations).toContainEqual({ field: 'message.parts', description: expect.stringMatching(/empty/) });
    });
  });

  describe.each(TRANSPORTS)('over %s', (transport) => {
    it('a stream is {task|statusUpdate|artifactUpdate} frames with no `final` and no `kind`, and it ends', async () => {
      const stream = await v1Stream(server.url, transport, { send: sendRequest('stream 2') });
      expect(stream.status).toBe(200);
      expect(stream.contentType).toMatch(/^text\/event-stream/);
      const events = await ended(stream.events);
      if (transport === 'jsonrpc') for (const e of events) expect(e.data).toMatchObject({ jsonrpc: '2.0', id: 1 });
      expect(oneofs(events)).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
      const all = frames(events);
      expect(all.map(stateOf).filter(Boolean)).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
      expect(all[2].artifactUpdate).toMatchObject({ artifact: { artifactId: 'stream', parts: [{ text: 'chunk 1\n' }] }, lastChunk: false });
      expect(all[3].artifactUpdate).toMatchObject({ append: true, lastChunk: true });
      const text = JSON.stringify(all);
      expect(text).not.toContain('"kind"');
      expect(text).not.toContain('"final"');
    });

    it('every part kind round-trips through a send and a get', async () => {
      const v1 = v1Client(server.url, transport);
      const parts = [
        { text: 'echo parts' },
        { raw: Buffer.from('raw bytes').toString('base64'), mediaType: 'application/octet-stream', filename: 'raw.bin' },
        { url: 'https://127.0.0.1/picture.png', mediaType: 'image/png', filename: 'picture.png' },
        { data: { answer: 42, list: ['a', 'b'] }, metadata: { about: 'data' } },
      ];
      const sent = await v1.send({ message: { ...v1UserMessage(''), parts } });
      expect(sent.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      const got = await v1.get(sent.result.task.id);
      expect(got.result.history[0]).toMatchObject({ role: 'ROLE_USER', parts });
      expect(got.result.history[0].parts).toEqual(parts);
    });
  });

  describe('the card', () => {
    it('lists JSON-RPC and HTTP+JSON at 1.0 and at 0.3, announces the extended card and varies by A2A-Version', async () => {
      const res = await fetch(`${server.url}/.well-known/agent-card.json`);
      expect(res.headers.get('vary')).toMatch(/A2A-Version/i);
      const card = (await res.json()) as Json;
      // Through a mount, the URLs include the mount path, as server.url does.
      for (const i of card.supportedInterfaces) expect(i.url.startsWith(server.url), i.url).toBe(true);
      expect(card.supportedInterfaces.map((i: Json) => `${i.protocolBinding}@${i.protocolVersion}`)).toEqual([
        'JSONRPC@1.0',
        'HTTP+JSON@1.0',
        'JSONRPC@0.3',
        'HTTP+JSON@0.3',
      ]);
      // One URL per binding at both versions: the same endpoints serve both, A2A-Version or the name choosing.
      const urlsOf = (binding: string) =>
        new Set(card.supportedInterfaces.filter((i: Json) => i.protocolBinding === binding).map((i: Json) => i.url));
      expect([...urlsOf('JSONRPC')]).toEqual([card.url]);
      expect(urlsOf('HTTP+JSON').size).toBe(1);
      expect(card.capabilities.extendedAgentCard).toBe(true);
    });

    it('the interfaces the card lists answer v1.0 at their URLs', async () => {
      const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { ...V1_HEADERS } })).json()) as Json;
      const at = (binding: string) =>
        card.supportedInterfaces.find((i: Json) => i.protocolBinding === binding && i.protocolVersion === '1.0').url as string;
      const rpc = await fetch(at('JSONRPC'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...V1_HEADERS },
        body: JSON.stringify(rpcBody('SendMessage', sendRequest('echo via the card'))),
      });
      expect(((await rpc.json()) as Json).result.task.status.state).toBe('TASK_STATE_COMPLETED');
      const rest = await restCall(at('HTTP+JSON'), 'POST', '/message:send', sendRequest('echo via the card'), { ...V1_HEADERS });
      expect(rest.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    });
  });

  describe('one task through both versions', () => {
    const v03 = () => client(server.url, 'jsonrpc');

    it.each(TRANSPORTS)('a task made over v0.3 is read, continued, subscribed to and canceled over v1.0 %s', async (transport) => {
      const v1 = v1Client(server.url, transport);
      const asked = await v03().send({ message: userMessage('ask which colour?') });
      const id: string = asked.result.id;
      expect(asked.result.status.state).toBe('input-required');

      const read = await v1.get(id);
      expect(read.result).toMatchObject({ id, contextId: asked.result.contextId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
      expect(read.result.history[0]).toMatchObject({ role: 'ROLE_USER', parts: [{ text: 'ask which colour?' }] });

      const again = await v1.send(sendRequest('ask really?', { taskId: id }));
      expect(again.result.task).toMatchObject({ id, status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
      const done = await v1.send(sendRequest('green', { taskId: id }));
      expect(done.result.task).toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
      expect(done.result.task.artifacts[0].parts).toEqual([{ text: 'got: green' }]);
      expect((await v03().get(id)).result.status.state).toBe('completed');

      const running = await v03().send({ message: userMessage('slow 5000'), configuration: { blocking: false } });
      const runningId: string = running.result.id;
      const followed = await v1Stream(server.url, transport, { subscribe: runningId });
      expect(followed.status).toBe(200);
      // Subscribed first: the cancel below must reach the stream.
      await eventually(async () => ((await v03().get(runningId)).result.status.state === 'working' ? true : undefined));
      const canceled = await v1.cancel(runningId);
      expect(canceled.result).toMatchObject({ id: runningId, status: { state: 'TASK_STATE_CANCELED' } });
      const events = await ended(followed.events);
      expect(oneofs(events)[0]).toBe('task');
      expect(stateOf(frames(events).at(-1))).toBe('TASK_STATE_CANCELED');
      expect((await v03().get(runningId)).result.status.state).toBe('canceled');
    });

    it('a task made over v1.0 is read and canceled over v0.3', async () => {
      const made = await v1Client(server.url, 'rest').send(sendRequest('slow 5000', {}, { returnImmediately: true }));
      const id: string = made.result.task.id;
      const read = await v03().get(id);
      expect(read.result).toMatchObject({ kind: 'task', id, contextId: made.result.task.contextId });
      expect(read.result.history[0]).toMatchObject({ kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'slow 5000' }] });
      const canceled = await client(server.url, 'rest').cancel(id);
      expect(canceled.result).toMatchObject({ kind: 'task', id, status: { state: 'canceled' } });
      expect((await v1Client(server.url, 'jsonrpc').get(id)).result.status.state).toBe('TASK_STATE_CANCELED');
    });

    it('a push config registered over v0.3 gets v0.3 bodies, one registered over v1.0 on the same task v1.0 bodies', async () => {
      const asked = await v03().send({ message: userMessage('ask for two hooks?') });
      const id: string = asked.result.id;
      const v03Url = rx.urlVia('127.0.0.1', '/v03-hook');
      const v1Url = rx.urlVia('127.0.0.1', '/v1-hook');
      expect((await v03().setPush(id, { id: 'old', url: v03Url })).result).toMatchObject({ taskId: id });
      expect((await v1Client(server.url, 'jsonrpc').createPush(id, { id: 'new', url: v1Url })).result).toMatchObject({
        id: 'new',
        taskId: id,
      });
      await v03().send({ message: userMessage('done', { taskId: id }) });

      const final = (path: string, state: (body: Json) => string | undefined) =>
        eventually(() =>
          rx.received.find((r) => r.path === path && state(r.body) !== undefined && /COMPLETED|completed/.test(state(r.body) ?? '')),
        );
      const old = await final('/v03-hook', (b) => (b.id === id ? b.status?.state : undefined));
      expect(old.headers['content-type']).toMatch(/^application\/json/);
      expect(old.body).toMatchObject({ kind: 'task', id, status: { state: 'completed' } });
      const fresh = await final('/v1-hook', (b) => (b.task?.id === id ? b.task.status?.state : undefined));
      expect(fresh.headers['content-type']).toBe('application/a2a+json');
      expect(fresh.body).toEqual({
        task: expect.objectContaining({ id, status: expect.objectContaining({ state: 'TASK_STATE_COMPLETED' }) }),
      });
      expect(JSON.stringify(fresh.body)).not.toContain('"kind"');
    });
  });
});

describe('A2A v1.0 with authentication on', () => {
  let server: TestServer;
  const ALICE = { authorization: 'Bearer alice-token' };
  const BOB = { authorization: 'Bearer bob-token' };
  beforeAll(async () => {
    server = await startServer({ agent: authAgent });
  });
  afterAll(() => server?.stop());

  it('securitySchemes is v0.3-shaped without A2A-Version and v1.0-shaped with 1.0; securityRequirements is there', async () => {
    const plain = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Json;
    expect(plain.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: expect.stringMatching(/^bearer$/i) });
    const v1 = (await (await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { ...V1_HEADERS } })).json()) as Json;
    expect(Object.keys(v1.securitySchemes.bearer)).toEqual(['httpAuthSecurityScheme']);
    expect(v1.securitySchemes.bearer.httpAuthSecurityScheme).toMatchObject({ scheme: expect.stringMatching(/^bearer$/i) });
    for (const card of [plain, v1]) expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
  });

  it.each(TRANSPORTS)("another caller's task is TASK_NOT_FOUND over v1.0 %s", async (transport) => {
    const alice = v1Client(server.url, transport, { ...V1_HEADERS, ...ALICE });
    const bob = v1Client(server.url, transport, { ...V1_HEADERS, ...BOB });
    const made = await alice.send(sendRequest('ask only alice?'));
    const id: string = made.result.task.id;
    expect((await alice.get(id)).result.id).toBe(id);
    const unknown = await bob.get('no-such-task');
    for (const answer of [await bob.get(id), await bob.cancel(id), await bob.send(sendRequest('hijack', { taskId: id }))]) {
      expect(errorInfoOf(answer)).toEqual(errorInfo('TASK_NOT_FOUND'));
      expect(answer.status).toBe(unknown.status);
      if (transport === 'rest') expect((answer.error as Json).error.code).toBe(404);
      else expect(answer.error?.code).toBe(-32001);
    }
    expect((await bob.list()).result.tasks.map((t: Json) => t.id)).not.toContain(id);
  });

  it('no credentials is 401 UNAUTHENTICATED over v1.0 REST', async () => {
    const r: Outcome = await restCall(server.url, 'GET', '/tasks', undefined, { ...V1_HEADERS });
    expect(r.status).toBe(401);
    expect(r.error).toEqual({
      error: { code: 401, status: 'UNAUTHENTICATED', message: expect.any(String), details: [errorInfo('UNAUTHENTICATED')] },
    });
  });
});
