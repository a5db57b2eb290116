/**
 * The node:http front end: what serves when no native uWS build fits this Node or platform
 * (or when SERVICE_FRONT_END=node). Each node request and response is fitted to the shapes the
 * shared exchange uses (exchange.ts), so both front ends answer the same way: body cap, HEAD,
 * framing checks, SSE with backpressure and heartbeats, the same error bodies.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExchange, hostPort, listenError, malformedAnswer, type HttpOptions, type HttpServer } from './exchange.js';
import { NodeWireRequest } from './node-request.js';
import { NodeWireResponse } from './node-response.js';
import { withReadBody } from './parsed-body.js';

/** Request headers in all, bytes. */
const MAX_HEADER_BYTES = 64 * 1024;

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
    exchange.handle(withReadBody(new NodeWireRequest(req, mountPath), req, opts.logger), new NodeWireResponse(res));
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
    socket.end(malformedAnswer(method, path, err.code ?? 'the request could not be parsed'));
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
        frontEnd: 'node-http',
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
