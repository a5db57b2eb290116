/**
 * Server-sent events on a front end's response (wire reference §2.3, §3.4): `id:` + one-line `data:`
 * per event, a `: ping` heartbeat, and a cap on what a slow reader can make us buffer.
 *
 * Backpressure, as uWS reports it: a write returns false once uWS holds bytes it could not
 * send (inside `cork`, only from the write after the one that overflowed). From then on the
 * stream is `blocked`: events wait in our own queue, counted in bytes; past the cap the stream
 * is closed with one log line and the client resumes with `Last-Event-ID`.
 *
 * Unblocking needs care: uWS calls `onWritable` before it drains its own buffer, and may call
 * it when it drained only part of it. So a writable event only unblocks the stream if a real
 * write then succeeds: the next queued chunk, or with nothing queued a no-op comment line
 * (`:`), which a write accepts only once uWS's buffer is empty. The heartbeat does the same,
 * which also wakes a stream whose writable events stopped.
 *
 * Replays do not go through the queue: the feed sends them only while the stream is not
 * blocked and waits for `onDrain` otherwise (runtime/feed-run.ts), so a resume after a
 * cut-off is paced by the client rather than cut off again.
 */
import { errorFields, type Logger } from '../log.js';
import type { StreamEvent } from '../a2a/schemas.js';
import type { FeedSink, TaskFeed } from '../runtime/task-feed.js';
import type { WireResponse } from './wire.js';
import type { Metrics } from '../observe/metrics.js';
import type { CorkedWrites, SseCork } from './sse-cork.js';
import type { Heartbeat } from './sse-heartbeat.js';

export interface SseLimits {
  /** Bytes a stream may have waiting for a slow reader before it is closed. */
  maxBufferedBytes: number;
}

const PING = ': ping\n\n';
/**
 * How much a batch gathers before it writes: a long replay still goes out in pieces, so the
 * client's pace (a write uWS holds back) is seen at least this often.
 */
const BATCH_CHARS = 16 * 1024;
/** A stream's own headers, in the order they are written. */
const STREAM_HEADERS: readonly (readonly [string, string])[] = [
  ['Content-Type', 'text/event-stream'],
  ['Cache-Control', 'no-cache'],
  ['Connection', 'keep-alive'],
  ['X-Accel-Buffering', 'no'],
  ['X-Content-Type-Options', 'nosniff'],
];
/**
 * The status and STREAM_HEADERS as one status "line", for a front end that copies the status
 * verbatim between `HTTP/1.1 ` and CRLF (native uWS): the same bytes as six calls, in one. Each
 * call into uWS converts its strings and crosses into C++; every stream paid six.
 */
const STREAM_HEAD = `200 OK${STREAM_HEADERS.map(([name, value]) => `\r\n${name}: ${value}`).join('')}`;
/** An empty SSE comment line: ignored by clients, written to test whether uWS has drained. */
const PROBE = ':\n';
/**
 * How long a finished stream may wait for a stalled reader to take its last events. Native
 * uWS already drops a socket that makes no progress for about 10 s; this covers builds that
 * do not.
 */
const END_DRAIN_MS = 30_000;

/**
 * What every stream of one front end shares, made once by its exchange: each writer holds this
 * one reference rather than a copy of each.
 */
export interface SseShared {
  readonly limits: SseLimits;
  readonly heartbeat: Heartbeat;
  /** The cork helper (sse-cork.ts): the writer being corked now belongs to it. */
  readonly cork: SseCork;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** The front end copies a status line verbatim: the stream's headers may ride in it (STREAM_HEAD). */
  readonly headInStatus: boolean;
}

/**
 * A stream's life, forward only: `streaming` (the feed delivers events), `finishing` (the feed is
 * over and released; the response ends once the queue is out), `over` (the response is ended or
 * its socket gone: it may not be touched again).
 */
type SsePhase = 'streaming' | 'finishing' | 'over';

/**
 * The writer is its feed's sink (event, onDrain, end, fellBehind, fail): its methods are shared
 * by every stream, where a sink object of closures cost each stream six more objects that lived
 * as long as it did.
 */
export class SseWriter implements FeedSink, CorkedWrites {
  private phase: SsePhase = 'streaming';
  /** Chunks waiting for the socket to drain, and their size in bytes. */
  private queue: string[] = [];
  private queuedBytes = 0;
  /**
   * uWS holds bytes it could not send: nothing more is written until a write succeeds. Not a
   * phase: backpressure comes and goes while streaming and while finishing.
   */
  private blocked = false;
  /** The writable handler is registered with the first write uWS holds back (most streams have none). */
  private watchesWritable = false;
  private drainDeadline: NodeJS.Timeout | undefined;
  /** The feed this stream runs (released by releaseFeed). */
  private feed: TaskFeed | undefined;
  /** A replay waiting for the client to take what it was sent. */
  private drainWaiter: (() => void) | undefined;
  private taskId: string | undefined;
  private lastSeq: number | undefined;
  /**
   * Inside `batch`: frames not written yet, to go out in one write at its end (or once they pass
   * BATCH_CHARS). Undefined outside a batch.
   */
  private batched: string | undefined;
  /** Turns an event (and its JSON text, when made) into the `data:` JSON (set by run). */
  private frame: (event: StreamEvent, json: string | undefined) => string = String;

