/**
 * The node:http front end: what serves when no native uWS build fits this Node or platform
 * (or when SERVICE_FRONT_END=node). Each node request and response is fitted to the shapes the
 * shared exchange uses (exchange.ts), so both front ends answer the same way: body cap, HEAD,
 * framing checks, SSE with backpressure and heartbeats, the same error bodies.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { a2aError } from '../a2a/errors.js';
import { earlyErrorReply } from '../protocol/router.js';
import {
  bodyCollector,
  createExchange,
  hostPort,
  listenError,
  statusLine,
  type HttpOptions,
  type HttpServer,
  type WireRequest,
  type WireResponse,
} from './exchange.js';
import { withReadBody } from './parsed-body.js';

/** Request headers in all, bytes. */
const MAX_HEADER_BYTES = 64 * 1024;

/** A node:http response with uWS's calling convention (status line, chained headers, write → boolean). */
class NodeWireResponse implements WireResponse {
  private abortHandlers: (() => void)[] = [];
  private writableHandler: ((offset: number) => boolean) | undefined;
  private closeAfter = false;

  constructor(private readonly res: ServerResponse) {
    // 'close' without a finished answer: the client went away (or the socket broke).
    res.once('close', () => {
      if (res.writableFinished) return;
      for (const handler of this.abortHandlers) handler();
    });
    res.on('drain', () => this.writableHandler?.(0));
  }

  cork(fn: () => void): void {
    fn();
  }

  writeStatus(line: string): this {
    this.res.statusCode = Number.parseInt(line, 10);
    this.res.statusMessage = line.slice(line.indexOf(' ') + 1);
    return this;
  }

  writeHeader(name: string, value: string): this {
    if (!this.res.headersSent) this.res.setHeader(name, value);
    return this;
  }

  write(chunk: string): boolean {
    return this.res.write(chunk);
  }

  end(body?: string | Buffer, closeConnection = false): void {
    this.prepareClose(closeConnection);
    this.res.end(body);
  }

  endWithoutBody(reportedContentLength?: number, closeConnection = false): void {
    this.prepareClose(closeConnection);
    if (reportedContentLength !== undefined && !this.res.headersSent) this.res.setHeader('Content-Length', String(reportedContentLength));
    this.res.end();
  }

  onWritable(handler: (offset: number) => boolean): void {
    this.writableHandler = handler;
  }

  onAborted(handler: () => void): void {
    this.abortHandlers.push(handler);
  }

  close(): void {
    this.res.destroy();
  }

  /** Closing after the answer: say so, and drop the socket once it is out (no more is read). */
  private prepareClose(close: boolean): void {
    if (!close || this.closeAfter) return;
    this.closeAfter = true;
    if (!this.res.headersSent) this.res.setHeader('Connection', 'close');
    this.res.once('finish', () => this.res.socket?.destroy());
  }
}

/** The node request as the exchange reads it; `mountPath`: where a host app mounted us. */
function wireRequest(req: IncomingMessage, mountPath = ''): WireRequest {
  const headers: Record<string, string> = Object.create(null);
  let contentLengths = 0;
  let repeatedHeaders: string[] | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (name === 'content-length') contentLengths++;
    // Repeated headers read as the last one, as uWS's do; their names are kept so that the
    // ones that must not repeat (Content-Length, credentials) can be refused.
    if (headers[name] !== undefined) (repeatedHeaders ??= []).push(name);
    headers[name] = raw[i + 1] as string;
  }
  let url = req.url ?? '/';
  // A host app that does not strip its mount path (a bare node:http server) leaves it on.
  if (mountPath && (url === mountPath || url.startsWith(`${mountPath}/`) || url.startsWith(`${mountPath}?`))) {
    url = url.slice(mountPath.length) || '/';
    if (url.startsWith('?')) url = `/${url}`;
  }
  const q = url.indexOf('?');
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    path: q < 0 ? url : url.slice(0, q),
    query: q < 0 ? '' : url.slice(q + 1),
    headers,
    contentLengths,
    repeatedHeaders,
    ...(mountPath ? { mountPath } : {}),
    remoteAddress: () => req.socket.remoteAddress ?? '',
    localAddress: () => req.socket.localAddress ?? '',
    readBody(max, done, over) {
      const body = bodyCollector(max, done, over);
      req.on('data', (chunk: Buffer) => body.add(chunk));
      req.on('end', () => body.end());
    },
    // A request stream reads nothing until a 'data' listener asks: once its small buffer is
    // full, the socket is not read (TCP pushes back on the client).
    holdBody() {},
  };
}

