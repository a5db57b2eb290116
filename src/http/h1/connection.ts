/**
 * One client connection: reads request heads, hands each request to the exchange, and serves the
 * next (pipelined) request only once the answer before it is out and its body read or skipped.
 * Its phase is one field; the server's sweep reads it to apply the timeouts (server.ts).
 */
import type { Socket } from 'node:net';
import type { WireRequest, WireResponse } from '../wire.js';
import { ByteQueue } from './byte-queue.js';
import { isRefusal, parseHead, type HeadRefusal } from './head.js';
import { H1Request, type RequestConnection } from './request.js';
import { H1Response } from './response.js';

/** Request headers in all (request line included), bytes. */
export const MAX_HEAD_BYTES = 64 * 1024;

/**
 * What a closing connection reads and drops after its answer, bytes. Reading on (rather than
 * closing at once) keeps the kernel from answering the client's bytes still in flight with a
 * reset, which can cost the client the answer it has not read yet. Past this much, the client
 * is still sending a body the answer refused: the connection is dropped, as uWS drops it, rather
 * than read at the client's pace until the linger ends, which lets a client that is refused
 * cost the server as much as one that is served.
 */
export const MAX_LINGER_BYTES = 1024 * 1024;

/** What a connection needs from its server. */
export interface ConnectionServer {
  handle(req: WireRequest, res: WireResponse): void;
  /** Answers a head that could not be read (the connection closes after it). */
  refuse(socket: Socket, refusal: HeadRefusal): void;
  /** The server has stopped listening: every answer closes its connection. */
  readonly stopping: boolean;
  forget(connection: H1Connection): void;
  /** Milliseconds, coarse (the sweep's clock). */
  now(): number;
}

export type ConnectionPhase =
  /** Waiting for (the rest of) a request head; idle between requests. */
  | 'head'
  /** A request is with the exchange (its answer, or its body, is not done). */
  | 'request'
  /** Answered and ending: the socket is half-closed and dropped after a moment. */
  | 'closing'
  | 'closed';

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');

export class H1Connection implements RequestConnection {
  phase: ConnectionPhase = 'head';
  /** When the phase began (the head timeout, the linger after closing). */
  since: number;
  current: H1Request | undefined;
  private currentResponse: H1Response | undefined;
  /** Bytes read past the current request's head (its body, then what follows). */
  private readonly pending = new ByteQueue();
  /** How far `pending` was searched for the end of a head. */
  private searched = 0;
  /** The answer of `current` is out. */
  private answeredCurrent = false;
  /** Inside `serve`: an answer given synchronously continues its loop instead of nesting one. */
  private serving = false;
  private paused = false;
  /** Bytes read and dropped while closing. */
  private lingered = 0;

  constructor(
    readonly socket: Socket,
    private readonly server: ConnectionServer,
  ) {
    this.since = server.now();
    socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('error', noop);
    socket.on('close', this.onClose);
  }

  now(): number {
    return this.server.now();
  }

  closing(): boolean {
    return this.server.stopping;
  }

  takePending(): Buffer | undefined {
    return this.pending.take();
  }

  pendingLength(): number {
    return this.pending.length;
  }

  putBack(rest: Buffer): void {
    const after = this.pending.take();
    this.pending.push(rest);
    if (after !== undefined) this.pending.push(after);
  }

  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.socket.pause();
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.socket.resume();
  }

  answered(close: boolean): void {
    this.answeredCurrent = true;
    if (close) {
      this.end();
      return;
    }
    const request = this.current;
    if (request !== undefined && !request.bodyDone) {
      request.skipBody();
      return;
    }
    this.next();
  }

  bodySettled(): void {
    if (this.answeredCurrent && this.phase === 'request') this.next();
  }

  /** Idle: the server stops listening and drops connections with nothing under way. */
  get idle(): boolean {
    return this.phase === 'head' && this.pending.length === 0;
  }

  destroy(): void {
    this.socket.destroy();
  }

  private readonly onData = (bytes: Buffer): void => {
    if (this.phase === 'request' && this.current?.bodyFlowing) {
      this.current.received(bytes);
      return;
    }
    if (this.phase === 'closing') {
      this.linger(bytes.length);
      return;
    }
    if (this.phase !== 'head' && this.phase !== 'request') return;
    this.pending.push(bytes);
    if (this.phase === 'head') this.serve();
    // Bytes past an unanswered request (pipelined, or a held body): kept, up to a head's worth.
    else if (this.pending.length > MAX_HEAD_BYTES) this.pause();
  };

  /**
   * The client sent FIN. As node:http and uWS read it: the client is gone. An answer under way is
   * abandoned (its stream and task wait are released at once, not at the next failed write).
   */
  private readonly onEnd = (): void => {
    if (this.phase === 'head') this.end();
    else if (this.phase === 'request') this.destroy();
  };

  private readonly onClose = (): void => {
    this.phase = 'closed';
    this.currentResponse?.socketClosed();
    this.server.forget(this);
  };

  /** Back to reading heads: the request is answered and its body settled. */
  private next(): void {
    this.phase = 'head';
    this.since = this.server.now();
    this.current = undefined;
    this.currentResponse = undefined;
    this.resume();
    if (!this.serving) this.serve();
  }

  /** Reads and hands on every complete head in `pending`, one request at a time. */
  private serve(): void {
    this.serving = true;
    try {
      for (let pending = this.pending.view(); this.phase === 'head' && pending !== undefined; pending = this.pending.view()) {
        // Only the bytes not searched yet (and the three before them) can hold the end.
        const end = pending.indexOf(HEAD_END, Math.max(0, this.searched - 3));
        if (end < 0 || end > MAX_HEAD_BYTES) {
          this.searched = pending.length;
          if (end > MAX_HEAD_BYTES || pending.length > MAX_HEAD_BYTES + HEAD_END.length) {
            this.refuse({ refused: 'request headers too large', method: '', target: '' });
          }
          return;
        }
        const head = parseHead(pending.toString('latin1', 0, end));
        this.pending.skip(end + HEAD_END.length);
        this.searched = 0;
        if (isRefusal(head)) {
          this.refuse(head);
          return;
        }
        this.phase = 'request';
        this.since = this.server.now();
        this.answeredCurrent = false;
        const request = new H1Request(this, head);
        const response = new H1Response(request);
        this.current = request;
        this.currentResponse = response;
        this.server.handle(request, response);
      }
    } finally {
      this.serving = false;
    }
  }

  private refuse(refusal: HeadRefusal): void {
    this.pending.clear();
    this.server.refuse(this.socket, refusal);
    this.toClosing();
  }

  /**
   * Bytes after the answer, dropped. Past the budget the socket is destroyed once the answer has
   * left node (a reset would cut what it still holds); until then it is only no longer read.
   */
  private linger(count: number): void {
    this.lingered += count;
    if (this.lingered <= MAX_LINGER_BYTES) return;
    if (this.socket.writableLength === 0) this.destroy();
    else this.pause();
  }

  /** Half-closes once the answer is out; the sweep drops the socket a moment later. */
  private end(): void {
    this.socket.end();
    this.toClosing();
  }

  private toClosing(): void {
    this.phase = 'closing';
    this.since = this.server.now();
    this.pending.clear();
    this.resume();
  }
}

function noop(): void {}
