/**
 * The requests the in-process micros (request-path.ts, stream-path.ts, feature-cost.ts) hand to
 * the shared exchange, built as uws-server.ts builds them: the front ends' header set and a copied
 * body.
 */
import type { WireRequest } from '../../src/http/exchange.js';
import { HeaderSet } from '../../src/http/header-set.js';

export const BENCH_TEXT = 'hello from the bench';

/** A JSON-RPC `message/send` or `message/stream` of one text part, as the bench's generator sends it. */
export const rpcMessageBody = (method: 'message/send' | 'message/stream', messageId: string): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { message: { kind: 'message', role: 'user', messageId, parts: [{ kind: 'text', text: BENCH_TEXT }] } },
  });

/** A JSON POST of `text` to `path`, with these headers besides host, connection and the content's. */
export function postRequest(path: string, text: string, extra: Readonly<Record<string, string>> = {}): WireRequest {
  const bytes = Buffer.from(text);
  const headers = new HeaderSet();
  headers.host = '127.0.0.1:9999';
  headers.connection = 'keep-alive';
  headers['content-type'] = 'application/json';
  for (const [name, value] of Object.entries(extra)) headers[name] = value;
  headers['content-length'] = String(bytes.length);
  return {
    method: 'POST',
    path,
    query: '',
    headers,
    contentLengths: 1,
    readBody: (_max, done) => done(Buffer.from(bytes)),
    holdBody: () => {},
    remoteAddress: () => '127.0.0.1',
  };
}