/**
 * uWS's HTTP timeouts, which node:http is held to: a connection gets its headers in within 10 s
 * and may idle 10 s between requests, and a body must keep coming at 16 KiB/s. Node's own
 * defaults (60 s for headers, checked every 30 s) let a client that never finishes its headers
 * hold a socket for over a minute.
 */
const HEADERS_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_TIMEOUT_MS = 10_000;
const MIN_BODY_BYTES_PER_SECOND = 16 * 1024;
/** How often node looks for connections past those timeouts (its default, 30 s, would add up to that). */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * The whole request: its headers, then the largest body at uWS's slowest accepted pace. Node
 * knows no pace, only a total, so a body arriving slower than that is cut only at this total.
 */
const requestTimeoutMs = (maxBodyBytes: number): number =>
  HEADERS_TIMEOUT_MS + Math.ceil((maxBodyBytes / MIN_BODY_BYTES_PER_SECOND) * 1000);

/** How long a refused client has to read its 400 before the socket is dropped. */
const CLIENT_ERROR_LINGER_MS = 1000;

/** How long open connections may finish their answer once the server closes. */
const CLOSE_CONNECTIONS_AFTER_MS = 1000;

/** A request handler for node:http servers: `(req, res) => void`. */
export type NodeRequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The exchange as a node:http request handler (for our own listener, or to mount in an app).
 * Mounted, the mount path comes from `mountPath`, or from Express's `req.baseUrl` (Express
 * strips it from `req.url` itself); the card's URLs then include it.
 */
export function nodeHandler(opts: Omit<HttpOptions, 'host' | 'port'>, fallbackHost: string, mount: { mountPath?: string } = {}) {
  const exchange = createExchange(opts, fallbackHost);
  const fixed = mount.mountPath?.replace(/\/+$/, '');
  const handler: NodeRequestHandler = (req, res) => {
    const expressBase = (req as IncomingMessage & { baseUrl?: unknown }).baseUrl;
    const mountPath = fixed ?? (typeof expressBase === 'string' ? expressBase.replace(/\/+$/, '') : '');
    exchange.handle(withReadBody(wireRequest(req, mountPath), req, opts.logger), new NodeWireResponse(res));
  };
  return { handler, exchange };
}

export function startNodeHttp(opts: HttpOptions): Promise<HttpServer> {
  const { handler, exchange } = nodeHandler(opts, hostPort(opts.host, opts.port));
  // Node's default (16 KiB) would refuse a long bearer token (a JWT with many claims) as bad
  // framing before authentication could answer 401; uWS takes headers this large too.
  const server = http.createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: requestTimeoutMs(opts.maxBodyBytes),
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    handler,
  );
  // Node's parser refuses bad framing (a repeated Content-Length, one beside Transfer-Encoding,
  // a malformed one) before any handler runs: answer in the transport's shape and hang up.
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const [method = '', path = ''] = (err.rawPacket?.toString('latin1').split('\r\n', 1)[0] ?? '').split(' ');
    const reply = earlyErrorReply(method, path, a2aError('malformedHttp', err.code ?? 'the request could not be parsed'));
    const body = reply.kind === 'json' ? reply.body : '';
    socket.end(
      `HTTP/1.1 ${statusLine(reply.kind === 'json' ? reply.status : 400)}\r\nContent-Type: application/json\r\n` +
        `X-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // `end` waits for the client to hang up too: one that never reads (a slowloris cut by the
    // headers timeout) would keep the socket. uWS closes at once; this leaves a moment to read.
    setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE' || err.code === 'EADDRNOTAVAIL' ? listenError(opts.host, opts.port) : err);
    });
    server.listen({ host: opts.host, port: opts.port, exclusive: true }, () => {
      let listening = true;
      const stopListening = (): void => {
        if (!listening) return;
        listening = false;
        // Node also closes idle keep-alive connections here; busy ones finish their answer.
        server.close();
      };
      resolve({
        port: (server.address() as AddressInfo).port,
        host: opts.host,
        frontEnd: 'node',
        openStreams: exchange.openStreams,
        bodyBudget: exchange.bodyBudget,
        stopListening,
        close() {
          stopListening();
          exchange.closeStreams();
          // Answers being written may finish; whatever is still open a moment later is cut.
          setTimeout(() => server.closeAllConnections(), CLOSE_CONNECTIONS_AFTER_MS).unref();
        },
      });
    });
  });
}
