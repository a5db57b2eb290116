/**
 * One request on a connection, as the exchange reads it (wire.ts), and the body's life: unread,
 * held (the head is being checked), being read, read, or being skipped after an answer that did
 * not need it. Its bytes come from the connection, which keeps whatever follows the body.
 */
import { a2aError, type A2AError } from '../../a2a/errors.js';
import { bodyCollector, type WireRequest } from '../exchange.js';
import { ChunkedDecoder } from './chunked.js';
import type { RequestHead } from './head.js';
import type { ResponseOwner } from './response.js';
import type { Socket } from 'node:net';

/** What a request needs from its connection. */
export interface RequestConnection {
  readonly socket: Socket;
  /** Bytes read past this request's head and not used yet (its body, then what follows). */
  takePending(): Buffer | undefined;
  /** How many bytes `takePending` would give. */
  pendingLength(): number;
  /** Gives back bytes that follow the body. */
  putBack(rest: Buffer): void;
  /** Stop reading the socket until `resume` (a held body, or bytes piling up). */
  pause(): void;
  resume(): void;
  /** The connection closes after this answer whatever the request says (the server is stopping). */
  closing(): boolean;
  answered(close: boolean): void;
  /** The body is read or skipped: the next request may be served once the answer is out. */
  bodySettled(): void;
  /** Milliseconds on the connection's clock. */
  now(): number;
}

type BodyPhase =
  /** No body: neither Content-Length nor Transfer-Encoding. */
  | 'none'
  | 'unread'
  | 'held'
  | 'reading'
  /** The answer went out without it: its bytes are read and dropped. */
  | 'skipping'
  | 'read';

const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
const EMPTY = Buffer.alloc(0);

export class H1Request implements WireRequest, ResponseOwner {
  readonly method: string;
  /** The request-target as sent; `path` and `query` are its two parts. */
  readonly target: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Record<string, string>;
  readonly contentLengths: number;
  readonly repeatedHeaders: string[] | undefined;
  readonly headRequest: boolean;
  private body: BodyPhase;
  /** Bytes of a declared body still to come. */
  private remaining: number;
  private decoder: ChunkedDecoder | undefined;
  /** While reading: where the bytes go. */
  private sink: ((bytes: Buffer) => void) | undefined;
  /** When reading began, and how much came since (the pace a body must keep). */
  bodyStartedAt = 0;
  bodyBytes = 0;

  constructor(
    private readonly connection: RequestConnection,
    private readonly head: RequestHead,
  ) {
    this.method = head.method;
    this.headers = head.headers;
    this.contentLengths = head.headers['content-length'] === undefined ? 0 : 1;
    this.repeatedHeaders = head.repeated;
    this.headRequest = head.method === 'HEAD';
    const target = head.target;
    this.target = target;
    const q = target.indexOf('?');
    this.path = q < 0 ? target : target.slice(0, q);
    this.query = q < 0 ? '' : target.slice(q + 1);
    this.remaining = head.contentLength;
    this.body = head.chunked || head.contentLength > 0 ? 'unread' : 'none';
  }

  get socket() {
    return this.connection.socket;
  }

  remoteAddress(): string {
    return this.connection.socket.remoteAddress ?? '';
  }

  localAddress(): string {
    return this.connection.socket.localAddress ?? '';
  }

  /** Whether the body is being read or skipped, for the connection's pace check. */
  get bodyFlowing(): boolean {
    return this.body === 'reading' || this.body === 'skipping';
  }

  /** Settled: no body, or read, or skipped to its end. */
  get bodyDone(): boolean {
    return this.body === 'none' || this.body === 'read';
  }

  holdBody(): void {
    if (this.body !== 'unread') return;
    this.body = 'held';
    this.connection.pause();
  }

  readBody(max: number, done: (body: Buffer) => void, over: (why?: A2AError) => void): void {
    if (this.body === 'none') {
      done(EMPTY);
      return;
    }
    if (this.body !== 'unread' && this.body !== 'held') return;
    if (this.head.contentLength > max) {
      over();
      return;
    }
    if (this.head.expectContinue) this.connection.socket.write(CONTINUE);
    if (this.head.chunked) {
      const collected = bodyCollector(max, done, over);
      const decoder = new ChunkedDecoder();
      this.decoder = decoder;
      this.sink = (bytes) => {
        const used = decoder.feed(bytes, (piece) => collected.add(piece));
        if (decoder.refused !== undefined) {
          this.body = 'read';
          over(a2aError('malformedHttp', decoder.refused));
          return;
        }
        if (decoder.done) {
          this.finishBody(bytes, used);
          collected.end();
        }
      };
    } else {
      const length = this.head.contentLength;
      // The common case: the whole body came with the head (no sink, nothing more to read).
      const ready = this.connection.pendingLength() >= length ? this.connection.takePending() : undefined;
      if (ready !== undefined) {
        this.connection.resume();
        this.handOn(ready, length, done);
        return;
      }
      let whole: Buffer | undefined;
      this.sink = (bytes) => {
        // The whole body in one later read.
        if (whole === undefined && bytes.length >= length) {
          this.handOn(bytes, length, done);
          return;
        }
        whole ??= Buffer.allocUnsafe(length);
        const take = Math.min(this.remaining, bytes.length);
        bytes.copy(whole, length - this.remaining, 0, take);
        this.remaining -= take;
        if (this.remaining === 0) {
          this.finishBody(bytes, take);
          done(whole);
        }
      };
    }
    this.startFlowing('reading');
  }

  /** Bytes that arrived for this request while its body flows. */
  received(bytes: Buffer): void {
    this.bodyBytes += bytes.length;
    this.sink?.(bytes);
  }

  /**
   * The answer is out: an unread body of a declared length is skipped, so that the next request
   * can be read; a chunked one cannot be skipped as cheaply (the connection closes instead).
   */
  skipBody(): void {
    if (this.body !== 'unread' && this.body !== 'held') return;
    this.sink = (bytes) => {
      const take = Math.min(this.remaining, bytes.length);
      this.remaining -= take;
      if (this.remaining === 0) this.finishBody(bytes, take);
    };
    this.startFlowing('skipping');
  }

  /**
   * The connection must close after the answer: the client asked, or the body cannot be skipped
   * (chunked), or it may never come: a client that expected a 100 and got the answer instead may
   * send the body or the next request (RFC 9110 §10.1.1), and the two cannot be told apart.
   */
  mustClose(): boolean {
    if (!this.head.keepAlive || this.connection.closing()) return true;
    if (this.body === 'read' || this.body === 'none') return false;
    return this.head.chunked || this.head.expectContinue;
  }

  answered(close: boolean): void {
    this.connection.answered(close);
  }

  private startFlowing(phase: 'reading' | 'skipping'): void {
    this.body = phase;
    this.bodyStartedAt = this.connection.now();
    this.connection.resume();
    const pending = this.connection.takePending();
    if (pending !== undefined) this.received(pending);
  }

  /** A body of `length` bytes that `bytes` begins with, whole: handed on without a copy. */
  private handOn(bytes: Buffer, length: number, done: (body: Buffer) => void): void {
    this.finishBody(bytes, length);
    done(bytes.length === length ? bytes : bytes.subarray(0, length));
  }

  /** The body ended `used` bytes into `bytes`: the rest belongs to the next request. */
  private finishBody(bytes: Buffer, used: number): void {
    this.body = 'read';
    this.sink = undefined;
    if (used < bytes.length) this.connection.putBack(bytes.subarray(used));
    this.connection.bodySettled();
  }
}
