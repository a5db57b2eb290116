/**
 * Per-caller quotas (README "Limits and quotas"): how many streams one caller holds open and how
 * many of its tasks live in memory. Past a quota the caller gets 429 with Retry-After; other
 * callers are not affected.
 *
 * A caller is the authenticated principal. Without auth the server cannot tell callers apart
 * (their tasks have no owner either: every caller sees every task), so every request counts
 * against one shared bucket and the quotas are server-wide caps.
 */
import { A2AError, ERRORS } from '../a2a/errors.js';
import type { FeedSink, TaskFeed } from './task-feed.js';

/** The bucket of requests served without a principal (auth off). */
const ANONYMOUS = '';

/**
 * What a refused caller is told to wait: a slot frees as soon as one of its own streams or tasks
 * ends, which the server cannot foresee, so the hint is short.
 */
const RETRY_AFTER_SECONDS = '1';

/** A caller over a quota: 429 (REST, JSON-RPC) / RESOURCE_EXHAUSTED (v1.0), with Retry-After. */
export const overQuota = (detail: string): A2AError =>
  new A2AError(ERRORS.tooManyRequests, detail, undefined, { 'Retry-After': RETRY_AFTER_SECONDS });

/** How many of something each caller holds; a caller holding none has no entry. */
export class CallerCounts {
  private readonly held = new Map<string, number>();

  /** What `owner` (a principal id, or none without auth) holds now. */
  of(owner: string | undefined): number {
    return this.held.get(owner ?? ANONYMOUS) ?? 0;
  }

  add(owner: string | undefined): void {
    const key = owner ?? ANONYMOUS;
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
  }

  remove(owner: string | undefined): void {
    const key = owner ?? ANONYMOUS;
    const left = (this.held.get(key) ?? 0) - 1;
    if (left > 0) this.held.set(key, left);
    else this.held.delete(key);
  }
}

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

/** The refusal of a task past `maxPerCaller` live tasks. */
export const tooManyLiveTasks = (maxPerCaller: number): A2AError =>
  overQuota(`a caller may have ${maxPerCaller} tasks in progress at once (SERVICE_MAX_LIVE_TASKS_PER_CALLER)`);
