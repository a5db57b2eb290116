/**
 * One request and its answer, the same on every front end: framing checks, HEAD, the body cap,
 * raw routes, the router call and the reply (JSON, empty, or an SSE stream). A front end (uWS,
 * node:http) only adapts its request and response to the two small interfaces below; the
 * response interface is uWS's own shape, which node:http is fitted to (node-server.ts).
 */
import { errorFields, type Logger } from '../log.js';
import { a2aError, type A2AError } from '../a2a/errors.js';
import { restError, type Reply } from '../protocol/reply.js';
import { earlyErrorReply, type HeadVerdict, type ProtocolRequest, type RequestHead } from '../protocol/router.js';
import { baseUrlOf } from '../protocol/card.js';
import type { BodyBudgetLimits, BodyBudgetStats } from './body-budget.js';
import { createBodyIntake, tooLarge } from './body-intake.js';
import { SseWriter, type SseLimits, type SseShared } from './sse.js';
import { SseCork } from './sse-cork.js';
import { Heartbeat } from './sse-heartbeat.js';
import type { WireRequest, WireResponse } from './wire.js';
import type { HostGuard } from './host-check.js';
import { NO_METRICS, type Metrics } from '../observe/metrics.js';

export type { WireRequest, WireResponse };

export interface RawAnswer {
  status: number;
  contentType: string;
  body: string | Buffer;
  headers?: Record<string, string>;
}

export interface RawRoute {
  /**
   * Serves a request outside the A2A protocol (the debug page, /metrics); undefined = not
   * handled. Whether it is handled is decided at once; the answer may come later (a promise).
   */
  (req: {
    method: string;
    path: string;
    query: string;
    headers: Readonly<Record<string, string>>;
  }): RawAnswer | Promise<RawAnswer> | undefined;
}

export interface ExchangeOptions {
  maxBodyBytes: number;
  /** How much large-body reading and parsing runs at once (body-budget.ts); absent: no limit. */
  bodyBudget?: BodyBudgetLimits;
  route: (req: ProtocolRequest) => Promise<Reply>;
  /**
   * Asked before a body is read: a refusal is answered with the body unread (and the connection
   * closed), a caller is handed on with the request. Absent or undefined: the body is read.
   */
  admitHead?: (head: RequestHead) => HeadVerdict | Promise<HeadVerdict> | undefined;
  rawRoutes?: RawRoute[];
  sse: SseLimits & { heartbeatMs: number };
  logger: Logger;
  /** Every host allowed and every peer's forwarded headers believed when absent (host-check.ts). */
  hostGuard?: HostGuard | undefined;
  /** Where SSE events and cut streams are counted (default: nowhere). */
  metrics?: Metrics;
  /**
   * The front end writes `writeStatus`'s text verbatim as the status line (native uWS does;
   * node:http parses it): a stream's fixed headers are then written with the status, in one call.
   */
  verbatimStatus?: boolean;
}

export interface HttpOptions extends ExchangeOptions {
  host: string;
  port: number;
}

/** Which front end serves: native uWebSockets.js, ours on node:net, node:http, or none (mounted only). */
export type FrontEndKind = 'uws' | 'node' | 'node-http' | 'none';

/** A listening front end. */
export interface HttpServer {
  readonly port: number;
  readonly host: string;
  /** `uws` (uWebSockets.js, native), `node` (HTTP/1.1 on node:net), `node-http` (node:http), or `none` (mounted in a host app only). */
  readonly frontEnd: FrontEndKind;
  /** Open SSE streams right now. */
  openStreams(): number;
  /** Large bodies waiting for the body budget, and their bytes in flight, right now. */
  bodyBudget(): BodyBudgetStats;
  /** No new connections; open ones (and their streams) go on. */
  stopListening(): void;
  /** Stops listening and ends every open stream. */
  close(): void;
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  204: '204 No Content',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  409: '409 Conflict',
  413: '413 Payload Too Large',
  415: '415 Unsupported Media Type',
  422: '422 Unprocessable Entity',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  501: '501 Not Implemented',
  503: '503 Service Unavailable',
};
/** `host:port` as a URL writes it (an IPv6 host in brackets). */
export const hostPort = (host: string, port: number): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;

export const statusLine = (status: number): string => STATUS_TEXT[status] ?? `${status} Status`;

/**
 * The whole answer to a request whose head could not be read (node's own sockets, before any
 * handler runs): the error in the shape of the route it named, and the connection closed.
 */
