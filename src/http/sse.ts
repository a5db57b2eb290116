/**
 * Server-sent events on a uWS response (wire reference §2.3, §3.4): `id:` + one-line `data:`
 * per event, a `: ping` heartbeat, and a cap on what a slow reader can make us buffer. Past the
 * cap the stream is closed; the client resumes with `Last-Event-ID`.
 */
import type { HttpResponse } from 'uWebSockets.js';
import type { Logger } from '../log.js';
import type { StreamEvent } from '../protocol/schemas.js';
import type { TaskFeed } from '../runtime/task-feed.js';

export interface SseLimits {
  heartbeatMs: number;
  /** Bytes a stream may have waiting in uWS's buffer before it is closed. */
  maxBufferedBytes: number;
}

export class SseWriter {
  private ended = false;
  private buffered = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopFeed: () => void = () => {};

  constructor(
    private readonly res: HttpResponse,
    private readonly limits: SseLimits,
    private readonly logger: Logger,
    private readonly onDone: () => void,
  ) {}

  private open(): void {
    this.res.cork(() => {
      this.res
        .writeStatus('200 OK')
        .writeHeader('Content-Type', 'text/event-stream')
        .writeHeader('Cache-Control', 'no-cache')
        .writeHeader('Connection', 'keep-alive')
        .writeHeader('X-Accel-Buffering', 'no');
    });
    this.res.onWritable(() => {
      this.buffered = 0;
      return true;
    });
  }

  /** Streams a feed until its final event or until either side goes away. */
  run(feed: TaskFeed, frame: (event: StreamEvent) => string): void {
    this.open();
    this.heartbeat = setInterval(() => this.write(': ping\n\n'), this.limits.heartbeatMs);
    this.heartbeat.unref();
    this.stopFeed = feed.start({
      event: (event, seq) => this.write(`${seq === undefined ? '' : `id: ${seq}\n`}data: ${frame(event)}\n\n`),
      end: () => this.finish(),
    });
  }

  /** One event, then the end (an error found once the stream was due). */
  single(data: string): void {
    this.open();
    this.write(`data: ${data}\n\n`);
    this.finish();
  }

  private write(chunk: string): void {
    if (this.ended) return;
    let ok = true;
    this.res.cork(() => {
      ok = this.res.write(chunk);
    });
    if (ok) return;
    this.buffered += Buffer.byteLength(chunk);
    if (this.buffered > this.limits.maxBufferedBytes) {
      this.logger.warn('sse.slow_consumer_closed', { bufferedBytes: this.buffered, limit: this.limits.maxBufferedBytes });
      this.release();
      this.res.close();
    }
  }

  private finish(): void {
    if (this.ended) return;
    this.release();
    this.res.cork(() => {
      this.res.end();
    });
  }

  private release(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.stopFeed();
    this.onDone();
  }

  /** The client went away: release the subscription at once (the task keeps running). */
  abort(): void {
    this.release();
  }

  /** The server is shutting down. */
  close(): void {
    if (this.ended) return;
    this.release();
    this.res.cork(() => {
      this.res.end();
    });
  }
}
