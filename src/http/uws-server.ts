/**
 * The uWebSockets.js front end: the only module that knows uWS. It reads the request (headers
 * synchronously, as uWS requires; the body with a size cap), hands a transport-neutral request
 * to the router and writes the reply: JSON, an empty status, or an SSE stream.
 */
import uws from 'uWebSockets.js';
import type { HttpResponse, HttpRequest, us_listen_socket } from 'uWebSockets.js';
import type { Logger } from '../log.js';
import { errorFields } from '../log.js';
import { a2aError, type A2AError } from '../protocol/errors.js';
import { restError, type Reply } from '../protocol/reply.js';
import { earlyErrorReply, type ProtocolRequest } from '../protocol/router.js';
import { baseUrlOf } from '../protocol/card.js';
import { Heartbeat, SseWriter, type SseLimits } from './sse.js';

/** The official native build exports `getParts`; the pure-Node fallback does not. */
export const uwsIsNative: boolean = typeof (uws as { getParts?: unknown }).getParts === 'function';

// Native builds add a `uWebSockets: 20` header to every response unless told to be silent:
// it only tells scanners which server (and version) to aim at.
(uws as { _cfg?: (key: string) => void })._cfg?.('silent');

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  204: '204 No Content',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  409: '409 Conflict',
  413: '413 Payload Too Large',
  415: '415 Unsupported Media Type',
  422: '422 Unprocessable Entity',
  500: '500 Internal Server Error',
  501: '501 Not Implemented',
  503: '503 Service Unavailable',
};
const statusLine = (status: number): string => STATUS_TEXT[status] ?? `${status} Status`;
/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT (the typings lack the host + options overload the addon has). */
const LISTEN_EXCLUSIVE_PORT = 1;

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
  /** No new connections; open ones (and their streams) go on. */
  stopListening(): void;
  /** Stops listening and ends every open stream. */
  close(): void;
}

export function startHttp(opts: HttpOptions): Promise<HttpServer> {
  const app = uws.App();
  const streams = new Set<SseWriter>();
  const heartbeat = new Heartbeat(opts.sse.heartbeatMs);
  const fallbackHost = `${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${opts.port}`;

  /** Writes a finished JSON/empty reply; a HEAD request gets the headers only. */
  const writeSimple = (res: HttpResponse, head: boolean, reply: Extract<Reply, { kind: 'json' | 'empty' }>, close = false): void => {
    res.cork(() => {
      res.writeStatus(statusLine(reply.status)).writeHeader('X-Content-Type-Options', 'nosniff');
      if (reply.kind === 'empty') {
        // No Content-Length on a 204 (RFC 9110 §8.6): only the bare call leaves it out.
        if (close) res.endWithoutBody(0, true);
        else res.endWithoutBody();
        return;
      }
      res.writeHeader('Content-Type', 'application/json');
      const headers = reply.headers;
      if (headers) for (const name in headers) res.writeHeader(name, headers[name] as string);
      if (head) endHead(res, Buffer.byteLength(reply.body), close);
      else res.end(reply.body, close);
    });
  };

  const writeReply = (res: HttpResponse, state: RequestState, reply: Reply): void => {
    if (state.aborted) {
      // The client left while the stream was being set up: nothing will read the feed.
      if (reply.kind === 'stream') reply.feed.cancel();
      return;
    }
    if (reply.kind === 'json' || reply.kind === 'empty') {
      writeSimple(res, state.head, reply);
      return;
    }
    if (state.head) {
      // HEAD of a stream: its headers, no stream.
      if (reply.kind === 'stream') reply.feed.cancel();
      res.cork(() => {
        res
          .writeStatus('200 OK')
          .writeHeader('X-Content-Type-Options', 'nosniff')
          .writeHeader('Content-Type', 'text/event-stream')
          .writeHeader('Cache-Control', 'no-cache')
          .endWithoutBody();
      });
      return;
    }
    const writer = new SseWriter(res, opts.sse, heartbeat, opts.logger, () => streams.delete(writer));
    state.onAbort = () => writer.abort();
    if (reply.kind === 'stream-error') writer.single(reply.data);
    else writer.run(reply.feed, reply.frame);
    // Counted as open only once it really streams: a stream that ended (or failed) while it
    // started has already left, and must not be added back.
    if (writer.isOpen) streams.add(writer);
  };

  /** Answers once with an error in the transport's shape, closing the connection if asked. */
  const refuse = (res: HttpResponse, state: RequestState, req: { method: string; path: string }, err: A2AError, close: boolean): void => {
    if (state.aborted) return;
    state.aborted = true;
    const reply = earlyErrorReply(req.method, req.path, err);
    if (reply.kind === 'json' || reply.kind === 'empty') writeSimple(res, state.head, reply, close);
  };

  const handle = (res: HttpResponse, req: HttpRequest): void => {
    const state: RequestState = { aborted: false, head: false };
    res.onAborted(() => {
      state.aborted = true;
      state.onAbort?.();
    });
    let method = req.getCaseSensitiveMethod().toUpperCase();
    // HEAD is GET without the body (RFC 9110 §9.3.2): routed as GET, answered with headers only.
    state.head = method === 'HEAD';
    if (state.head) method = 'GET';
    const path = req.getUrl();
    const query = req.getQuery() ?? '';
    // No prototype: a header named `__proto__` is just a header.
    const headers: Record<string, string> = Object.create(null);
    let contentLengths = 0;
    req.forEach((k, v) => {
      if (k === 'content-length') contentLengths++;
      headers[k] = v;
    });

    for (const raw of opts.rawRoutes ?? []) {
      const out = raw({ method, path, query, headers });
      if (!out) continue;
      res.cork(() => {
        res.writeStatus(statusLine(out.status)).writeHeader('Content-Type', out.contentType).writeHeader('X-Content-Type-Options', 'nosniff');
        for (const [k, v] of Object.entries(out.headers ?? {})) res.writeHeader(k, v);
        if (state.head) endHead(res, Buffer.byteLength(out.body), false);
        else res.end(out.body);
      });
      return;
    }

    const framing = framingError(headers, contentLengths);
    if (framing) {
      // uWS and a proxy might disagree on where this request ends, so whatever follows it on
      // the connection must not run as a request. The answer waits for the next turn of the
      // loop: uWS does not serve a pipelined request while one is unanswered (it drops the
      // connection instead), and the connection is closed after the answer.
      setImmediate(() => refuse(res, state, { method, path }, framing, true));
      return;
    }

    const dispatch = (body: Buffer): void => {
      const baseUrl = baseUrlOf(headers, fallbackHost);
      opts
        .route({ method, path, query, headers, body, baseUrl })
        .then((reply) => writeReply(res, state, reply))
        .catch((err: unknown) => {
          opts.logger.error('http.unhandled', { method, path, ...errorFields(err) });
          // A stream that started has its own way to end; anything else still gets an answer.
          if (state.aborted || state.onAbort) return;
          try {
            writeReply(res, state, earlyErrorReply(method, path, a2aError('internal')));
          } catch (again) {
            opts.logger.error('http.reply_failed', { method, path, ...errorFields(again) });
          }
        });
    };

    const declared = Number(headers['content-length'] ?? '0');
    if (declared > opts.maxBodyBytes) {
      refuse(res, state, { method, path }, tooLarge(opts.maxBodyBytes), true);
      return;
    }
    if (method === 'GET' || method === 'DELETE' || declared === 0) {
      if (headers['transfer-encoding'] === undefined) {
        dispatch(Buffer.alloc(0));
        return;
      }
    }
    readBody(res, opts.maxBodyBytes, dispatch, () => refuse(res, state, { method, path }, tooLarge(opts.maxBodyBytes), true));
  };

  /** A request handler must never throw into uWS: that would take the whole process down. */
  const guarded = (res: HttpResponse, req: HttpRequest): void => {
    try {
      handle(res, req);
    } catch (err) {
      opts.logger.error('http.handler_failed', errorFields(err));
      try {
        res.cork(() => {
          res.writeStatus(statusLine(500)).writeHeader('Content-Type', 'application/json').end(restReplyBody(a2aError('internal')), true);
        });
      } catch {
        // The response was already answered or is gone: nothing more to do for it.
      }
    }
  };

  app.any('/*', guarded);

  return new Promise((resolve, reject) => {
    // Exclusive: without it uWS listens with port reuse, and a second server on a taken port
    // would start "fine" and split the traffic with the first.
    const listen = app.listen as unknown as (host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void) => void;
    listen.call(app, opts.host, opts.port, LISTEN_EXCLUSIVE_PORT, (socket: us_listen_socket | false) => {
      if (!socket) {
        reject(
          new Error(
            `cannot listen on ${opts.host}:${opts.port}: the port is in use by another process or the address is not available here (choose another with --port / SERVICE_PORT)`,
          ),
        );
        return;
      }
      const port = uws.us_socket_local_port(socket as unknown as uws.us_socket);
      let listening = true;
      const stopListening = (): void => {
        if (listening) uws.us_listen_socket_close(socket);
        listening = false;
      };
      resolve({
        port,
        host: opts.host,
        openStreams: () => streams.size,
        stopListening,
        close() {
          stopListening();
          for (const writer of [...streams]) writer.close();
        },
      });
    });
  });
}