export function malformedAnswer(method: string, path: string, why: string): string {
  const reply = earlyErrorReply(method, path, a2aError('malformedHttp', why));
  const body = reply.kind === 'json' ? reply.body : '';
  return (
    `HTTP/1.1 ${statusLine(reply.kind === 'json' ? reply.status : 400)}\r\nContent-Type: application/json\r\n` +
    `X-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

export const listenError = (host: string, port: number): Error =>
  new Error(
    `cannot listen on ${host}:${port}: the port is in use by another process or the address is not available here (choose another with --port / SERVICE_PORT)`,
  );

interface RequestState {
  aborted: boolean;
  /** A HEAD request: every answer goes out without its body. */
  head: boolean;
  onAbort?: () => void;
  /** Gives back the body's place in the body budget, if it holds or waits for one (body-intake.ts). */
  leaveBudget?: () => void;
}

/**
 * A request body gathered chunk by chunk, for both front ends: past `max` bytes `over` is
 * called once and the rest is ignored; otherwise `done` gets the whole body at the end.
 */
export function bodyCollector(max: number, done: (body: Buffer) => void, over: () => void): { add(chunk: Buffer): void; end(): void } {
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  return {
    add(chunk) {
      if (refused) return;
      size += chunk.byteLength;
      if (size > max) {
        refused = true;
        over();
        return;
      }
      chunks.push(chunk);
    },
    end() {
      if (!refused) done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    },
  };
}

const EMPTY_BODY = Buffer.alloc(0);

/**
 * Request framing we refuse rather than guess about (RFC 9112 §6.3): a repeated or malformed
 * Content-Length, or one beside Transfer-Encoding. A parser may frame the body by the first
 * Content-Length while a proxy uses another: that is how a request hides inside a body.
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

/**
 * Ends a HEAD answer: the GET's Content-Length, no body. The header is written by hand:
 * uWS's `endWithoutBody(length)` waits for that many bytes, and drops the connection at the
 * next request instead of keeping it alive.
 */
function endHead(res: WireResponse, length: number, close: boolean): void {
  res.writeHeader('Content-Length', String(length));
  if (close) res.endWithoutBody(0, true);
  else res.endWithoutBody();
}

/** A reply's own headers (WWW-Authenticate, X-A2A-Extensions), on any kind of answer. */
function writeReplyHeaders(res: WireResponse, headers: Readonly<Record<string, string>> | undefined): void {
  if (headers) for (const name in headers) res.writeHeader(name, headers[name] as string);
}

/**
 * A request as the router gets it. Its base URL is worked out only when read: only the cards
 * need it, and `baseUrlOf` (header splits and a regular expression) is not free, so the other
 * requests must not pay for it.
 */
class RoutedRequest implements ProtocolRequest {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly query: string,
    readonly headers: Readonly<Record<string, string>>,
    readonly body: Buffer,
    private readonly fallbackHost: string,
    private readonly mountPath: string | undefined,
    readonly repeatedHeaders: readonly string[] | undefined,
    readonly verdict: HeadVerdict | undefined,
  ) {}

  get baseUrl(): string {
    return baseUrlOf(this.headers, this.fallbackHost) + (this.mountPath ?? '');
  }
}

/** The request handling both front ends share; `streams` are the open SSE answers. */
export function createExchange(opts: ExchangeOptions, fallbackHost: string) {
  const streams = new Set<SseWriter>();
  const intake = createBodyIntake(opts);
  const sse: SseShared = {
    limits: opts.sse,
    heartbeat: new Heartbeat(opts.sse.heartbeatMs),
    cork: new SseCork(),
    logger: opts.logger,
    metrics: opts.metrics ?? NO_METRICS,
    headInStatus: opts.verbatimStatus ?? false,
  };

  /** Writes a finished JSON/empty reply; a HEAD request gets the headers only. */
  const writeSimple = (res: WireResponse, head: boolean, reply: Extract<Reply, { kind: 'json' | 'empty' }>, close = false): void => {
    res.cork(() => {
      res.writeStatus(statusLine(reply.status)).writeHeader('X-Content-Type-Options', 'nosniff');
      writeReplyHeaders(res, reply.headers);
      if (reply.kind === 'empty') {
        // No Content-Length on a 204 (RFC 9110 §8.6): only the bare call leaves it out.
        if (close) res.endWithoutBody(0, true);
        else res.endWithoutBody();
        return;
      }
      res.writeHeader('Content-Type', reply.contentType ?? 'application/json');
      if (head) endHead(res, Buffer.byteLength(reply.body), close);
      else res.end(reply.body, close);
    });
  };

  /** `close`: the connection is closed after the answer (its request's body was left unread). */
  const writeReply = (res: WireResponse, state: RequestState, reply: Reply, close = false): void => {
    if (state.aborted) {
      // The client left while the stream was being set up: nothing will read the feed.
      if (reply.kind === 'stream') reply.feed.cancel();
      return;
    }
    if (reply.kind === 'json' || reply.kind === 'empty') {
      writeSimple(res, state.head, reply, close);
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
          .writeHeader('Cache-Control', 'no-cache');
        writeReplyHeaders(res, reply.headers);
        res.endWithoutBody();
      });
      return;
    }
    const writer = new SseWriter(res, sse, () => streams.delete(writer));
    state.onAbort = () => writer.clientGone();
    if (reply.kind === 'stream-error') writer.single(reply.data, reply.headers);
    else writer.run(reply.feed, reply.frame, reply.headers);
    // Counted as open only once it really streams: a stream that ended (or failed) while it
    // started has already left, and must not be added back.
    if (writer.isOpen) streams.add(writer);
  };

  const writeRaw = (res: WireResponse, state: RequestState, out: RawAnswer): void => {
    if (state.aborted) return;
    res.cork(() => {
      res.writeStatus(statusLine(out.status)).writeHeader('Content-Type', out.contentType).writeHeader('X-Content-Type-Options', 'nosniff');
      for (const [k, v] of Object.entries(out.headers ?? {})) res.writeHeader(k, v);
      if (state.head) endHead(res, Buffer.byteLength(out.body), false);
      else res.end(out.body);
    });
  };

  /** Answers once with an error in the transport's shape, closing the connection if asked. */
  const refuse = (res: WireResponse, state: RequestState, req: { method: string; path: string }, err: A2AError, close: boolean): void => {
    if (state.aborted) return;
    state.aborted = true;
    const reply = earlyErrorReply(req.method, req.path, err);
    if (reply.kind === 'json' || reply.kind === 'empty') writeSimple(res, state.head, reply, close);
  };

  const handle = (req: WireRequest, res: WireResponse): void => {
    const state: RequestState = { aborted: false, head: false };
    res.onAborted(() => {
      state.aborted = true;
      state.leaveBudget?.();
      state.onAbort?.();
    });
    // HEAD is GET without the body (RFC 9110 §9.3.2): routed as GET, answered with headers only.
    state.head = req.method === 'HEAD';
    const method = state.head ? 'GET' : req.method;
    const { path, query, headers } = req;

    // Before any route (the debug page and /metrics too), and without reading a body. Answered
    // on the next turn and closed, as a framing refusal is (below), so nothing pipelined runs.
    const hostRefused = opts.hostGuard?.(req);
    if (hostRefused) {
      setImmediate(() => refuse(res, state, { method, path }, hostRefused, true));
      return;
    }

    for (const raw of opts.rawRoutes ?? []) {
      const out = raw({ method, path, query, headers });
      if (!out) continue;
      if (out instanceof Promise) {
        void out
          .catch((err: unknown): RawAnswer => {
            opts.logger.error('http.raw_route_failed', { method, path, ...errorFields(err) });
            return { status: 500, contentType: 'text/plain', body: 'internal error\n' };
          })
          .then((answer) => writeRaw(res, state, answer));
      } else writeRaw(res, state, out);
      return;
    }

    const framing = framingError(headers, req.contentLengths);
    if (framing) {
      // Whatever follows this request on the connection must not run as a request. The answer
      // waits for the next turn of the loop: uWS does not serve a pipelined request while one
      // is unanswered (it drops the connection instead), and the connection is closed after it.
      setImmediate(() => refuse(res, state, { method, path }, framing, true));
      return;
    }

    const failed = (err: unknown): void => {
      opts.logger.error('http.unhandled', { method, path, ...errorFields(err) });
      // A stream that started has its own way to end; anything else still gets an answer.
      if (state.aborted || state.onAbort) return;
      try {
        writeReply(res, state, earlyErrorReply(method, path, a2aError('internal')));
      } catch (again) {
        opts.logger.error('http.reply_failed', { method, path, ...errorFields(again) });
      }
    };
    // One `then` with both handlers (a failed write caught here): `then(...).catch(...)` cost
    // every request a second promise and a microtask hop.
    const dispatch = (body: Buffer, verdict?: HeadVerdict, close?: boolean): void => {
      const routed = new RoutedRequest(method, path, query, headers, body, fallbackHost, req.mountPath, req.repeatedHeaders, verdict);
      opts.route(routed).then((reply) => {
        try {
          writeReply(res, state, reply, close);
        } catch (err) {
          failed(err);
        }
      }, failed);
    };

    const declared = Number(headers['content-length'] ?? '0');
    if (declared > opts.maxBodyBytes) {
      refuse(res, state, { method, path }, tooLarge(opts.maxBodyBytes), true);
      return;
    }
    if ((method === 'GET' || method === 'DELETE' || declared === 0) && headers['transfer-encoding'] === undefined) {
      dispatch(EMPTY_BODY);
      return;
    }
    state.leaveBudget = intake.take({
      wire: req,
      head: { method, path, headers, repeatedHeaders: req.repeatedHeaders },
      settled: () => state.aborted,
      dispatch,
      refuse: (err) => refuse(res, state, { method, path }, err, true),
      failed,
    });
  };

  /** A request handler must never throw into the front end: that could end the process. */
  const guarded = (req: WireRequest, res: WireResponse): void => {
    try {
      handle(req, res);
    } catch (err) {
      opts.logger.error('http.handler_failed', errorFields(err));
      try {
        const reply = restError(a2aError('internal'));
        res.cork(() => {
          res
            .writeStatus(statusLine(500))
            .writeHeader('Content-Type', 'application/json')
            .end(reply.kind === 'json' ? reply.body : '', true);
        });
      } catch {
        // The response was already answered or is gone: nothing more to do for it.
      }
    }
  };

  return {
    handle: guarded,
    openStreams: (): number => streams.size,
    /** What the body budget holds now (body-budget.ts). */
    bodyBudget: intake.stats,
    /** Ends every open stream (the server is closing). */
    closeStreams(): void {
      for (const writer of [...streams]) writer.shutdown();
    },
  };
}
