/**
 * The uWebSockets.js front end: the only module that knows uWS. It reads the request (headers
 * synchronously, as uWS requires; the body with a size cap), hands a transport-neutral request
 * to the router and writes the reply: JSON, an empty status, or an SSE stream.
 */
import uws from 'uWebSockets.js';
import type { HttpResponse, HttpRequest, us_listen_socket } from 'uWebSockets.js';
import type { Logger } from '../log.js';
import { errorFields } from '../log.js';
import { a2aError } from '../protocol/errors.js';
import { restError, type Reply } from '../protocol/reply.js';
import type { ProtocolRequest } from '../protocol/router.js';
import { baseUrlOf } from '../protocol/card.js';
import { Heartbeat, SseWriter, type SseLimits } from './sse.js';

/** The official native build exports `getParts`; the pure-Node fallback does not. */
export const uwsIsNative: boolean = typeof (uws as { getParts?: unknown }).getParts === 'function';

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  204: '204 No Content',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  409: '409 Conflict',
  413: '413 Payload Too Large',
  422: '422 Unprocessable Entity',
  500: '500 Internal Server Error',
  501: '501 Not Implemented',
  503: '503 Service Unavailable',
};
const statusLine = (status: number): string => STATUS_TEXT[status] ?? `${status} Status`;

export interface RawRoute {
  /** Serves a request outside the A2A protocol (e.g. the debug page); undefined = not handled. */
  (req: { method: string; path: string; query: string; headers: Readonly<Record<string, string>> }):
    | { status: number; contentType: string; body: string | Buffer; headers?: Record<string, string> }
    | undefined;
}

export interface HttpOptions {
  host: string;
  port: number;
  maxBodyBytes: number;
  route: (req: ProtocolRequest) => Promise<Reply>;
  rawRoutes?: RawRoute[];
  sse: SseLimits & { heartbeatMs: number };
  logger: Logger;
}

export interface HttpServer {
  readonly port: number;
  readonly host: string;
  /** Open SSE streams right now. */
  openStreams(): number;
  close(): void;
}

export function startHttp(opts: HttpOptions): Promise<HttpServer> {
  const app = uws.App();
  const streams = new Set<SseWriter>();
  const heartbeat = new Heartbeat(opts.sse.heartbeatMs);
  const fallbackHost = `${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${opts.port}`;

  const writeReply = (res: HttpResponse, state: { aborted: boolean; onAbort?: () => void }, reply: Reply): void => {
    if (state.aborted) {
      // The client left while the stream was being set up: nothing will read the feed.
      if (reply.kind === 'stream') reply.feed.cancel();
      return;
    }
    if (reply.kind === 'stream' || reply.kind === 'stream-error') {
      const writer = new SseWriter(res, opts.sse, heartbeat, opts.logger, () => streams.delete(writer));
      state.onAbort = () => writer.abort();
      streams.add(writer);
      if (reply.kind === 'stream-error') writer.single(reply.data);
      else writer.run(reply.feed, reply.frame);
      return;
    }
    res.cork(() => {
      res.writeStatus(statusLine(reply.status));
      if (reply.kind === 'empty') {
        res.endWithoutBody(0);
        return;
      }
      res.writeHeader('Content-Type', 'application/json');
      const headers = reply.headers;
      if (headers) for (const name in headers) res.writeHeader(name, headers[name] as string);
      res.end(reply.body);
    });
  };

  const handle = (res: HttpResponse, req: HttpRequest): void => {
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const query = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = v;
    });
    const state: { aborted: boolean; onAbort?: () => void } = { aborted: false };
    res.onAborted(() => {
      state.aborted = true;
      state.onAbort?.();
    });

    for (const raw of opts.rawRoutes ?? []) {
      const out = raw({ method, path, query, headers });
      if (!out) continue;
      res.cork(() => {
        res.writeStatus(statusLine(out.status)).writeHeader('Content-Type', out.contentType);
        for (const [k, v] of Object.entries(out.headers ?? {})) res.writeHeader(k, v);
        res.end(out.body);
      });
      return;
    }

    const dispatch = (body: Buffer): void => {
      const baseUrl = baseUrlOf(headers, fallbackHost);
      opts
        .route({ method, path, query, headers, body, baseUrl })
        .then((reply) => writeReply(res, state, reply))
        .catch((err: unknown) => {
          opts.logger.error('http.unhandled', { method, path, ...errorFields(err) });
          writeReply(res, state, restError(a2aError('internal')));
        });
    };

    const declared = Number(headers['content-length'] ?? '0');
    if (declared > opts.maxBodyBytes) {
      tooLarge(res, state, opts.maxBodyBytes);
      return;
    }
    if (method === 'GET' || method === 'HEAD' || method === 'DELETE' || declared === 0) {
      if (headers['transfer-encoding'] === undefined) {
        dispatch(Buffer.alloc(0));
        return;
      }
    }
    readBody(res, state, opts.maxBodyBytes, dispatch);
  };

  app.any('/*', handle);

  return new Promise((resolve, reject) => {
    app.listen(opts.host, opts.port, (socket: us_listen_socket | false) => {
      if (!socket) {
        reject(new Error(`cannot listen on ${opts.host}:${opts.port} (address in use or not available)`));
        return;
      }
      const port = uws.us_socket_local_port(socket as unknown as uws.us_socket);
      resolve({
        port,
        host: opts.host,
        openStreams: () => streams.size,
        close() {
          uws.us_listen_socket_close(socket);
          for (const writer of [...streams]) writer.close();
        },
      });
    });
  });
}

function tooLarge(res: HttpResponse, state: { aborted: boolean }, max: number): void {
  if (state.aborted) return;
  const reply = restError(a2aError('payloadTooLarge', `the limit is ${max} bytes`));
  if (reply.kind !== 'json') return;
  state.aborted = true;
  res.cork(() => {
    // Close the connection: the rest of the body is not read.
    res.writeStatus(statusLine(413)).writeHeader('Content-Type', 'application/json').end(reply.body, true);
  });
}

/** Collects the body; past `max` bytes the request is answered 413 and the connection closed. */
function readBody(res: HttpResponse, state: { aborted: boolean }, max: number, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  res.onData((chunk, isLast) => {
    if (over) return;
    size += chunk.byteLength;
    if (size > max) {
      over = true;
      tooLarge(res, state, max);
      return;
    }
    // uWS reuses the chunk's memory after this callback: copy it (once; the Buffer is a view of the copy).
    chunks.push(Buffer.from(chunk.slice(0)));
    if (isLast) done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
  });
}
