/**
 * The node front end's own HTTP/1.1 (src/http/h1/) over real sockets on 127.0.0.1: what a client
 * sees of its connection handling, beyond the suites every front end runs (vitest.config.ts):
 * pipelining, bodies split anywhere, 100-continue, chunked uploads, HTTP/1.0, the head limit and
 * the timeouts; and node:http's own server still there as `node-http`.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, userMessage } from '../support/a2a.js';
import { parseResponses, rawExchange, rawRequest } from '../support/raw-http.js';
import { startServer, type TestServer } from '../support/server.js';

const sendBody = (text: string): string => JSON.stringify({ message: userMessage(text) });

/**
 * A socket to the server, everything it was sent, whether it has closed, and the last socket error
 * once connected. `allowHalfOpen`: it goes on sending after the server's FIN, as an uploading
 * client does.
 */
function connect(
  url: string,
  allowHalfOpen = false,
): Promise<{ socket: net.Socket; received: () => string; closed: () => boolean; error: () => string | undefined }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let text = '';
    let closed = false;
    let error: string | undefined;
    const socket = net.connect({ port: Number(port), host: hostname, noDelay: true, allowHalfOpen }, () => {
      socket.off('error', reject);
      socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
      resolve({ socket, received: () => text, closed: () => closed, error: () => error });
    });
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.on('close', () => {
      closed = true;
    });
    socket.on('error', reject);
  });
}

const until = async (condition: () => boolean, ms: number): Promise<number> => {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return Date.now() - start;
};

