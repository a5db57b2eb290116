/**
 * The node front end's own HTTP/1.1 reading (src/http/h1/head.ts, chunked.ts, byte-queue.ts): what it accepts,
 * what it refuses, and properties over generated input (nothing throws; a chunked body decodes
 * the same however its bytes are split; the bytes after a body are left for the next request).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteQueue } from '../../src/http/h1/byte-queue.js';
import { ChunkedDecoder } from '../../src/http/h1/chunked.js';
import { isRefusal, MAX_HEADERS, parseHead, type RequestHead } from '../../src/http/h1/head.js';
import { knownName, METHODS, requestLine } from '../../src/http/h1/request-line.js';

const head = (lines: string[]): ReturnType<typeof parseHead> => parseHead(lines.join('\r\n'));
const accepted = (lines: string[]): RequestHead => {
  const parsed = head(lines);
  if (isRefusal(parsed)) throw new Error(`refused: ${parsed.refused}`);
  return parsed;
};

describe('a request head', () => {
  it('reads the request line, lower-cases names, trims optional whitespace and keeps the last of a repeat', () => {
    const h = accepted([
      'POST /v1/message:send?x=1 HTTP/1.1',
      'Host: a',
      'Content-Type:application/json',
      'X-A: 1',
      'x-a: \t2 \t',
      'Content-Length: 12',
    ]);
    expect(h.method).toBe('POST');
    expect(h.target).toBe('/v1/message:send?x=1');
    expect(h.http11).toBe(true);
    expect({ ...h.headers }).toEqual({ host: 'a', 'content-type': 'application/json', 'x-a': '2', 'content-length': '12' });
    // Nothing inherited: Object's methods are not headers.
    expect('toString' in h.headers).toBe(false);
    expect(h.headers.constructor).toBeUndefined();
    expect(h.repeated).toEqual(['x-a']);
    expect(h.contentLength).toBe(12);
    expect(h.chunked).toBe(false);
    expect(h.keepAlive).toBe(true);
    expect(h.expectContinue).toBe(false);
  });

  it('keeps headers named like Object.prototype members as plain headers', () => {
    const h = accepted(['GET / HTTP/1.1', 'Host: a', '__proto__: x', 'Constructor: y', 'toString: z', 'hasOwnProperty: w']);
    expect(Object.keys(h.headers)).toEqual(['host', '__proto__', 'constructor', 'tostring', 'hasownproperty']);
    expect(h.headers.__proto__).toBe('x');
    expect(h.headers.constructor).toBe('y');
    expect(h.repeated).toBeUndefined();
    // The header set's prototype is empty and has none of its own.
    expect(Object.getPrototypeOf(Object.getPrototypeOf(h.headers))).toBe(null);
    expect(Object.getOwnPropertyNames(Object.getPrototypeOf(h.headers))).toEqual([]);
  });

  it('knows chunked bodies, Connection: close, HTTP/1.0 and Expect: 100-continue', () => {
    expect(accepted(['POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: Chunked']).chunked).toBe(true);
    expect(accepted(['GET / HTTP/1.1', 'Host: a', 'Connection: keep-alive, Close']).keepAlive).toBe(false);
    const old = accepted(['GET / HTTP/1.0']);
    expect(old.http11).toBe(false);
    expect(old.keepAlive).toBe(false);
    expect(accepted(['POST / HTTP/1.1', 'Host: a', 'Expect: 100-Continue', 'Content-Length: 1']).expectContinue).toBe(true);
  });

  it.each([
    ['a missing version', ['GET /']],
    ['HTTP/2.0', ['GET / HTTP/2.0', 'Host: a']],
    ['a lower-case version', ['GET / http/1.1', 'Host: a']],
    ['two spaces in the request line', ['GET  / HTTP/1.1', 'Host: a']],
    ['a space in the target', ['GET /a b HTTP/1.1', 'Host: a']],
    ['a method that is not a token', ['G(T / HTTP/1.1', 'Host: a']],
    ['a token that is no method', ['helloGET / HTTP/1.1', 'Host: a']],
    ['a lower-case method', ['get / HTTP/1.1', 'Host: a']],
    ['CONNECT', ['CONNECT a:443 HTTP/1.1', 'Host: a']],
    ['a target that is neither a path, * nor a URL', ['GET x/f HTTP/1.1', 'Host: a']],
    ['no Host on HTTP/1.1', ['GET / HTTP/1.1']],
    ['a space before the colon', ['GET / HTTP/1.1', 'Host : a']],
    ['a folded line', ['GET / HTTP/1.1', 'Host: a', 'X-A: 1', ' 2']],
    ['a line without a colon', ['GET / HTTP/1.1', 'Host: a', 'nonsense']],
    ['an empty name', ['GET / HTTP/1.1', 'Host: a', ': x']],
    ['a bare LF inside the head', ['GET / HTTP/1.1', 'Host: a\nX-Hidden: 1']],
    ['a bare CR inside a value', ['GET / HTTP/1.1', 'Host: a\rb']],
    ['a NUL in a value', ['GET / HTTP/1.1', 'Host: a', 'X-A: \0']],
    ['two Content-Lengths, even equal', ['POST / HTTP/1.1', 'Host: a', 'Content-Length: 1', 'Content-Length: 1']],
    ['a signed Content-Length', ['POST / HTTP/1.1', 'Host: a', 'Content-Length: +1']],
    ['a Content-Length list', ['POST / HTTP/1.1', 'Host: a', 'Content-Length: 1, 1']],
    ['an enormous Content-Length', ['POST / HTTP/1.1', 'Host: a', 'Content-Length: 1234567890123456']],
    ['Content-Length beside Transfer-Encoding', ['POST / HTTP/1.1', 'Host: a', 'Content-Length: 3', 'Transfer-Encoding: chunked']],
    ['a coding other than chunked', ['POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: gzip, chunked']],
    ['a tab around the chunked coding', ['POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: chunked\t']],
    ['a tab around a Content-Length', ['POST / HTTP/1.1', 'Host: a', 'Content-Length:\t5']],
    ['two Transfer-Encoding headers', ['POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: chunked', 'Transfer-Encoding: chunked']],
    ['Transfer-Encoding on HTTP/1.0', ['POST / HTTP/1.0', 'Transfer-Encoding: chunked']],
    ['too many headers', ['GET / HTTP/1.1', 'Host: a', ...Array.from({ length: MAX_HEADERS }, (_, i) => `X-${i}: 1`)]],
  ])('refuses %s', (_why, lines) => {
    expect(isRefusal(head(lines))).toBe(true);
  });

  it('names the method and target of a refused head when its request line was readable', () => {
    const refused = head(['POST /v1/tasks HTTP/1.1', 'Host: a', 'Content-Length: x']);
    expect(refused).toMatchObject({ method: 'POST', target: '/v1/tasks', refused: 'Content-Length is not a number' });
  });

  it('never throws on any bytes, and what it accepts has a token method and a lower-case, CR/LF-free header set', () => {
    const byteText = fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('latin1'));
    const nearValid = fc
      .array(
        fc.constantFrom(
          'GET / HTTP/1.1',
          'Host: a',
          'Content-Length: 5',
          'Transfer-Encoding: chunked',
          ': x',
          ' folded',
          'X: \r',
          'A:b',
          '',
        ),
        {
          maxLength: 8,
        },
      )
      .map((lines) => lines.join('\r\n'));
    fc.assert(
      fc.property(fc.oneof(byteText, nearValid), (text) => {
        const parsed = parseHead(text);
        if (isRefusal(parsed)) return;
        expect(parsed.method).toMatch(/^(GET|HEAD|POST|PUT|DELETE|OPTIONS|TRACE|PATCH)$/);
        for (const [name, value] of Object.entries(parsed.headers)) {
          expect(name).toBe(name.toLowerCase());
          expect(value).not.toMatch(/[\r\n\0]/);
        }
        expect(parsed.chunked && parsed.headers['content-length'] !== undefined).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });
});

/**
 * The request line as one regular expression: what the hand scan in request-line.ts must equal.
 * The target is origin-form (`/…`), `*`, or absolute-form (`scheme://…`).
 */
