/**
 * Wire-level rules: the JSON-RPC 2.0 envelope and its validation order, body limits, malformed
 * input, and the proto-JSON shapes REST clients send. Bad input always gets a clear A2A error,
 * never a crash, a hang or a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, restCall, userMessage, type Json } from '../support/a2a.js';
import { startServer, type TestServer } from '../support/server.js';

async function rawRpc(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, body: await res.json() };
}

describe('wire rules', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ maxBodyBytes: 64 * 1024 });
  });
  afterAll(() => server.stop());

  describe('JSON-RPC envelope', () => {
    it.each([
      ['malformed JSON', '{"jsonrpc": "2.0", "method": ', -32700, null],
      ['a JSON array (batch)', '[{"jsonrpc":"2.0","id":1,"method":"tasks/get"}]', -32600, null],
      ['a bare string', '"hello"', -32600, null],
      ['jsonrpc "1.0"', '{"jsonrpc":"1.0","id":7,"method":"tasks/get","params":{"id":"x"}}', -32600, 7],
      ['jsonrpc "aaa"', '{"jsonrpc":"aaa","id":"a","method":"tasks/get"}', -32600, 'a'],
      ['missing method', '{"jsonrpc":"2.0","id":8}', -32600, 8],
      ['an object id', '{"jsonrpc":"2.0","id":{"x":1},"method":"tasks/get"}', -32600, null],
      ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"tasks/get"}', -32600, null],
      ['an unknown method', '{"jsonrpc":"2.0","id":9,"method":"message/ssend","params":{}}', -32601, 9],
      ['an unknown method without id', '{"jsonrpc":"2.0","method":"nonexistent/method"}', -32601, null],
      ['params that are not an object', '{"jsonrpc":"2.0","id":10,"method":"tasks/get","params":[1]}', -32602, 10],
      ['tasks/get without an id', '{"jsonrpc":"2.0","id":11,"method":"tasks/get","params":{}}', -32602, 11],
    ])('%s is answered with %i and HTTP 200', async (_name, body, code, id) => {
      const r = await rawRpc(server.url, body);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
      expect(typeof r.body.error.message).toBe('string');
      expect(r.body.result).toBeUndefined();
    });

    it('the same request id used twice gets two normal answers echoing it', async () => {
      for (let i = 0; i < 2; i++) {
        const r = await rawRpc(
          server.url,
          JSON.stringify({ jsonrpc: '2.0', id: 'same', method: 'message/send', params: { message: userMessage('echo again') } }),
        );
        expect(r.body.id).toBe('same');
        expect(r.body.result.status.state).toBe('completed');
      }
    });

    it('a version mismatch is HTTP 400 with a JSON-RPC error body that echoes the id', async () => {
      const r = await rawRpc(server.url, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: 'x' } }), {
        'A2A-Version': '9.0',
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32009 } });
    });

    it('an unsupported version with a v1.0 method is refused in v1.0 shape (415 included)', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'SendMessage', params: {} });
      const errorInfo = (reason: string) => [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }];
      const refused = await rawRpc(server.url, body, { 'A2A-Version': '0.2' });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ id: 6, error: { code: -32009, data: errorInfo('VERSION_NOT_SUPPORTED') } });
      const badType = await rawRpc(server.url, body, { 'A2A-Version': '0.2', 'content-type': 'text/plain' });
      expect(badType.status).toBe(415);
      expect(badType.body).toMatchObject({ error: { code: -32005, data: errorInfo('CONTENT_TYPE_NOT_SUPPORTED') } });
    });

    it.each(['/.well-known/agent-card.json', '/.well-known/agent.json', '/'])(
      'the discovery card at %s is served whatever A2A-Version asks for',
      async (path) => {
        for (const version of ['1.0', '9.9', 'banana', '0.3']) {
          const r = await restCall(server.url, 'GET', path, undefined, { 'A2A-Version': version });
          expect(r.status, `A2A-Version ${version}`).toBe(200);
          expect(r.result.protocolVersion).toBe('0.3.0');
        }
      },
    );

    it('every endpoint but the discovery card keeps the version check (the extended card and health included)', async () => {
      const headers = { 'A2A-Version': '2.0', authorization: 'Bearer scenario-token' };
      for (const path of ['/v1/card', '/v1/health', '/v1/tasks']) {
        const r = await restCall(server.url, 'GET', path, undefined, headers);
        expect(r.status, path).toBe(400);
        expect(r.error?.code, path).toBe(-32009);
      }
      const rpc = await rawRpc(
        server.url,
        JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'agent/getAuthenticatedExtendedCard' }),
        headers,
      );
      expect(rpc.status).toBe(400);
      expect(rpc.body).toMatchObject({ id: 5, error: { code: -32009 } });
    });

    it('agent/getAuthenticatedExtendedCard accepts empty params', async () => {
      const r = await rawRpc(
        server.url,
        JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'agent/getAuthenticatedExtendedCard', params: {} }),
        {
          authorization: 'Bearer scenario-token',
        },
      );
      expect(r.body.result.name).toBe('Scenario Agent');
    });
  });

  describe('limits and malformed bodies', () => {
    it.each([
      ['REST', '/v1/message:send', (text: string) => ({ message: userMessage(text) })],
      ['JSON-RPC', '/', (text: string) => ({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: userMessage(text) } })],
    ])('a %s body over SERVICE_MAX_BODY_BYTES is 413 with an A2A error, and the server keeps serving', async (_t, path, body) => {
      for (const size of [70 * 1024, 2 * 1024 * 1024]) {
        const res = await fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body('x'.repeat(size))),
        });
        expect(res.status).toBe(413);
        // Each transport's own error shape: a JSON-RPC envelope at `/`.
        const answer = (await res.json()) as { error?: unknown };
        const error = path === '/' ? answer.error : answer;
        expect(error).toMatchObject({ code: -32600, message: expect.stringMatching(/too large/) });
      }
      expect((await restCall(server.url, 'GET', '/v1/health')).status).toBe(200);
    });

    it('a chunked body without Content-Length is capped too', async () => {
      const chunk = new TextEncoder().encode('x'.repeat(1024));
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 100; i++) controller.enqueue(chunk);
          controller.close();
        },
      });
      const res = await fetch(`${server.url}/v1/message:send`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
      expect(res.status).toBe(413);
    });

    it('a body just under the limit is served', async () => {
      const r = await client(server.url, 'rest').send({ message: userMessage(`echo ${'y'.repeat(60 * 1024)}`) });
      expect(r.status).toBe(200);
      expect(r.result.status.state).toBe('completed');
    });

    it.each([
      ['malformed JSON', '{"message":', 400, -32700],
      ['a JSON array', '[1,2]', 400, -32602],
      ['null', 'null', 400, -32602],
      ['message of the wrong type', '{"message":"hi"}', 400, -32602],
    ])('REST message:send with %s is %i / %i', async (_name, body, status, code) => {
      const res = await fetch(`${server.url}/v1/message:send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status).toBe(status);
      const json: Json = await res.json();
      expect(json.code).toBe(code);
      expect(typeof json.message).toBe('string');
    });

    it('bodyless POSTs with a JSON content type work (cancel)', async () => {
      const paused = await client(server.url, 'rest').send({ message: userMessage('ask q') });
      const res = await fetch(`${server.url}/v1/tasks/${paused.result.id}:cancel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Json).status.state).toBe('canceled');
    });

    it('a percent-encoded colon routes like the colon', async () => {
      const paused = await client(server.url, 'rest').send({ message: userMessage('ask q') });
      const res = await fetch(`${server.url}/v1/tasks/${paused.result.id}%3Acancel`, { method: 'POST' });
      expect(res.status).toBe(200);
    });

    it('a wrong method on a known path is an A2A error, not a crash', async () => {
      const r = await restCall(server.url, 'DELETE', '/v1/message:send');
      expect(r.status).toBe(404);
      expect(r.error?.code).toBe(-32601);
    });
  });

  describe('REST proto-JSON tolerance (wire reference §3.2)', () => {
    it('accepts snake_case keys, ROLE_USER, parts under content, and parts without kind', async () => {
      const r = await restCall(server.url, 'POST', '/v1/message:send', {
        message: { message_id: 'proto-1', role: 'ROLE_USER', content: [{ text: 'echo from proto' }] },
        configuration: { blocking: true, history_length: 1 },
      });
      expect(r.status).toBe(200);
      expect(r.result.status.state).toBe('completed');
      expect(r.result.artifacts[0].parts[0].text).toBe('from proto');
      expect(r.result.history).toHaveLength(1);
    });

    it('unwraps a proto DataPart and reads file aliases', async () => {
      const r = await restCall(server.url, 'POST', '/v1/message:send', {
        message: {
          messageId: 'proto-2',
          role: 'user',
          parts: [
            { text: 'echo parts' },
            { data: { data: { a: 1 } } },
            { file: { file_with_uri: 'https://files.example.com/a.txt', mime_type: 'text/plain' } },
          ],
        },
      });
      expect(r.status).toBe(200);
      const parts = r.result.history[0].parts;
      expect(parts[1]).toEqual({ kind: 'data', data: { a: 1 } });
      expect(parts[2]).toEqual({ kind: 'file', file: { uri: 'https://files.example.com/a.txt', mimeType: 'text/plain' } });
    });

    it('reads history_length on tasks/get', async () => {
      const first = await client(server.url, 'rest').send({ message: userMessage('ask q') });
      const r = await restCall(server.url, 'GET', `/v1/tasks/${first.result.id}?history_length=1`);
      expect(r.result.history).toHaveLength(1);
    });

    it('on JSON-RPC a part without kind is invalid params', async () => {
      const r = await rawRpc(
        server.url,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { role: 'user', messageId: 'k', parts: [{ text: 'x' }] } },
        }),
      );
      expect(r.body.error.code).toBe(-32602);
    });
  });

  it('explicit null taskId, contextId and metadata mean absent', async () => {
    const r = await client(server.url, 'jsonrpc').send({
      message: userMessage('echo nulls', { taskId: null, contextId: null, metadata: null }),
    });
    expect(r.result.status.state).toBe('completed');
  });

  it('nothing in this file made the server fail internally', async () => {
    const r = await restCall(server.url, 'GET', '/v1/health');
    expect(r.result).toEqual({ status: 'ok' });
  });
});