  constructor(
    private readonly res: WireResponse,
    private readonly shared: SseShared,
    /** Called once, when the response is over (ended, closed or aborted). */
    private readonly onDone: () => void,
  ) {}

  /** `headers`: the reply's own (X-A2A-Extensions), besides the stream's. */
  private open(headers: Readonly<Record<string, string>> | undefined): void {
    this.shared.cork.head(this.res, this, headers);
  }

  /** CorkedWrites: open's writes, inside a cork. */
  writeHead(headers: Readonly<Record<string, string>> | undefined): void {
    if (this.shared.headInStatus) this.res.writeStatus(STREAM_HEAD);
    else {
      this.res.writeStatus('200 OK');
      for (const [name, value] of STREAM_HEADERS) this.res.writeHeader(name, value);
    }
    if (headers) for (const name in headers) this.res.writeHeader(name, headers[name] as string);
    // uWS completes the headers only with the first body bytes: without this, a client
    // whose stream has nothing to say yet (a subscriber of a paused task, a turn that has
    // not started) would not even see the 200 until the first heartbeat.
    this.res.write(PING);
  }

  private watchWritable(): void {
    if (this.watchesWritable) return;
    this.watchesWritable = true;
    this.res.onWritable(() => {
      if (this.blocked) this.pump(PROBE);
      // uWS drains its own buffer after this returns true.
      return true;
    });
  }

  /** Streams a feed until its final event or until either side goes away. */
  run(feed: TaskFeed, frame: (event: StreamEvent, json: string | undefined) => string, headers?: Readonly<Record<string, string>>): void {
    this.taskId = feed.taskId;
    this.frame = frame;
    this.open(headers);
    // Known before it starts: a start that throws still has its feed released (and with it the
    // caller's stream slot).
    this.feed = feed;
    try {
      feed.start(this);
    } catch (err) {
      // The 200 is out already: the client sees a broken stream, and nothing stays registered.
      this.shared.logger.error('sse.feed_failed', { taskId: this.taskId, ...errorFields(err) });
      this.hangUp();
      return;
    }
    // The stream may have ended while the feed started (a client gone, a replay past the cap):
    // its feed is released already, and it never joins the heartbeat.
    if (this.phase === 'streaming') this.shared.heartbeat.add(this);
  }

  /** FeedSink: one event, framed; false once the client has not taken what was sent before. */
  event(event: StreamEvent, seq: number | undefined, json?: string): boolean {
    if (seq !== undefined) this.lastSeq = seq;
    this.send(`${seq === undefined ? '' : `id: ${seq}\n`}data: ${this.frame(event, json)}\n\n`);
    return !this.blocked;
  }

  /** FeedSink: a replay waits for the client to take what it was sent. */
  onDrain(resume: () => void): void {
    this.drainWaiter = resume;
  }

  /**
   * FeedSink: the events `deliver` sends go out as one write (a snapshot and the turn's events
   * that a stream catches up on), not one write each: every write into uWS converts and
   * chunk-frames its text. uWS sends what a cork gathers in one packet anyway, so only the HTTP
   * chunk boundaries change, never the event stream.
   */
  batch(deliver: () => void): void {
    if (this.batched !== undefined) {
      deliver();
      return;
    }
    this.batched = '';
    try {
      deliver();
    } finally {
      this.flushBatch();
      this.batched = undefined;
    }
  }

  /** Writes what a batch gathered so far (it stays a batch). */
  private flushBatch(): void {
    const text = this.batched;
    if (!text) return;
    this.batched = '';
    this.pump(text);
  }

  /** FeedSink: the final event was delivered. */
  end(): void {
    this.endWhenSent();
  }

  /** FeedSink: the client fell further behind than the log can replay. */
  fellBehind(): void {
    this.cutOff('the client fell further behind than the event log can replay');
  }

  /** FeedSink: the feed broke. */
  fail(err: unknown): void {
    this.shared.logger.error('sse.feed_failed', { taskId: this.taskId, lastEventId: this.lastSeq, ...errorFields(err) });
    this.hangUp();
  }

  /** Still streaming or draining: the response may be written to. */
  get isOpen(): boolean {
    return this.phase !== 'over';
  }

  /** One event, then the end (an error found once the stream was due). */
  single(data: string, headers?: Readonly<Record<string, string>>): void {
    this.open(headers);
    this.send(`data: ${data}\n\n`);
    this.endWhenSent();
  }

  /** The heartbeat: a comment line, which also tells whether a blocked stream has drained. */
  ping(): void {
    this.pump(PING);
  }