const REQUEST_LINE =
  /^(GET|POST|HEAD|PUT|DELETE|OPTIONS|TRACE|PATCH) (\/[\x21-\x7e\x80-\xff]*|\*|[A-Za-z][A-Za-z0-9+.-]*:\/\/[\x21-\x7e\x80-\xff]*) HTTP\/1\.([01])$/;

const byRegex = (line: string): ReturnType<typeof requestLine> => {
  const m = REQUEST_LINE.exec(line);
  return m === null ? undefined : { method: m[1] as string, target: m[2] as string, http11: m[3] === '1' };
};

describe('the request line', () => {
  it('reads as the regular expression does, on generated lines and on any bytes', () => {
    const piece = fc.constantFrom(
      ...METHODS,
      'get',
      'CONNECT',
      'GETX',
      ' ',
      '  ',
      '/',
      '*',
      '**',
      'http://',
      'h+t.t-p://a',
      '1http://',
      'http:/',
      'http:',
      'a',
      '?q=1',
      '%20',
      '\x7f',
      '\x80\xff',
      '\t',
      '\r',
      '\n',
      '\0',
      'HTTP/1.1',
      'HTTP/1.0',
      'HTTP/1.2',
      'HTTP/1.',
      'http/1.1',
    );
    const nearValid = fc.array(piece, { maxLength: 7 }).map((pieces) => pieces.join(''));
    const wellFormed = fc
      .tuple(fc.constantFrom(...METHODS), fc.array(piece, { maxLength: 4 }), fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/1.1 '))
      .map(([method, target, version]) => `${method} ${target.join('')} ${version}`);
    const byteText = fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes).toString('latin1'));
    fc.assert(
      fc.property(fc.oneof(nearValid, wellFormed, byteText), (line) => {
        expect(requestLine(line, line.length)).toEqual(byRegex(line));
        // Only the first `end` characters count: what follows is the rest of the head.
        expect(requestLine(`${line}\r\nHost: a b`, line.length)).toEqual(byRegex(line));
      }),
      { numRuns: 20000 },
    );
  });

  it('gives the method as its constant, and reads the common forms', () => {
    expect(requestLine('PATCH /a?b HTTP/1.0', 19)).toEqual({ method: 'PATCH', target: '/a?b', http11: false });
    expect(requestLine('OPTIONS * HTTP/1.1', 18)).toEqual({ method: 'OPTIONS', target: '*', http11: true });
    expect(requestLine('GET http://a/b HTTP/1.1', 23)).toEqual({ method: 'GET', target: 'http://a/b', http11: true });
    expect(requestLine('GET / HTTP/1.1', 14)?.method).toBe('GET');
  });
});

