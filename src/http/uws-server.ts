/**
 * The uWebSockets.js front end: the fast path, and the only module that knows uWS. It loads a
 * native uWS build if one fits this Node and platform, reads each request as uWS requires
 * (headers synchronously, the body in chunks) and hands it to the shared exchange.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
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
} from './exchange.js';
import { HeaderSet } from './header-set.js';

/** The parts of a uWS module this front end uses. */
interface UwsModule {
  App(): TemplatedApp;
  us_listen_socket_close(socket: us_listen_socket): void;
  us_socket_local_port(socket: never): number;
  getParts?: unknown;
  _cfg?: (key: string) => void;
}

/**
 * The uWS builds we load, in order of preference: `uWebSockets.js`, which the user installs
 * (`@trufflesuite/uws-js-unofficial` under that name: native for Node 16-20, glibc 2.27+; or the
 * official build from GitHub), and `@btc-vision/uwebsockets.js` (our optional dependency: the
 * official v20.57 binaries, Node 20-25, glibc 2.38+).
 */
const BUILDS = [
  { name: 'uWebSockets.js', binaries: 'binaries/' },
  { name: '@btc-vision/uwebsockets.js', binaries: '' },
] as const;

/**
 * Whether a build ships a binary for this Node ABI and platform. Checked before loading it: the
 * trufflesuite build prints an error and falls back to its broken JS shim when it has none.
 */
function hasBinary(build: (typeof BUILDS)[number]): boolean {
  try {
    const dir = dirname(createRequire(import.meta.url).resolve(`${build.name}/package.json`));
    const addon = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
    // The official build installed from GitHub (`uNetworking/uWebSockets.js#v20.57.0`) is named
    // `uWebSockets.js` too, with its binaries at the top.
    return existsSync(join(dir, build.binaries, addon)) || existsSync(join(dir, addon));
  } catch {
    return false;
  }
}

/**
 * The first build that loads natively here, or undefined. A build without its native addon
 * falls back to a JS shim that lacks `getCaseSensitiveMethod` and crashes on the first request,
 * so only a native one counts (the native addon exports `getParts`; the shim does not).
 */
export async function loadNativeUws(): Promise<{ uws: UwsModule; build: string } | undefined> {
  for (const build of BUILDS) {
    if (!hasBinary(build)) continue;
    try {
      const loaded = (await import(build.name)) as { default?: UwsModule } & UwsModule;
      const uws = loaded.default ?? loaded;
      if (typeof uws.getParts === 'function' && typeof uws.App === 'function') return { uws, build: build.name };
    } catch {
      // Not installed, or no binary for this Node/platform: try the next one.
    }
  }
  return undefined;
}

/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT (the typings lack the host + options overload the addon has). */
const LISTEN_EXCLUSIVE_PORT = 1;

export function startUwsHttp(uws: UwsModule, opts: HttpOptions): Promise<HttpServer> {
  // Native builds add a `uWebSockets: 20` header to every response unless told to be silent:
  // it only tells scanners which server (and version) to aim at.
  uws._cfg?.('silent');
  const app = uws.App();
  // Native uWS copies a status line byte for byte (`HTTP/1.1 `, the text, CRLF): see sse.ts.
  const exchange = createExchange({ ...opts, verbatimStatus: true }, hostPort(opts.host, opts.port));

  app.any('/*', (res: HttpResponse, req: HttpRequest) => {
    const headers = new HeaderSet();
    let contentLengths = 0;
    let repeatedHeaders: string[] | undefined;
    let controlByte = false;
    req.forEach((k, v) => {
      if (k === 'content-length') contentLengths++;
      if (v.includes(DEL)) controlByte = true;
      if (headers[k] !== undefined) (repeatedHeaders ??= []).push(k);
      headers[k] = v;
    });
    const method = req.getCaseSensitiveMethod().toUpperCase();
    if (controlByte) {
      refuseMalformed(res, method, req.getUrl(), 'a header value holds a control byte');
      return;
    }
    const body = new UwsBody(res);
    const request: WireRequest = {
      method,
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      headers,
      contentLengths,
      repeatedHeaders,
      readBody: (max, done, over) => body.read(max, done, over),
      holdBody: () => body.hold(),
      remoteAddress: () => Buffer.from(res.getRemoteAddressAsText()).toString(),
    };
    exchange.handle(request, res);
  });

  return new Promise((resolve, reject) => {
    // Exclusive: without it uWS listens with port reuse, and a second server on a taken port
    // would start "fine" and split the traffic with the first.
    const listen = app.listen as unknown as (
      host: string,
      port: number,
      options: number,
      cb: (socket: us_listen_socket | false) => void,
    ) => void;
    listen.call(app, opts.host, opts.port, LISTEN_EXCLUSIVE_PORT, (socket: us_listen_socket | false) => {
      if (!socket) {
        reject(listenError(opts.host, opts.port));
        return;
      }
      let listening = true;
      const stopListening = (): void => {
        if (listening) uws.us_listen_socket_close(socket);
        listening = false;
      };
      resolve({
        port: uws.us_socket_local_port(socket as never),
        host: opts.host,
        frontEnd: 'uws',
        openStreams: exchange.openStreams,
        bodyBudget: exchange.bodyBudget,
        stopListening,
        close() {
          stopListening();
          exchange.closeStreams();
        },
      });
    });
  });
}

