/**
 * Extensions and output negotiation through a real server on 127.0.0.1, over both transports,
 * streaming included, on both front ends: the card, activation by header and its echo, required
 * extensions, what the handler sees, extension data and `extensions` lists on what it emits,
 * and `acceptedOutputModes` with the convert-or-fail rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, restCall, rpcCall, TRANSPORTS, userMessage, type A2AClient, type Json } from '../support/a2a.js';
import { startServer, type TestServer } from '../support/server.js';
import { streamMessage, summarize } from '../support/streams.js';
import { CITATIONS, extensionsAgent, SIGNED, TRACE } from '../support/agents/extensions-agent.js';

const FRONT_ENDS = ['uws', 'node'] as const;
const HEADER = 'x-a2a-extensions';

/** What the agent's `report` artifact says it saw. */
const reportOf = (task: Json): Json => JSON.parse(task.artifacts.find((a: Json) => a.artifactId === 'report').parts[0].text);
const artifact = (task: Json, id: string): Json => task.artifacts.find((a: Json) => a.artifactId === id);

describe.each(FRONT_ENDS)('extensions on the %s front end', (frontEnd) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ agent: extensionsAgent(), frontEnd });
  });
  afterAll(() => server?.stop());

  it('the card lists the declared extensions, `required` always a boolean', async () => {
    expect(server.frontEnd).toBe(frontEnd);
    const card: Json = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json();
    expect(card.capabilities.extensions).toEqual([
      { uri: TRACE, description: 'Trace ids in metadata', required: false, params: { header: 'traceparent' } },
      { uri: CITATIONS, required: false },
    ]);
  });

  describe.each(TRANSPORTS)('over %s', (transport) => {
    let a2a: A2AClient;
    beforeAll(() => {
      a2a = client(server.url, transport);
    });

    it('the header activates the declared extensions it names (each once, in its order); unknown URIs are ignored', async () => {
      const r = await a2a.send(
        { message: userMessage('report') },
        { [HEADER]: ` ${CITATIONS} ,https://unknown.example/x,,  ${TRACE},${CITATIONS}` },
      );
      expect(r.status).toBe(200);
      expect(r.headers.get(HEADER)).toBe(`${CITATIONS}, ${TRACE}`);
      expect(r.headers.get('a2a-extensions')).toBeNull();
      expect(reportOf(r.result).extensions).toEqual([CITATIONS, TRACE]);
    });

    it('without the header, or naming only unknown URIs, nothing is activated and no header comes back', async () => {
      for (const headers of [{}, { [HEADER]: 'https://unknown.example/x, urn:nothing' }] as Record<string, string>[]) {
        const r = await a2a.send({ message: userMessage('report') }, headers);
        expect(r.status).toBe(200);
        expect(r.headers.get(HEADER)).toBeNull();
        const seen = reportOf(r.result);
        expect(seen.extensions).toEqual([]);
        expect(seen.frozen).toBe(true);
        expect(artifact(r.result, 'report').metadata).toBeUndefined();
        expect(artifact(r.result, 'report').extensions).toBeUndefined();
      }
    });

    it("A2A 1.0's header name activates too, and the answer names them under both names", async () => {
      const r = await a2a.send({ message: userMessage('report') }, { 'a2a-extensions': TRACE });
      expect(r.headers.get(HEADER)).toBe(TRACE);
      expect(r.headers.get('a2a-extensions')).toBe(TRACE);
      expect(reportOf(r.result).extensions).toEqual([TRACE]);
    });

    it('other operations echo the activated extensions too (tasks/get)', async () => {
      const sent = await a2a.send({ message: userMessage('report') });
      const got = await (transport === 'jsonrpc'
        ? rpcCall(server.url, 'tasks/get', { id: sent.result.id }, { [HEADER]: TRACE })
        : restCall(server.url, 'GET', `/v1/tasks/${sent.result.id}`, undefined, { [HEADER]: TRACE }));
      expect(got.status).toBe(200);
      expect(got.headers.get(HEADER)).toBe(TRACE);
    });

    it('extension data the handler puts in metadata, and its extensions lists, reach artifacts and are stored', async () => {
      const r = await a2a.send({ message: userMessage('report') }, { [HEADER]: TRACE });
      const task = r.result;
      const traceData = { [TRACE]: { traceId: `trace-of-${task.id}` } };
      expect(artifact(task, 'report')).toMatchObject({ metadata: traceData, extensions: [TRACE] });
      expect(artifact(task, 'final-answer')).toMatchObject({
        parts: [{ kind: 'text', text: 'done' }],
        metadata: traceData,
        extensions: [TRACE],
      });
      const stored = await a2a.get(task.id);
      expect(artifact(stored.result, 'final-answer')).toMatchObject({ metadata: traceData, extensions: [TRACE] });
    });

    it("a client message's extensions list and metadata are kept in the task history and seen by the handler", async () => {
      const message = userMessage('report', { extensions: [TRACE, 'urn:client-only'], metadata: { [TRACE]: { from: 'client' } } });
      const r = await a2a.send({ message });
      expect(reportOf(r.result).messageExtensions).toEqual([TRACE, 'urn:client-only']);
      const stored = await a2a.get(r.result.id);
      expect(stored.result.history[0]).toMatchObject({ extensions: [TRACE, 'urn:client-only'], metadata: { [TRACE]: { from: 'client' } } });
    });

    it('a direct reply and a status message carry the metadata and extensions the handler gave them', async () => {
      const direct = await a2a.send({ message: userMessage('direct') }, { [HEADER]: TRACE });
      expect(direct.result).toMatchObject({ kind: 'message', extensions: [TRACE], parts: [{ text: 'directly' }] });
      expect(direct.result.metadata[TRACE].traceId).toMatch(/^trace-of-/);

      const ask = await a2a.send({ message: userMessage('ask') }, { [HEADER]: TRACE });
      expect(ask.result.status.state).toBe('input-required');
      expect(ask.result.status.message).toMatchObject({
        extensions: [TRACE],
        metadata: { [TRACE]: { traceId: `trace-of-${ask.result.id}` } },
      });
      expect(ask.result.history.at(-1).extensions).toEqual([TRACE]);
    });

    it('a stream carries the header and artifact events with their extension data', async () => {
      const s = await streamMessage(
        server.url,
        transport,
        { message: userMessage('report') },
        { headers: { [HEADER]: `${TRACE}, urn:unknown` } },
      );
      expect(s.status).toBe(200);
      expect(s.contentType).toMatch(/^text\/event-stream/);
      expect(s.headers.get(HEADER)).toBe(TRACE);
      const items = await s.items;
      expect(items.map((i) => summarize(i.data))).toEqual([
        'task:submitted',
        'status:working',
        'artifact:report:new',
        'artifact:final-answer:new:last',
        'status:completed:final',
      ]);
      const report = items[2]?.data.artifact;
      expect(report).toMatchObject({ extensions: [TRACE], metadata: { [TRACE]: { traceId: expect.stringMatching(/^trace-of-/) } } });
      expect(JSON.parse(report.parts[0].text).extensions).toEqual([TRACE]);
    });

    it('a stream without the header has no extensions header', async () => {
      const s = await streamMessage(server.url, transport, { message: userMessage('report') });
      expect(s.headers.get(HEADER)).toBeNull();
      expect((await s.items).at(-1)?.data.status.state).toBe('completed');
    });

    it('acceptedOutputModes reach the handler, which tests types against them (wildcards included)', async () => {
      const modes = ['text/*', 'image/png; q=0.5'];
      const r = await a2a.send({ message: userMessage('report'), configuration: { acceptedOutputModes: modes } });
      const seen = reportOf(r.result);
      expect(seen.acceptedOutputModes).toEqual(modes);
      expect(seen.accepts).toEqual({ png: true, html: true, json: false });
      expect(seen.frozen).toBe(true);

      const anything = reportOf((await a2a.send({ message: userMessage('report') })).result);
      expect(anything.acceptedOutputModes).toEqual([]);
      expect(anything.accepts).toEqual({ png: true, html: true, json: true });
      const star = reportOf((await a2a.send({ message: userMessage('report'), configuration: { acceptedOutputModes: ['*/*'] } })).result);
      expect(star.accepts).toEqual({ png: true, html: true, json: true });
    });

    it('an agent converts output the client does not accept (ctx.accepts)', async () => {
      const text = await a2a.send({ message: userMessage('chart'), configuration: { acceptedOutputModes: ['text/plain'] } });
      expect(artifact(text.result, 'chart').parts).toEqual([{ kind: 'text', text: 'chart: up and to the right' }]);
      const png = await a2a.send({ message: userMessage('chart'), configuration: { acceptedOutputModes: ['text/plain', 'image/*'] } });
      expect(artifact(png.result, 'chart').parts[0]).toMatchObject({ kind: 'file', file: { mimeType: 'image/png' } });
    });

    it('a part the client did not accept is refused: the task fails with -32005 "incompatible content types" and nothing is emitted', async () => {
      const r = await a2a.send({ message: userMessage('png-anyway'), configuration: { acceptedOutputModes: ['text/plain'] } });
      expect(r.status).toBe(200);
      expect(r.result.status.state).toBe('failed');
      const reason: string = r.result.status.message.parts[0].text;
      expect(reason).toMatch(/incompatible content types/i);
      expect(reason).toContain('image/png');
      expect(reason).toContain('text/plain');
      expect(r.result.artifacts ?? []).toEqual([]);
      // The same agent, the same command, a client that takes PNGs: it completes.
      const ok = await a2a.send({
        message: userMessage('png-anyway'),
        configuration: { acceptedOutputModes: ['image/png', 'text/plain'] },
      });
      expect(ok.result.status.state).toBe('completed');
    });

    it('the refusal is an error the handler can catch (code -32005) and recover from', async () => {
      const r = await a2a.send({ message: userMessage('png-caught'), configuration: { acceptedOutputModes: ['text/plain'] } });
      expect(r.result.status.state).toBe('completed');
      expect(r.result.artifacts).toEqual([{ artifactId: 'chart', parts: [{ kind: 'text', text: 'converted after -32005' }] }]);
    });

    it('a data part counts as application/json; a text part as text/plain', async () => {
      const refused = await a2a.send({ message: userMessage('data'), configuration: { acceptedOutputModes: ['text/plain'] } });
      expect(refused.result.status.state).toBe('failed');
      expect(refused.result.status.message.parts[0].text).toContain('application/json');
      const ok = await a2a.send({ message: userMessage('data'), configuration: { acceptedOutputModes: ['application/json'] } });
      expect(ok.result.status.state).toBe('completed');
      expect(artifact(ok.result, 'final-answer').parts).toEqual([{ kind: 'data', data: { answer: 42 } }]);
      const textRefused = await a2a.send({ message: userMessage('direct'), configuration: { acceptedOutputModes: ['application/json'] } });
      expect(textRefused.result.kind).toBe('task');
      expect(textRefused.result.status.state).toBe('failed');
    });

    it('a streamed turn whose part is refused ends failed with the reason', async () => {
      const s = await streamMessage(server.url, transport, {
        message: userMessage('png-anyway'),
        configuration: { acceptedOutputModes: ['text/plain'] },
      });
      const items = await s.items;
      expect(items.map((i) => summarize(i.data))).toEqual(['task:submitted', 'status:working', 'status:failed+msg:final']);
      expect(items.at(-1)?.data.status.message.parts[0].text).toMatch(/incompatible content types.*image\/png/i);
    });
  });
});