  private send(chunk: string): void {
    if (this.phase !== 'streaming') return;
    this.shared.metrics.sseEventWritten();
    // Nothing waits while the stream is not blocked: the chunk is written at once, without
    // going through the queue (whose byte counting measured every chunk twice).
    if (!this.blocked && this.queue.length === 0) {
      if (this.batched === undefined) this.pump(chunk);
      else {
        // Nothing is queued while a batch gathers: the batch only ever precedes the queue
        // (a write it flushes is what may block the stream).
        this.batched += chunk;
        if (this.batched.length >= BATCH_CHARS) this.flushBatch();
      }
      return;
    }
    this.queue.push(chunk);
    this.queuedBytes += Buffer.byteLength(chunk);
    if (!this.blocked) this.pump();
    else if (this.queuedBytes > this.shared.limits.maxBufferedBytes) {
      this.cutOff(`more than ${this.shared.limits.maxBufferedBytes} bytes waited for the client`);
    }
  }

  /**
   * Writes queued chunks (with none queued, `probe`: a probe line, or an event's chunk) until uWS
   * pushes back. Once nothing is
   * held back any more it ends a finished response, or lets a waiting replay go on.
   */
  private pump(probe?: string): void {
    if (this.phase === 'over') return;
    this.shared.cork.queued(this.res, this, probe);
    const resume = this.drainWaiter;
    if (!this.blocked && resume && this.phase === 'streaming') {
      this.drainWaiter = undefined;
      resume();
    }
  }

  /** CorkedWrites: pump's writes, inside a cork. */
  writeQueued(probe: string | undefined): void {
    let ok = true;
    if (this.queue.length === 0 && probe !== undefined) ok = this.res.write(probe);
    while (ok && this.queue.length > 0) {
      const chunk = this.queue.shift() as string;
      this.queuedBytes -= Buffer.byteLength(chunk);
      // A refused write is still held by uWS (and sent later): it leaves our queue either way.
      ok = this.res.write(chunk);
    }
    this.blocked = !ok;
    if (!ok) this.watchWritable();
    if (ok && this.phase === 'finishing') {
      this.toOver();
      this.res.end();
    }
  }

  /**
   * Drops a client that cannot keep up. The connection is closed, not ended, so the client
   * sees a broken stream (not a finished one) and resumes with `Last-Event-ID`.
   */
  private cutOff(reason: string): void {
    if (this.phase === 'over') return;
    this.shared.metrics.sseStreamCut();
    this.shared.logger.warn('sse.slow_consumer_closed', {
      taskId: this.taskId,
      lastEventId: this.lastSeq,
      queuedBytes: this.queuedBytes,
      limit: this.shared.limits.maxBufferedBytes,
      reason,
    });
    this.hangUp();
  }

  /** Closes the connection at once; uWS then runs onAborted, which finds the stream over. */
  private hangUp(): void {
    this.releaseFeed();
    if (this.phase === 'over') return;
    this.toOver();
    this.res.close();
  }

  /** The feed is over: end the response once every queued event is out. */
  private endWhenSent(): void {
    if (this.phase !== 'streaming') return;
    // The final event may sit in a batch: it goes before the end.
    this.flushBatch();
    if (this.phase !== 'streaming') return;
    this.releaseFeed();
    this.phase = 'finishing';
    if (!this.blocked) {
      this.pump();
      return;
    }
    // A stalled reader must not keep the socket forever once there is nothing more to say.
    this.drainDeadline = setTimeout(() => {
      if (this.phase === 'over') return;
      this.shared.logger.warn('sse.drain_timeout_closed', { taskId: this.taskId, queuedBytes: this.queuedBytes });
      this.toOver();
      this.res.close();
    }, END_DRAIN_MS);
    this.drainDeadline.unref();
  }

  /** Releases the feed's subscription and the heartbeat (once: the feed ran while `streaming`). */
  private releaseFeed(): void {
    if (this.phase !== 'streaming') return;
    this.phase = 'finishing';
    this.drainWaiter = undefined;
    this.shared.heartbeat.delete(this);
    this.feed?.cancel();
  }

  /** The response is over: drop what is queued and tell the owner, once. */
  private toOver(): void {
    if (this.phase === 'over') return;
    this.phase = 'over';
    if (this.drainDeadline) clearTimeout(this.drainDeadline);
    this.drainDeadline = undefined;
    this.queue = [];
    this.queuedBytes = 0;
    if (this.batched !== undefined) this.batched = '';
    this.onDone();
  }

  /** The client went away: release the subscription at once (the task keeps running). */
  clientGone(): void {
    this.releaseFeed();
    this.toOver();
  }

  /** The server is shutting down: end the response now. */
  shutdown(): void {
    this.releaseFeed();
    if (this.phase === 'over') return;
    this.toOver();
    this.res.cork(() => {
      this.res.end();
    });
  }
}
