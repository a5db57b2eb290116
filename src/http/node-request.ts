/**
 * A node:http request as the exchange reads it (wire.ts): headers lower-cased with uWS's
 * last-one-wins reading, the mount path taken off the URL, and the body read with one listener.
 */
import type { IncomingMessage } from 'node:http';
import type { A2AError } from '../a2a/errors.js';
import { bodyCollector, type WireRequest } from './exchange.js';
import { HeaderSet } from './header-set.js';

export class NodeWireRequest implements WireRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Record<string, string> = new HeaderSet();
  readonly contentLengths: number = 0;
  readonly repeatedHeaders: string[] | undefined;
  readonly mountPath: string | undefined;

  /** `mountPath`: where a host app mounted us ('' when it strips it itself, or at the root). */
  constructor(
    private readonly req: IncomingMessage,
    mountPath: string,
  ) {
    const headers = this.headers;
    const raw = req.rawHeaders;
    let contentLengths = 0;
    let repeated: string[] | undefined;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = (raw[i] as string).toLowerCase();
      if (name === 'content-length') contentLengths++;
      // Repeated headers read as the last one, as uWS's do; their names are kept so that the
      // ones that must not repeat (Content-Length, credentials) can be refused.
      if (headers[name] !== undefined) (repeated ??= []).push(name);
      headers[name] = raw[i + 1] as string;
    }
    this.contentLengths = contentLengths;
    this.repeatedHeaders = repeated;
    let url = req.url ?? '/';
    // A host app that does not strip its mount path (a bare node:http server) leaves it on.
    if (mountPath && (url === mountPath || url.startsWith(`${mountPath}/`) || url.startsWith(`${mountPath}?`))) {
      url = url.slice(mountPath.length) || '/';
      if (url.startsWith('?')) url = `/${url}`;
    }
    const q = url.indexOf('?');
    // node's parser knows methods only by their upper-case names.
    this.method = req.method ?? 'GET';
    this.path = q < 0 ? url : url.slice(0, q);
    this.query = q < 0 ? '' : url.slice(q + 1);
    this.mountPath = mountPath || undefined;
  }

  // Own properties, not methods: a request whose body the host app read is copied with its
  // own properties (parsed-body.ts), and the addresses must come along.
  readonly remoteAddress = (): string => this.req.socket.remoteAddress ?? '';
  readonly localAddress = (): string => this.req.socket.localAddress ?? '';

  readBody(max: number, done: (body: Buffer) => void, over: (why?: A2AError) => void): void {
    const declared = this.headers['content-length'];
    if (declared === undefined || this.headers['transfer-encoding'] !== undefined) {
      // Chunked: the size is known only at the end.
      const body = bodyCollector(max, done, over);
      this.req.on('data', (chunk: Buffer) => body.add(chunk));
      this.req.on('end', () => body.end());
      return;
    }
    readDeclared(this.req, Number(declared), max, done, over);
  }

  // A request stream reads nothing until a 'data' listener asks: once its small buffer is
  // full, the socket is not read (TCP pushes back on the client).
  holdBody(): void {}
}

/**
 * A body of a declared length: handed on as soon as its last byte is in (node's parser frames it
 * by that length), in the one chunk it came in or copied into one buffer of that size.
 */
function readDeclared(req: IncomingMessage, length: number, max: number, done: (body: Buffer) => void, over: () => void): void {
  if (length > max) {
    over();
    return;
  }
  if (length === 0) {
    req.once('end', () => done(Buffer.alloc(0)));
    req.resume();
    return;
  }
  let whole: Buffer | undefined;
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    if (size === 0 && chunk.byteLength === length) {
      size = length;
      done(chunk);
      return;
    }
    whole ??= Buffer.allocUnsafe(length);
    chunk.copy(whole, size);
    size += chunk.byteLength;
    if (size === length) done(whole);
  });
}