/**
 * Ends a HEAD answer: the GET's Content-Length, no body. The header is written by hand:
 * `endWithoutBody(length)` leaves uWS waiting for that many bytes, and it drops the connection
 * at the next request instead of keeping it alive.
 */
function endHead(res: HttpResponse, length: number, close: boolean): void {
  res.writeHeader('Content-Length', String(length));
  if (close) res.endWithoutBody(0, true);
  else res.endWithoutBody();
}

interface RequestState {
  aborted: boolean;
  /** A HEAD request: every answer goes out without its body. */
  head: boolean;
  onAbort?: () => void;
}

const tooLarge = (max: number): A2AError => a2aError('payloadTooLarge', `the limit is ${max} bytes`);

const restReplyBody = (err: A2AError): string => {
  const reply = restError(err);
  return reply.kind === 'json' ? reply.body : '';
};

/**
 * Request framing we refuse rather than guess about (RFC 9112 §6.3): a repeated or malformed
 * Content-Length, or one beside Transfer-Encoding. uWS frames the body by the first
 * Content-Length while a proxy may use another: that is how a request hides inside a body.
 */
function framingError(headers: Readonly<Record<string, string>>, contentLengths: number): A2AError | undefined {
  if (contentLengths > 1) return a2aError('malformedHttp', 'more than one Content-Length header');
  const length = headers['content-length'];
  if (length !== undefined) {
    if (!/^\d{1,15}$/.test(length)) return a2aError('malformedHttp', 'Content-Length is not a number');
    if (headers['transfer-encoding'] !== undefined) return a2aError('malformedHttp', 'Content-Length together with Transfer-Encoding');
  }
  return undefined;
}

/** Collects the body; past `max` bytes `over` answers 413 and nothing more is read. */
function readBody(res: HttpResponse, max: number, done: (body: Buffer) => void, over: () => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  res.onData((chunk, isLast) => {
    if (refused) return;
    size += chunk.byteLength;
    if (size > max) {
      refused = true;
      over();
      return;
    }
    // uWS reuses the chunk's memory after this callback: copy it (once; the Buffer is a view of the copy).
    chunks.push(Buffer.from(chunk.slice(0)));
    if (isLast) done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
  });
}