describe.each(FRONT_ENDS)('a required extension on the %s front end', (frontEnd) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ agent: extensionsAgent({ required: true }), frontEnd });
  });
  afterAll(() => server?.stop());

  it('the card marks it required; the card and health need no extension', async () => {
    const res = await fetch(`${server.url}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card: Json = await res.json();
    expect(card.capabilities.extensions.find((e: Json) => e.uri === SIGNED)).toEqual({
      uri: SIGNED,
      description: 'Requests are signed',
      required: true,
    });
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    // The extended card is discovery too: not gated (here: not configured, -32007 / 404).
    const rpcCard = await rpcCall(server.url, 'agent/getAuthenticatedExtendedCard', {});
    expect(rpcCard.error?.code).toBe(-32007);
    expect((await restCall(server.url, 'GET', '/v1/card')).status).toBe(404);
  });

  it('JSON-RPC: a request without it is refused with -32008 naming the URI (HTTP 200), other activated ones echoed', async () => {
    const r = await rpcCall(server.url, 'message/send', { message: userMessage('report') }, { [HEADER]: TRACE });
    expect(r.status).toBe(200);
    expect(r.error?.code).toBe(-32008);
    expect(r.error?.message).toContain(SIGNED);
    expect(r.error?.data).toEqual({ requiredExtensions: [SIGNED] });
    expect(r.headers.get(HEADER)).toBe(TRACE);
    // Every A2A operation, not only sends: a read is refused before the task is even looked up.
    const get = await rpcCall(server.url, 'tasks/get', { id: 'no-such-task' });
    expect(get.error?.code).toBe(-32008);
    // An unknown method is still -32601: the check belongs to operations.
    expect((await rpcCall(server.url, 'no/such', {})).error?.code).toBe(-32601);
  });

  it('REST: a request without it is 400 with code -32008 and ExtensionSupportRequiredError', async () => {
    const r = await restCall(server.url, 'POST', '/v1/message:send', { message: userMessage('report') });
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({ code: -32008, error: 'ExtensionSupportRequiredError', data: { requiredExtensions: [SIGNED] } });
    expect(r.error?.message).toContain(SIGNED);
    const get = await restCall(server.url, 'GET', '/v1/tasks/no-such-task');
    expect(get.status).toBe(400);
    expect(get.error?.code).toBe(-32008);
  });

  it('streams: JSON-RPC answers one SSE error event, REST a 400 JSON error', async () => {
    const rpc = await streamMessage(server.url, 'jsonrpc', { message: userMessage('report') });
    expect(rpc.status).toBe(200);
    expect(rpc.contentType).toMatch(/^text\/event-stream/);
    const items = await rpc.items;
    expect(items.map((i) => summarize(i.data))).toEqual(['error:-32008']);
    expect(items[0]?.data.error.message).toContain(SIGNED);

    const res = await fetch(`${server.url}/v1/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: userMessage('report') }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).code).toBe(-32008);
  });

  describe.each(TRANSPORTS)('over %s, with it activated', (transport) => {
    it('the request is served and the handler sees it among the activated ones', async () => {
      const a2a = client(server.url, transport);
      const r = await a2a.send({ message: userMessage('report') }, { [HEADER]: `${SIGNED}, ${TRACE}` });
      expect(r.status).toBe(200);
      expect(r.headers.get(HEADER)).toBe(`${SIGNED}, ${TRACE}`);
      expect(reportOf(r.result).extensions).toEqual([SIGNED, TRACE]);
      const s = await streamMessage(server.url, transport, { message: userMessage('report') }, { headers: { [HEADER]: SIGNED } });
      expect(s.headers.get(HEADER)).toBe(SIGNED);
      expect((await s.items).at(-1)?.data.status.state).toBe('completed');
    });
  });
});

describe('extension declarations the card could not honour', () => {
  it.each([
    ['a blank URI', [{ uri: '' }], /not a usable extension URI/],
    ['a URI with a comma', [{ uri: 'urn:a,b' }], /not a usable extension URI/],
    ['a URI with spaces around it', [{ uri: ' urn:a ' }], /not a usable extension URI/],
    ['the same URI twice', [{ uri: 'urn:a' }, { uri: 'urn:a', required: true }], /declared twice/],
  ])('%s stops the server from starting', async (_name, extensions, error) => {
    const agent = extensionsAgent();
    await expect(startServer({ agent: { ...agent, capabilities: { ...agent.capabilities, extensions } } })).rejects.toThrow(error);
  });
});
