/**
 * The streams each caller holds open (docs/configuration.md, "Limits and quotas"), counted per caller as
 * caller-quotas.ts says. Apart from the live-task count, which the runtime's task table keeps:
 * a stream is a feed, and the feeds know the task service.
 */
import { CallerCounts, overQuota } from './caller-quotas.js';
import type { FeedSink, TaskFeed } from './task-feed.js';

/**
 * The streams each caller has open. `open` takes a slot before the stream's work starts (a
 * refused `message:stream` starts no task) and the stream gives it back when it ends, once.
 */
export class StreamQuota {
  private readonly counts = new CallerCounts();

  constructor(private readonly maxPerCaller: number) {}

  /** Streams `owner` holds now. */
  heldBy(owner: string | undefined): number {
    return this.counts.of(owner);
  }

  /** Runs `start` in a slot of `owner`'s; the slot is freed when the feed `start` made is cancelled. */
  async open(owner: string | undefined, start: () => Promise<TaskFeed>): Promise<TaskFeed> {
    if (this.counts.of(owner) >= this.maxPerCaller) {
      throw overQuota(`a caller may hold ${this.maxPerCaller} streams at once (SERVICE_MAX_STREAMS_PER_CALLER)`);
    }
    this.counts.add(owner);
    let feed: TaskFeed;
    try {
      feed = await start();
    } catch (err) {
      this.counts.remove(owner);
      throw err;
    }
    return new HeldFeed(feed, () => this.counts.remove(owner));
  }
}

/** A feed holding a stream slot: its cancel (every stream's end calls it) frees the slot, once. */
class HeldFeed implements TaskFeed {
  constructor(
    private readonly inner: TaskFeed,
    private release: (() => void) | undefined,
  ) {}

  get taskId(): string {
    return this.inner.taskId;
  }

  start(sink: FeedSink): void {
    this.inner.start(sink);
  }

  cancel(): void {
    const release = this.release;
    this.release = undefined;
    release?.();
    this.inner.cancel();
  }
}
