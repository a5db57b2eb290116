/**
 * A key server (JWKS) on 127.0.0.1 for JWT tests: it counts the requests it gets, answers after
 * a delay the test sets, and can be told to fail, to stay silent or to answer a huge body. Keys
 * are generated with jose and the tokens signed here.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';

export type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

/**
 * How the key server answers: the key set, 500, broken JSON, JSON that is no key set, nothing, a
 * body of `hugeBytes` (with or without a Content-Length), or a body trickled a byte every 100 ms.
 */
export type JwksMode = 'ok' | 'error' | 'notJson' | 'notJwks' | 'silent' | 'huge' | 'hugeWithLength' | 'trickle';

export interface JwksServer {
  /** `http://127.0.0.1:<port>/.well-known/jwks.json`. */
  url: string;
  /** The key set served (changed in place by tests). */
  keys: JWK[];
  mode: JwksMode;
  /** How long each answer waits, in ms. */
  delayMs: number;
  /** The size of the body in `huge` mode. */
  hugeBytes: number;
  /** Requests received so far. */
  hits: () => number;
  /** Bytes of `huge` bodies the server managed to write (a client that stops reading caps it). */
  hugeBytesSent: () => number;
  close: () => Promise<void>;
}

/** Starts a key server; `close()` it when done (open connections are dropped). */
export async function startJwksServer(keys: JWK[] = [], mode: JwksMode = 'ok'): Promise<JwksServer> {
  let hits = 0;
  let hugeBytesSent = 0;
  const timers = new Set<NodeJS.Timeout>(); // cleared by close()
  const server = createServer((_req, res) => {
    hits++;
    const answer = () => {
      switch (state.mode) {
        case 'ok':
          return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: state.keys }));
        case 'error':
          return res.writeHead(500, { 'content-type': 'text/plain' }).end('down for maintenance');
        case 'notJson':
          return res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": [');
        case 'notJwks':
          return res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello": "world"}');
        case 'silent':
          return; // never answers
        case 'huge':
        case 'hugeWithLength':
          return sendHuge(res, state.mode === 'hugeWithLength');
        case 'trickle':
          return trickle(res);
      }
    };
    // A valid key set padded with one long string, written in chunks as the client reads them.
    const sendHuge = (res: ServerResponse, withLength: boolean) => {
      res.writeHead(200, { 'content-type': 'application/json', ...(withLength ? { 'content-length': String(state.hugeBytes) } : {}) });
      const head = `{"keys": ${JSON.stringify(state.keys)}, "padding": "`;
      const chunk = 'x'.repeat(64 * 1024);
      let left = Math.max(0, state.hugeBytes - head.length - 2);
      res.write(head);
      const more = () => {
        while (left > 0) {
          const piece = left >= chunk.length ? chunk : chunk.slice(0, left);
          left -= piece.length;
          hugeBytesSent += piece.length;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        res.end('"}');
      };
      res.once('close', () => (left = 0));
      more();
    };
    const trickle = (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"keys": [');
      const timer = setInterval(() => res.write(' '), 100);
      timers.add(timer);
      res.once('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
    };
    if (state.delayMs <= 0) return answer();
    const timer = setTimeout(() => {
      timers.delete(timer);
      answer();
    }, state.delayMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const state: JwksServer = {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    keys,
    mode,
    delayMs: 0,
    hugeBytes: 4 * 1024 * 1024,
    hits: () => hits,
    hugeBytesSent: () => hugeBytesSent,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return state;
}

/** A public JWK for `key`, as an issuer publishes it. */
export const publicJwk = async (key: KeyPair, kid: string, alg: string): Promise<JWK> => ({
  ...(await exportJWK(key.publicKey)),
  kid,
  alg,
  use: 'sig',
});

/** A token signed with `key` under `header`, with the claims given and five minutes to live. */
export function signToken(key: KeyPair, header: { alg: string; kid?: string }, claims: JWTPayload = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iat: now, exp: now + 300, ...claims }).setProtectedHeader(header).sign(key.privateKey);
}