/**
 * DEL, the one control byte uWS's parser lets through in a header value (RFC 9110 §5.5 allows
 * none). A request with any other (NUL, CR, …) is held by the parser itself, unanswered until
 * uWS's idle timeout and before any handler runs; node:http answers all of them 400.
 */
const DEL = '\x7f';

/**
 * Answers 400 as node:http's parser does for a request it cannot read, and hangs up. On the next
 * turn, as exchange.ts answers a framing refusal: uWS drops a connection that pipelined another
 * request behind an unanswered one, so nothing sent after this request runs.
 */
function refuseMalformed(res: HttpResponse, method: string, path: string, why: string): void {
  const reply = earlyErrorReply(method, path, a2aError('malformedHttp', why));
  let gone = false;
  res.onAborted(() => {
    gone = true;
  });
  setImmediate(() => {
    if (gone) return;
    res.cork(() => {
      res
        .writeStatus(statusLine(reply.kind === 'json' ? reply.status : 400))
        .writeHeader('Content-Type', 'application/json')
        .writeHeader('X-Content-Type-Options', 'nosniff')
        .end(reply.kind === 'json' ? reply.body : '', true);
    });
  });
}

/**
 * A request's body as uWS delivers it. uWS drops body bytes that arrive while no `onData`
 * handler is set, so holding the body means taking what comes with the headers (at most one
 * socket read: pausing stops further reads) and keeping it for `read`.
 */
class UwsBody {
  private held: { chunks: Buffer[]; ended: boolean } | undefined;
  private sink: ((chunk: Buffer, isLast: boolean) => void) | undefined;

  constructor(private readonly res: HttpResponse) {}

  hold(): void {
    if (this.held) return;
    const held = { chunks: [] as Buffer[], ended: false };
    this.held = held;
    this.listen((chunk, isLast) => {
      if (this.sink) {
        this.sink(chunk, isLast);
        return;
      }
      held.chunks.push(chunk);
      held.ended = isLast;
    });
    this.res.pause();
  }

  /** Collects the body; past `max` bytes `over` answers 413 and nothing more is read. */
  read(max: number, done: (body: Buffer) => void, over: () => void): void {
    const body = bodyCollector(max, done, over);
    const sink = (chunk: Buffer, isLast: boolean): void => {
      body.add(chunk);
      if (isLast) body.end();
    };
    const held = this.held;
    if (!held) {
      this.listen(sink);
      return;
    }
    this.held = undefined;
    this.sink = sink;
    for (const chunk of held.chunks) body.add(chunk);
    // Resumed even when the body is complete: the connection's next request is read the same way.
    this.res.resume();
    if (held.ended) body.end();
  }

  private listen(sink: (chunk: Buffer, isLast: boolean) => void): void {
    this.res.onData((chunk, isLast) => {
      // uWS reuses the chunk's memory after this callback: copy it, into Node's pooled buffer
      // memory. Never `Buffer.from(chunk.slice(0))`: that makes a new ArrayBuffer (its own
      // backing store) per chunk, several times the cost of this copy.
      const copy = Buffer.allocUnsafe(chunk.byteLength);
      copy.set(new Uint8Array(chunk));
      sink(copy, isLast);
    });
  }
}
