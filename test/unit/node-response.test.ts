/**
 * The hand-tuned node:http response (src/http/node-response.ts: one writeHead with a flat header
 * array) against its plain reference (node-response-plain.ts: setHeader per header, node working
 * out the rest), byte for byte on a real socket: every kind of answer the exchange writes must
 * leave the two servers the same, but for the Date header and the order of the headers.
 */
import http, { type IncomingMessage } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeWireRequest } from '../../src/http/node-request.js';
import { NodeWireResponse } from '../../src/http/node-response.js';
import { PlainNodeWireResponse } from '../../src/http/node-response-plain.js';
import type { WireResponse } from '../../src/http/wire.js';
import { rawRequest, rawSequence } from '../support/raw-http.js';

const JSON_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { kind: 'task', text: 'héllo ✓' } });

/** What the exchange writes, one script per path (exchange.ts and sse.ts write these sequences). */
const SCRIPTS: Record<string, (res: WireResponse) => void> = {
  '/json': (res) =>
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('X-Content-Type-Options', 'nosniff').writeHeader('X-A2A-Extensions', 'urn:x');
      res.writeHeader('Content-Type', 'application/json');
      res.end(JSON_BODY);
    }),
  '/json-close': (res) => {
    res
      .writeStatus('413 Payload Too Large')
      .writeHeader('X-Content-Type-Options', 'nosniff')
      .writeHeader('Content-Type', 'application/json');
    res.end(JSON_BODY, true);
  },
  '/buffer': (res) => {
    res.writeStatus('200 OK').writeHeader('Content-Type', 'text/plain');
    res.end(Buffer.from('bytes ✓\n'));
  },
  '/unknown-status': (res) => {
    res.writeStatus('599 Status').writeHeader('Content-Type', 'application/json');
    res.end('{}');
  },
  '/no-body': (res) => {
    res.writeStatus('200 OK');
    res.end();
  },
  '/empty': (res) => {
    res.writeStatus('204 No Content').writeHeader('X-Content-Type-Options', 'nosniff').writeHeader('WWW-Authenticate', 'Bearer');
    res.endWithoutBody();
  },
  '/empty-close': (res) => {
    res.writeStatus('204 No Content').writeHeader('X-Content-Type-Options', 'nosniff');
    res.endWithoutBody(0, true);
  },
  '/head': (res) => {
    res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').writeHeader('Content-Length', '42');
    res.endWithoutBody();
  },
  '/head-close': (res) => {
    res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').writeHeader('Content-Length', '42');
    res.endWithoutBody(0, true);
  },
  '/stream': (res) => {
    res.cork(() => {
      res.writeStatus('200 OK');
      for (const [name, value] of [
        ['Content-Type', 'text/event-stream'],
        ['Cache-Control', 'no-cache'],
        ['Connection', 'keep-alive'],
      ] as const)
        res.writeHeader(name, value);
      res.write(': ping\n\n');
    });
    setImmediate(() =>
      res.cork(() => {
        res.write('id: 1\ndata: {"final":true}\n\n');
        res.end();
      }),
    );
  },
  '/stream-head': (res) => {
    res.writeStatus('200 OK').writeHeader('Content-Type', 'text/event-stream').writeHeader('Cache-Control', 'no-cache');
    res.endWithoutBody();
  },
};

type Wrap = (res: http.ServerResponse) => WireResponse;