describe('the node front end', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ frontEnd: 'node' });
    expect(server.stats().frontEnd).toBe('node');
  });
  afterAll(() => server.stop());

  it('answers pipelined requests in order, skipping a body no route reads', async () => {
    const body = sendBody('echo pipelined');
    const text =
      rawRequest(
        'POST',
        '/v1/message:send',
        [
          ['Content-Type', 'application/json'],
          ['Content-Length', String(body.length)],
        ],
        body,
      ) +
      rawRequest('GET', '/v1/health', [['Content-Length', '20']], 'GET /hidden HTTP/1.1') +
      rawRequest('GET', '/.well-known/agent-card.json', [['Connection', 'close']]);
    const answer = await rawExchange(server.url, text, 5000);
    expect(answer.closed).toBe(true);
    const [sent, health, card, ...more] = parseResponses(answer.text);
    expect(more).toEqual([]);
    expect(sent?.status).toBe(200);
    expect(JSON.parse(sent?.body ?? '').status.state).toBe('completed');
    expect(JSON.parse(health?.body ?? '')).toEqual({ status: 'ok' });
    expect(card?.status).toBe(200);
    expect(card?.headers.connection).toBe('close');
    expect(JSON.parse(card?.body ?? '').name).toBeDefined();
  });

  it('reads a request sent a byte at a time', async () => {
    const body = sendBody('echo slowly');
    const text = rawRequest(
      'POST',
      '/v1/message:send',
      [
        ['Content-Type', 'application/json'],
        ['Content-Length', String(body.length)],
      ],
      body,
    );
    const c = await connect(server.url);
    for (const byte of Buffer.from(text)) {
      c.socket.write(Buffer.of(byte));
      await new Promise((r) => setImmediate(r));
    }
    await until(() => c.received().includes('"completed"'), 5000);
    expect(JSON.parse(parseResponses(c.received())[0]?.body ?? '').artifacts[0].parts[0].text).toBe('slowly');
    c.socket.destroy();
  });

  it('sends 100 Continue before it reads a body the client holds back, then answers', async () => {
    const body = sendBody('echo after continue');
    const c = await connect(server.url);
    c.socket.write(
      rawRequest('POST', '/v1/message:send', [
        ['Content-Type', 'application/json'],
        ['Content-Length', String(body.length)],
        ['Expect', '100-continue'],
      ]),
    );
    await until(() => c.received().startsWith('HTTP/1.1 100 Continue\r\n\r\n'), 5000);
    expect(c.received()).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    c.socket.write(body);
    await until(() => c.received().includes('"completed"'), 5000);
    const [answer] = parseResponses(c.received().slice('HTTP/1.1 100 Continue\r\n\r\n'.length));
    expect(answer?.status).toBe(200);
    c.socket.destroy();
  });

  it('closes the connection after answering a request whose 100-continue body it never asked for', async () => {
    const answer = await rawExchange(
      server.url,
      rawRequest('GET', '/v1/health', [
        ['Content-Length', '5'],
        ['Expect', '100-continue'],
      ]),
      5000,
    );
    expect(answer.closed).toBe(true);
    expect(answer.text).not.toContain('100 Continue');
    const [health] = parseResponses(answer.text);
    expect(health?.headers.connection).toBe('close');
    expect(JSON.parse(health?.body ?? '')).toEqual({ status: 'ok' });
  });

  it('reads a chunked body with chunk extensions and trailers', async () => {
    const body = sendBody('echo chunked');
    const chunks = `10;ext=1\r\n${body.slice(0, 16)}\r\n${(body.length - 16).toString(16)}\r\n${body.slice(16)}\r\n0\r\nX-Trailer: 1\r\n\r\n`;
    const text = rawRequest(
      'POST',
      '/v1/message:send',
      [
        ['Content-Type', 'application/json'],
        ['Transfer-Encoding', 'chunked'],
        ['Connection', 'close'],
      ],
      chunks,
    );
    const answer = await rawExchange(server.url, text, 5000);
    const [sent] = parseResponses(answer.text);
    expect(sent?.status).toBe(200);
    expect(JSON.parse(sent?.body ?? '').artifacts[0].parts[0].text).toBe('chunked');
  });

  it('answers an HTTP/1.0 request and closes the connection', async () => {
    const answer = await rawExchange(server.url, 'GET /v1/health HTTP/1.0\r\n\r\n', 5000);
    expect(answer.closed).toBe(true);
    const [health] = parseResponses(answer.text);
    expect(health?.headers.connection).toBe('close');
    expect(JSON.parse(health?.body ?? '')).toEqual({ status: 'ok' });
  });

  it('refuses a head over 64 KiB with 400 and closes the connection', async () => {
    const answer = await rawExchange(server.url, rawRequest('GET', '/v1/health', [['X-Big', 'x'.repeat(70_000)]]), 5000);
    expect(answer.closed).toBe(true);
    expect(parseResponses(answer.text)[0]?.status).toBe(400);
    // The server is unharmed.
    expect((await client(server.url, 'rest').send({ message: userMessage('echo after') })).result.status.state).toBe('completed');
  });

  it('drops a head that does not finish in 10 s, and a keep-alive connection idle that long', async () => {
    const slow = await connect(server.url);
    slow.socket.write('GET /v1/health HTT');
    const idle = await connect(server.url);
    idle.socket.write(rawRequest('GET', '/v1/health'));
    await until(() => idle.received().includes('"ok"'), 5000);
    const [slowMs, idleMs] = await Promise.all([until(slow.closed, 13_000), until(idle.closed, 13_000)]);
    expect(slowMs).toBeGreaterThan(8_500);
    expect(idleMs).toBeGreaterThan(8_500);
  }, 20_000);

  /** Sends a head declaring a body over the limit, then `total` bytes of it, 64 KiB every 5 ms. */
  async function refusedUpload(total: number): Promise<{ answer: string; error: string | undefined; closedAfterMs: number }> {
    const c = await connect(server.url, true);
    c.socket.write(rawRequest('POST', '/v1/message:send', [['Content-Length', String(20 * 1024 * 1024)]]));
    await until(() => c.received().includes('\r\n\r\n'), 5000);
    const started = Date.now();
    const piece = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = setInterval(() => {
      if (sent >= total || !c.socket.writable) return;
      c.socket.write(piece);
      sent += piece.length;
    }, 5);
    try {
      // Sent in full, the client ends its side; or the server closed first.
      await until(() => c.closed() || (sent >= total && c.socket.writableLength === 0), 8000);
      if (!c.closed()) c.socket.end();
      await until(c.closed, 5000);
    } finally {
      clearInterval(pump);
      c.socket.destroy();
    }
    return { answer: c.received(), error: c.error(), closedAfterMs: Date.now() - started };
  }

  it('reads a refused body to its end while under 1 MiB, and drops one still coming past it at once', async () => {
    // Under the budget: read and dropped; the client reads its 413 and a plain end, no reset.
    const small = await refusedUpload(512 * 1024);
    expect(small.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(small.error).toBeUndefined();
    // Past it: cut then, not read on at the client's pace until the linger's end (1 s or more).
    const large = await refusedUpload(20 * 1024 * 1024);
    expect(large.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(parseResponses(large.answer)[0]?.headers.connection).toBe('close');
    expect(large.closedAfterMs).toBeLessThan(700);
  });

  it('drops a body slower than 16 KiB/s once its 10 s are up', async () => {
    const c = await connect(server.url);
    c.socket.write(
      rawRequest(
        'POST',
        '/v1/message:send',
        [
          ['Content-Type', 'application/json'],
          ['Content-Length', '1000000'],
        ],
        '{"message":',
      ),
    );
    const started = Date.now();
    const trickle = setInterval(() => c.socket.writable && c.socket.write(' '), 500);
    try {
      await until(c.closed, 14_000);
    } finally {
      clearInterval(trickle);
    }
    expect(Date.now() - started).toBeGreaterThan(9_000);
  }, 20_000);
});

describe('node:http as a front end (`node-http`)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ frontEnd: 'node-http' });
  });
  afterAll(() => server.stop());

  it('still serves, and says which front end it is', async () => {
    expect(server.stats().frontEnd).toBe('node-http');
    expect((await client(server.url, 'jsonrpc').send({ message: userMessage('echo on node:http') })).result.status.state).toBe('completed');
  });
});