describe('header names', () => {
  it('are the same text whether or not the server reads them', () => {
    for (const name of ['host', 'content-length', 'a2a-version', 'x-unknown', '', 'hostx', 'hos'])
      expect(knownName(String.fromCharCode(...[...name].map((c) => c.charCodeAt(0))))).toBe(name);
  });

  it('are lower-cased only when they hold capitals, and Content-Length is digits alone', () => {
    const parsed = parseHead('POST / HTTP/1.1\r\nHOST: a\r\ncontent-length: 007\r\nX-Mixed-Case: 1');
    if (isRefusal(parsed)) throw new Error(parsed.refused);
    expect(Object.keys(parsed.headers)).toEqual(['host', 'content-length', 'x-mixed-case']);
    expect(parsed.contentLength).toBe(7);
    for (const length of ['', '1a', '\u0661', '0x1', '1e3', '1.0', '-1']) {
      expect(isRefusal(parseHead(`POST / HTTP/1.1\r\nHost: a\r\nContent-Length: ${length}`))).toBe(true);
    }
  });
});

/** Decodes `pieces` in order; what the body held, and what was left after it. */
function decode(pieces: Buffer[]): { body: string; rest: string; done: boolean; refused?: string } {
  const decoder = new ChunkedDecoder();
  const body: Buffer[] = [];
  let rest = '';
  for (const piece of pieces) {
    if (decoder.done || decoder.refused) {
      rest += piece.toString('latin1');
      continue;
    }
    const used = decoder.feed(piece, (data) => body.push(Buffer.from(data)));
    if (decoder.done) rest += piece.subarray(used).toString('latin1');
  }
  return {
    body: Buffer.concat(body).toString('latin1'),
    rest,
    done: decoder.done,
    ...(decoder.refused ? { refused: decoder.refused } : {}),
  };
}

