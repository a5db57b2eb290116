/**
 * An answer written straight to the socket in uWS's calling convention (wire.ts): the status line
 * and headers are gathered in one string and leave with the body in one socket write, so a JSON
 * answer costs one write call and one syscall. A body of unknown length (an SSE stream) goes out
 * in chunked transfer coding, as node:http and uWS send it.
 */
import type { Socket } from 'node:net';
import type { WireResponse } from '../wire.js';
import { httpDate } from './date.js';

/** What the response tells its connection. */
export interface ResponseOwner {
  readonly socket: Socket;
  /** The request was HEAD: no body goes out, whatever the caller passes. */
  readonly headRequest: boolean;
  /** The connection must close after this answer (the request said so, or its body is left unread). */
  mustClose(): boolean;
  /** The answer is out (or handed to the socket); `close`: the connection ends after it. */
  answered(close: boolean): void;
}

/** Field values may not hold CR, LF or NUL: a value with them would write headers of its own. */
const UNSAFE_VALUE = /[\r\n\0]/;

/** Answers without a body (RFC 9110 §6.4.1, §15.3.5, §15.4.5). */
const bodiless = (status: number): boolean => status === 204 || status === 304 || (status >= 100 && status < 200);

const LAST_CHUNK = '0\r\n\r\n';

type Phase =
  /** Status and headers gathered, nothing sent. */
  | 'head'
  /** The head went out; a body of unknown length follows in chunks. */
  | 'streaming'
  | 'ended';

export class H1Response implements WireResponse {
  private phase: Phase = 'head';
  private status = 200;
  /** Everything after `HTTP/1.1 `, up to the last header's CRLF. */
  private head = '200 OK\r\n';
  private hasLength = false;
  private abortHandler: (() => void) | undefined;
  private writableHandler: ((offset: number) => boolean) | undefined;

  constructor(private readonly owner: ResponseOwner) {}

  /** The socket closed before the answer ended: the client went away. */
  socketClosed(): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    this.abortHandler?.();
  }

  private release(): void {
    if (this.writableHandler) this.owner.socket.off('drain', this.drained);
    this.writableHandler = undefined;
  }

  get ended(): boolean {
    return this.phase === 'ended';
  }

  cork(fn: () => void): void {
    // An answer in one piece is one write already; a stream's events are gathered into one.
    if (this.phase !== 'streaming') {
      fn();
      return;
    }
    const socket = this.owner.socket;
    socket.cork();
    try {
      fn();
    } finally {
      socket.uncork();
    }
  }

  /** Taken verbatim (headers may follow the reason phrase, each line ended by CRLF). */
  writeStatus(line: string): this {
    if (this.phase !== 'head') return this;
    this.status = Number.parseInt(line, 10);
    this.head = `${line}\r\n`;
    return this;
  }

  writeHeader(name: string, value: string): this {
    if (this.phase !== 'head') return this;
    if (UNSAFE_VALUE.test(value) || UNSAFE_VALUE.test(name)) throw new TypeError(`invalid character in the ${name} header`);
    if (name.length === 14 && name.toLowerCase() === 'content-length') this.hasLength = true;
    this.head += `${name}: ${value}\r\n`;
    return this;
  }

  write(chunk: string): boolean {
    if (this.phase === 'ended') return false;
    const socket = this.owner.socket;
    corkForTheTurn(socket);
    if (this.phase === 'head') {
      this.phase = 'streaming';
      const framing = this.hasLength ? '' : 'Transfer-Encoding: chunked\r\n';
      const head = this.headBlock(framing, this.owner.mustClose());
      if (chunk.length === 0) return socket.write(head);
      return socket.write(head + (this.hasLength ? chunk : frame(chunk)));
    }
    // An empty chunk would read as the last one.
    if (chunk.length === 0) return !socket.writableNeedDrain;
    return socket.write(this.hasLength ? chunk : frame(chunk));
  }

  end(body?: string | Buffer, closeConnection = false): void {
    if (this.phase === 'ended') return;
    const close = closeConnection || this.owner.mustClose();
    const socket = this.owner.socket;
    const withBody = body !== undefined && !this.owner.headRequest && !bodiless(this.status);
    if (this.phase === 'streaming') {
      corkForTheTurn(socket);
      if (this.hasLength) {
        if (withBody && body.length > 0) socket.write(body);
      } else if (!withBody || body.length === 0) socket.write(LAST_CHUNK);
      else if (typeof body === 'string') socket.write(frame(body) + LAST_CHUNK);
      else
        socket.write(
          Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`, 'latin1'), body, Buffer.from(`\r\n${LAST_CHUNK}`, 'latin1')]),
        );
      this.finish(close);
      return;
    }
    let length = '';
    if (!this.hasLength && !bodiless(this.status) && !this.owner.headRequest) {
      length = `Content-Length: ${body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length}\r\n`;
    }
    const head = this.headBlock(length, close);
    if (!withBody || body.length === 0) socket.write(head);
    else if (typeof body === 'string') socket.write(head + body);
    else socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
    this.finish(close);
  }

  endWithoutBody(reportedContentLength?: number, closeConnection = false): void {
    if (this.phase === 'ended') return;
    const close = closeConnection || this.owner.mustClose();
    if (this.phase === 'streaming') {
      corkForTheTurn(this.owner.socket);
      if (!this.hasLength) this.owner.socket.write(LAST_CHUNK);
      this.finish(close);
      return;
    }
    let length = '';
    if (reportedContentLength !== undefined && !this.hasLength) length = `Content-Length: ${reportedContentLength}\r\n`;
    else if (!this.hasLength && !bodiless(this.status) && !this.owner.headRequest) length = 'Content-Length: 0\r\n';
    this.owner.socket.write(this.headBlock(length, close));
    this.finish(close);
  }

  onWritable(handler: (offset: number) => boolean): void {
    // Registered only by a stream that was pushed back: most answers never need it. The socket
    // outlives the answer (keep-alive): the listener leaves with the answer.
    if (!this.writableHandler) this.owner.socket.on('drain', this.drained);
    this.writableHandler = handler;
  }

  private readonly drained = (): void => {
    this.writableHandler?.(0);
  };

  onAborted(handler: () => void): void {
    const before = this.abortHandler;
    this.abortHandler = before ? () => (before(), handler()) : handler;
  }

  close(): void {
    this.owner.socket.destroy();
  }

  /** The status line and headers with `extra` (framing) and the connection's fate, blank line last. */
  private headBlock(extra: string, close: boolean): string {
    return `HTTP/1.1 ${this.head}${extra}Date: ${httpDate()}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
  }

  private finish(close: boolean): void {
    this.phase = 'ended';
    this.release();
    this.owner.answered(close);
  }
}

/**
 * A stream's writes in one turn of the loop leave in one syscall, as node:http's do: the events
 * of one turn (and the stream's end) are often several. An answer in one piece needs no cork.
 */
function corkForTheTurn(socket: Socket): void {
  if (socket.writableCorked > 0) return;
  socket.cork();
  process.nextTick(uncork, socket);
}

const uncork = (socket: Socket): void => {
  socket.uncork();
};

/** One chunk of chunked transfer coding (RFC 9112 §7.1). */
const frame = (chunk: string): string => `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`;
