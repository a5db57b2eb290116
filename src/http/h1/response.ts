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
const CRLF = Buffer.from('\r\n', 'latin1');

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
  /**
   * A stream's bytes of this turn of the loop, not yet handed to the socket: they leave in one
   * write when the turn ends (or with the answer's end, which must precede whatever the
   * connection writes next). A write per event would cost each event a trip through the socket's
   * stream machinery, and the events of one turn are often several.
   */
  private gathered = '';
  private flushQueued = false;
  /** `write` said false: the caller waits for onWritable's handler. */
  private pushedBack = false;

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
    // An answer in one piece is one write already; a stream's writes are gathered per turn.
    fn();
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
    if (this.phase === 'head') {
      this.phase = 'streaming';
      this.gather(this.headBlock(this.hasLength ? '' : 'Transfer-Encoding: chunked\r\n', this.owner.mustClose()));
    }
    // An empty chunk would read as the last one.
    if (chunk.length > 0) this.gather(this.hasLength ? chunk : frame(chunk));
    const socket = this.owner.socket;
    // False once the socket holds more than it wants: the caller waits for onWritable. (What is
    // gathered counts by characters, near enough to bytes for a high-water mark.)
    if (socket.writableLength + this.gathered.length < socket.writableHighWaterMark) return true;
    this.pushedBack = true;
    return false;
  }

  private gather(text: string): void {
    this.gathered += text;
    if (this.flushQueued) return;
    this.flushQueued = true;
    process.nextTick(flushGathered, this);
  }

  /** Hands what was gathered to the socket (at the end of the turn, or before the answer's end). */
  flush(): void {
    this.flushQueued = false;
    const text = this.gathered;
    this.gathered = '';
    // Ended: by `end`, which wrote it all, or by the socket closing, which leaves nowhere to write.
    if (text.length === 0 || this.phase === 'ended') return;
    // The socket took it all without pushing back: no 'drain' will come, so a caller told to wait
    // is told now that it may write again.
    if (this.owner.socket.write(text) && this.pushedBack) this.drained();
  }

  end(body?: string | Buffer, closeConnection = false): void {
    if (this.phase === 'ended') return;
    const close = closeConnection || this.owner.mustClose();
    const socket = this.owner.socket;
    const withBody = body !== undefined && !this.owner.headRequest && !bodiless(this.status);
    if (this.phase === 'streaming') {
      // What was gathered, the last bytes and the end of the chunked body, in one write.
      let text = this.gathered;
      this.gathered = '';
      if (withBody && body.length > 0 && typeof body !== 'string') {
        if (text.length > 0) socket.write(text);
        text = '';
        socket.write(this.hasLength ? body : Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`, 'latin1'), body, CRLF]));
      } else if (withBody && typeof body === 'string' && body.length > 0) text += this.hasLength ? body : frame(body);
      if (!this.hasLength) text += LAST_CHUNK;
      if (text.length > 0) socket.write(text);
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
      const last = this.hasLength ? '' : LAST_CHUNK;
      const text = this.gathered + last;
      this.gathered = '';
      if (text.length > 0) this.owner.socket.write(text);
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
    this.pushedBack = false;
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

const flushGathered = (response: H1Response): void => {
  response.flush();
};

/** One chunk of chunked transfer coding (RFC 9112 §7.1). */
const frame = (chunk: string): string => `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`;
