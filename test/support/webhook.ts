/**
 * A real webhook receiver (node:http) for push tests. It binds to a loopback address only,
 * records every request (method, headers, parsed body, arrival time), answers as scripted, and
 * counts how many requests are in flight at once.
 *
 * Only loopback: this machine's network forbids traffic to private or public addresses, and a
 * test must never try (the address classifier is tested on such addresses as data only).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Json } from './a2a.js';

export type LoopbackHost = '127.0.0.1' | '127.0.0.2' | '::1';

export interface Received {
  /** 1-based arrival number at this receiver. */
  n: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Json;
  /** performance.now() when the request arrived. */
  at: number;
}

export type Reply =
  | { status: number; headers?: Record<string, string>; delayMs?: number }
  /** Never answer (the sender's timeout must end the attempt). */
  | { hang: true }
  /** Drop the connection without an answer (a network error for the sender). */
  | { reset: true };

/** Decides the answer to the n-th request (1-based). May wait, e.g. on a gate. */
export type Responder = (req: Received) => Reply | Promise<Reply>;

export const OK: Reply = { status: 200 };

/** The given replies in order, then `then` for every later request. */
export function sequence(replies: Reply[], then: Reply = OK): Responder {
  return (req) => replies[req.n - 1] ?? then;
}

export function always(reply: Reply): Responder {
  return () => reply;
}

/** A gate the test opens: requests wait on it, in flight, until `open()`. */
export function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

export interface Receiver {
  readonly host: LoopbackHost;
  readonly port: number;
  /** `http://<host>:<port>/hook` with the bind address as host. */
  readonly url: string;
  /** The same listener named another way (e.g. `localhost`, `0.0.0.0`, `[::ffff:127.0.0.1]`). */
  urlVia(hostInUrl: string, path?: string): string;
  readonly received: Received[];
  /** Requests that arrived and are not answered (or dropped) yet. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /**
   * Bodies received for one task, in arrival order: a v0.3 body is the task itself, a v1.0 body
   * a StreamResponse `{task}` (see `pushedTask`); both shapes are matched.
   */
  bodiesOf(taskId: string): Json[];
  close(): Promise<void>;
}

/**
 * The task a delivery carries, in either version's shape: v0.3 posts the task, v1.0 a
 * StreamResponse holding it (`{"task": {...}}`, spec §4.3.3).
 */
export const pushedTask = (body: Json): Json => (body !== null && typeof body === 'object' && 'task' in body ? body.task : body);

export async function startReceiver(opts: { host?: LoopbackHost; respond?: Responder } = {}): Promise<Receiver> {
  const host = opts.host ?? '127.0.0.1';
  const respond = opts.respond ?? always(OK);
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  let inFlight = 0;
  let maxInFlight = 0;
  let arrivals = 0;

  const server: Server = createServer((req, res) => {
    const at = performance.now();
    const n = ++arrivals;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let counted = true;
    res.on('close', () => {
      if (counted) inFlight--;
      counted = false;
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Json;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      const record: Received = { n, method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at };
      received.push(record);
      void Promise.resolve(respond(record)).then(async (reply) => {
        if ('hang' in reply) return;
        if ('reset' in reply) return void req.socket.destroy();
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed) return;
        res.writeHead(reply.status, reply.headers ?? {});
        res.end();
      });
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const urlVia = (hostInUrl: string, path = '/hook') => `http://${hostInUrl}:${port}${path}`;

  return {
    host,
    port,
    url: urlVia(host.includes(':') ? `[${host}]` : host),
    urlVia,
    received,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    bodiesOf: (taskId) => received.filter((r) => pushedTask(r.body)?.id === taskId).map((r) => r.body),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