async function serve(wrap: Wrap): Promise<{ port: number; server: http.Server }> {
  const server = http.createServer((req: IncomingMessage, res) => SCRIPTS[req.url ?? '']?.(wrap(res)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

/** Two requests on one connection: what came back, until the server closed or a moment passed. */
function exchange(port: number, method: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const got: Buffer[] = [];
    const request = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    socket.on('connect', () => socket.write(request + request));
    socket.on('data', (b) => got.push(b));
    socket.on('error', reject);
    const done = (): void => {
      socket.destroy();
      resolve(Buffer.concat(got).toString('latin1'));
    };
    socket.on('close', done);
    setTimeout(done, 300);
  });
}

/** Each answer's status line, sorted headers without Date, and body as sent (chunk framing kept). */
function normalize(raw: string): string[] {
  const out: string[] = [];
  for (const answer of raw.split(/(?=HTTP\/1\.1 \d{3} )/)) {
    const at = answer.indexOf('\r\n\r\n');
    if (at < 0) {
      out.push(`partial: ${answer}`);
      continue;
    }
    const [status = '', ...headers] = answer.slice(0, at).split('\r\n');
    const kept = headers.map((h) => h.toLowerCase()).filter((h) => !h.startsWith('date:'));
    out.push([status, ...kept.sort(), answer.slice(at + 4)].join('\n'));
  }
  return out;
}

let tuned: { port: number; server: http.Server };
let plain: { port: number; server: http.Server };

beforeAll(async () => {
  tuned = await serve((res) => new NodeWireResponse(res));
  plain = await serve((res) => new PlainNodeWireResponse(res));
});

afterAll(() => {
  for (const s of [tuned, plain]) {
    s.server.closeAllConnections();
    s.server.close();
  }
});

describe('the hand-tuned node:http response', () => {
  for (const path of Object.keys(SCRIPTS)) {
    const method = path.startsWith('/head') || path === '/stream-head' ? 'HEAD' : 'GET';
    it(`answers ${method} ${path} as the plain one does`, async () => {
      const [ours, reference] = await Promise.all([exchange(tuned.port, method, path), exchange(plain.port, method, path)]);
      expect(normalize(reference).length).toBeGreaterThan(0);
      expect(normalize(ours)).toEqual(normalize(reference));
    });
  }
});

describe('a node:http request body', () => {
  it('arrives whole when it comes in pieces, with a Content-Length or chunked', async () => {
    const bodies: string[] = [];
    const server = http.createServer((req, res) => {
      new NodeWireRequest(req, '').readBody(
        1024,
        (body) => {
          bodies.push(body.toString());
          res.end('ok');
        },
        () => res.end('over'),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const send = (head: string, pieces: string[]): Promise<void> =>
      new Promise((resolve, reject) => {
        const trickle = async (): Promise<void> => {
          socket.write(head);
          for (const piece of pieces) {
            await new Promise((r) => setTimeout(r, 20));
            socket.write(piece);
          }
        };
        const socket = net.connect(port, '127.0.0.1', () => void trickle());
        socket.on('data', () => {
          socket.destroy();
          resolve();
        });
        socket.on('error', reject);
      });
    try {
      await send('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n', ['hello', ' wor', 'ld!']);
      await send('POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n', ['5\r\nhello\r\n', '7\r\n world!\r\n', '0\r\n\r\n']);
      await send('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\nat one', []);
      expect(bodies).toEqual(['hello world!', 'hello world!', 'at one']);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('a node:http request head', () => {
  it('keeps headers named like Object.prototype members as plain headers, and the last of a repeat', async () => {
    const seen: NodeWireRequest[] = [];
    const server = http.createServer((req, res) => {
      seen.push(new NodeWireRequest(req, ''));
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      await rawSequence(`http://127.0.0.1:${port}`, [
        rawRequest('GET', '/', [
          ['__proto__', 'a'],
          ['Constructor', 'b'],
          ['toString', 'c'],
          ['X-A', '1'],
          ['x-a', '2'],
        ]),
      ]);
      const headers = seen[0]?.headers ?? {};
      expect(Object.keys(headers)).toEqual(['host', '__proto__', 'constructor', 'tostring', 'x-a']);
      expect(headers.__proto__).toBe('a');
      expect(headers.constructor).toBe('b');
      expect(headers['x-a']).toBe('2');
      expect(seen[0]?.repeatedHeaders).toEqual(['x-a']);
      // Nothing inherited: the header set's prototype is empty and has none of its own.
      expect('hasOwnProperty' in headers).toBe(false);
      expect(Object.getPrototypeOf(Object.getPrototypeOf(headers))).toBe(null);
      expect(Object.getOwnPropertyNames(Object.getPrototypeOf(headers))).toEqual([]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