/** Splits `bytes` at the given cut points. */
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    pieces.push(bytes.subarray(from, p));
    from = p;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}

describe('a chunked body', () => {
  it('decodes chunks with extensions and trailers, and leaves the next request after it', () => {
    const wire = Buffer.from('5;name=value\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-Trailer: 1\r\n\r\nGET / HTTP/1.1\r\n', 'latin1');
    expect(decode([wire])).toEqual({ body: 'hello, world!!!', rest: 'GET / HTTP/1.1\r\n', done: true });
  });

  it('decodes the same split at every byte', () => {
    const wire = Buffer.from('3\r\nabc\r\n1;x\r\nd\r\n0\r\nT: v\r\n\r\nNEXT', 'latin1');
    const oneByOne = Array.from({ length: wire.length }, (_, i) => wire.subarray(i, i + 1));
    expect(decode(oneByOne)).toEqual({ body: 'abcd', rest: 'NEXT', done: true });
  });

  it.each([
    ['a size that is not hex', 'zz\r\nabc\r\n0\r\n\r\n'],
    ['a negative size', '-1\r\n'],
    ['a size too large', 'fffffffffffffff\r\n'],
    ['data longer than its size', '2\r\nabc\r\n0\r\n\r\n'],
    ['a size line ended by a bare LF', '3\nabc\r\n0\r\n\r\n'],
    ['data not followed by CRLF', '3\r\nabcXY0\r\n\r\n'],
    ['a bare LF in a trailer', '0\r\nX: 1\n\r\n'],
  ])('refuses %s', (_why, text) => {
    expect(decode([Buffer.from(text, 'latin1')]).refused).toBeDefined();
  });

  it('decodes any body chunked any way and split anywhere, and keeps what follows', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 400 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom('', 'X-T: 1\r\n'),
        (bytes, chunkCuts, wireCuts, trailer) => {
          const body = Buffer.from(bytes);
          const chunks = split(body, chunkCuts).filter((c) => c.length > 0);
          const wire = Buffer.concat([
            ...chunks.flatMap((c) => [Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]),
            Buffer.from(`0\r\n${trailer}\r\nAFTER`),
          ]);
          const out = decode(split(wire, wireCuts));
          expect(out.refused).toBeUndefined();
          expect(out.done).toBe(true);
          expect(out.body).toBe(body.toString('latin1'));
          expect(out.rest).toBe('AFTER');
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('the bytes a connection keeps', () => {
  it('hold what was pushed, in order, through skips, takes and growth', () => {
    const step = fc.oneof(
      fc.uint8Array({ maxLength: 3000 }).map((bytes) => ({ push: Buffer.from(bytes) })),
      fc.nat({ max: 4000 }).map((skip) => ({ skip })),
      fc.constant({ take: true as const }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const queue = new ByteQueue();
        let model = Buffer.alloc(0);
        for (const s of steps) {
          if ('push' in s) {
            queue.push(s.push);
            model = Buffer.concat([model, s.push]);
          } else if ('skip' in s) {
            queue.skip(s.skip);
            model = model.subarray(Math.min(s.skip, model.length));
          } else {
            expect(Buffer.from(queue.take() ?? Buffer.alloc(0))).toEqual(Buffer.from(model));
            model = Buffer.alloc(0);
          }
          expect(queue.length).toBe(model.length);
          expect(Buffer.from(queue.view() ?? Buffer.alloc(0))).toEqual(Buffer.from(model));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never writes into a chunk the socket handed over', () => {
    const chunk = Buffer.from('GET / HT');
    const copy = Buffer.from(chunk);
    const queue = new ByteQueue();
    queue.push(chunk.subarray(0, 4));
    queue.push(Buffer.from('XXXX'));
    expect(chunk).toEqual(copy);
    expect(queue.view()?.toString()).toBe('GET XXXX');
  });
});
