/**
 * The node front end: HTTP/1.1 on node:net, read and written here (head.ts, chunked.ts,
 * response.ts), for where no native uWS build loads. node:http's request and response objects,
 * their streams, events and per-request timers cost each request more than the rest of a small
 * task does; this front end keeps one object per request and writes each answer in one call.
 * The timeouts are uWS's, checked by one sweep a second rather than a timer per socket.
 */
import net, { type Socket } from 'node:net';
import { createExchange, hostPort, listenError, malformedAnswer, type HttpOptions, type HttpServer } from '../exchange.js';
import { H1Connection, type ConnectionServer } from './connection.js';
import type { HeadRefusal } from './head.js';

/** A connection gets each request head in within 10 s, and may idle that long between requests. */
const HEAD_TIMEOUT_MS = 10_000;
/** A body must keep coming at 16 KiB/s, after the 10 s any request gets. */
const MIN_BODY_BYTES_PER_SECOND = 16 * 1024;
/** How long a closing connection (or a refused client) has to read its answer. */
const CLOSE_LINGER_MS = 1000;
/** How long open connections may finish their answer once the server closes. */
const CLOSE_CONNECTIONS_AFTER_MS = 1000;
const SWEEP_EVERY_MS = 1000;

export function startNodeH1(opts: HttpOptions): Promise<HttpServer> {
  const exchange = createExchange({ ...opts, verbatimStatus: true }, hostPort(opts.host, opts.port));
  const connections = new Set<H1Connection>();
  let clock = Date.now();
  let stopping = false;

  const refuse = (socket: Socket, refusal: HeadRefusal): void => {
    socket.end(malformedAnswer(refusal.method, refusal.target.split('?', 1)[0] ?? '', refusal.refused));
  };

  const owner: ConnectionServer = {
    handle: exchange.handle,
    refuse,
    get stopping() {
      return stopping;
    },
    forget: (connection) => connections.delete(connection),
    now: () => clock,
  };

  /** Drops connections past their time: a head too slow, an idle keep-alive, a body too slow. */
  const sweep = (): void => {
    clock = Date.now();
    for (const connection of connections) {
      const since = clock - connection.since;
      if (connection.phase === 'head' && since > HEAD_TIMEOUT_MS) connection.destroy();
      else if (connection.phase === 'closing' && since > CLOSE_LINGER_MS) connection.destroy();
      else if (connection.phase === 'request' && connection.current?.bodyFlowing) {
        const { bodyStartedAt, bodyBytes } = connection.current;
        if (clock - bodyStartedAt > HEAD_TIMEOUT_MS + (bodyBytes / MIN_BODY_BYTES_PER_SECOND) * 1000) connection.destroy();
      }
    }
  };

  const server = net.createServer({ noDelay: true, allowHalfOpen: true }, (socket) => {
    connections.add(new H1Connection(socket, owner));
  });
  const sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  sweeper.unref();

  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      clearInterval(sweeper);
      reject(err.code === 'EADDRINUSE' || err.code === 'EADDRNOTAVAIL' ? listenError(opts.host, opts.port) : err);
    });
    server.listen({ host: opts.host, port: opts.port, exclusive: true }, () => {
      const stopListening = (): void => {
        if (stopping) return;
        stopping = true;
        server.close();
        // Idle keep-alive connections go now (a client reconnects elsewhere); busy ones close
        // after their answer.
        for (const connection of connections) if (connection.idle) connection.destroy();
      };
      resolve({
        port: (server.address() as net.AddressInfo).port,
        host: opts.host,
        frontEnd: 'node',
        openStreams: exchange.openStreams,
        bodyBudget: exchange.bodyBudget,
        stopListening,
        close() {
          stopListening();
          exchange.closeStreams();
          // Answers being written may finish; whatever is still open a moment later is cut.
          setTimeout(() => {
            for (const connection of connections) connection.destroy();
            clearInterval(sweeper);
          }, CLOSE_CONNECTIONS_AFTER_MS).unref();
        },
      });
    });
  });
}
