/**
 * A task feed written to a gRPC server stream, with the SSE writer's rules (src/http/sse.ts): a
 * client that does not read holds the feed back (a replay waits for the stream to drain), and
 * one that falls further behind than SERVICE_SSE_MAX_BUFFERED_BYTES is cut off so it subscribes
 * again, rather than holding the events in memory. A client that cancels its call (or whose
 * deadline passes) ends the stream and releases the feed; the task goes on.
 */
import { status as GrpcCode, type ServerWritableStream } from '@grpc/grpc-js';
import type { StreamEvent } from '../a2a/schemas.js';
import { errorFields, type Logger } from '../log.js';
import type { FeedSink, TaskFeed } from '../runtime/task-feed.js';

export interface GrpcStreamOptions {
  maxBufferedBytes: number;
  logger: Logger;
  /** One event as the bytes of the version's `StreamResponse`. */
  encode(event: StreamEvent): Buffer;
  /** The streams open now, counted up when one starts and down when it is over (stats().openStreams). */
  open: { count: number };
}

type Phase = 'streaming' | 'over';

export class GrpcFeedWriter implements FeedSink {
  private phase: Phase = 'streaming';
  /** The stream refused a write: it waits for `drain`. */
  private blocked = false;
  /** Bytes written since the stream last refused a write. */
  private heldBytes = 0;
  private drainWaiter: (() => void) | undefined;

  constructor(
    private readonly call: ServerWritableStream<unknown, Buffer>,
    private readonly feed: TaskFeed,
    private readonly opts: GrpcStreamOptions,
  ) {
    // Counted from here: every way over (end, failure, cut, cancel) passes toOver once.
    opts.open.count++;
    call.on('cancelled', () => this.toOver());
    call.on('drain', () => {
      this.blocked = false;
      this.heldBytes = 0;
      const resume = this.drainWaiter;
      this.drainWaiter = undefined;
      if (resume && this.phase === 'streaming') resume();
    });
  }

  start(): void {
    try {
      this.feed.start(this);
    } catch (err) {
      this.fail(err);
    }
  }

  event(event: StreamEvent): boolean {
    if (this.phase === 'over') return false;
    const bytes = this.opts.encode(event);
    if (this.blocked) {
      this.heldBytes += bytes.length;
      if (this.heldBytes > this.opts.maxBufferedBytes) {
        this.cutOff(`more than ${this.opts.maxBufferedBytes} bytes waited for the client`);
        return false;
      }
    }
    if (!this.call.write(bytes)) this.blocked = true;
    return !this.blocked;
  }

  onDrain(resume: () => void): void {
    if (!this.blocked) resume();
    else this.drainWaiter = resume;
  }

  end(): void {
    if (this.phase === 'over') return;
    this.toOver();
    this.call.end();
  }

  fellBehind(): void {
    this.cutOff('the client fell further behind than the event log can replay');
  }

  fail(err: unknown): void {
    this.opts.logger.error('grpc.feed_failed', { taskId: this.feed.taskId, ...errorFields(err) });
    this.finish(GrpcCode.INTERNAL, 'Internal error');
  }

  /** UNAVAILABLE: the client may subscribe again and catch up from the task. */
  private cutOff(reason: string): void {
    this.opts.logger.warn('grpc.stream_cut', { taskId: this.feed.taskId, reason, limit: this.opts.maxBufferedBytes });
    this.finish(GrpcCode.UNAVAILABLE, `stream closed: ${reason}; subscribe again`);
  }

  private finish(code: GrpcCode, details: string): void {
    if (this.phase === 'over') return;
    this.toOver();
    this.call.emit('error', { code, details });
  }

  private toOver(): void {
    if (this.phase === 'over') return;
    this.phase = 'over';
    this.opts.open.count--;
    this.drainWaiter = undefined;
    this.feed.cancel();
  }
}
