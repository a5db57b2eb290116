/**
 * One delivery of a task's events to one streaming client, at the pace the client reads.
 *
 * The run subscribes to the log first (which also keeps the log from being dropped under it),
 * possibly before its client attaches (`hold`), then goes through two phases. Catching up (a replay, or the events of a turn that began
 * before the client attached): events are read from the log a batch at a time and sent only
 * while the client keeps up; when it falls behind, the run waits for the sink to drain and
 * reads the log again from the last number sent, so a long replay never piles up in server
 * memory. Events pushed by the subscription meanwhile are ignored: the next read has them.
 * Live: once a batch is out and the client still keeps up, the run takes pushed events as
 * they come (that switch happens in the same synchronous block as the last read, so nothing
 * falls between); the sink caps what a slow reader can make it hold then. Delivery skips any
 * number already sent: no gap, no duplicate.
 */
import type { StreamEvent, Task } from '../a2a/schemas.js';
import { eventJson, type LoggedEvent, type TaskEventLog } from './event-log.js';

export interface FeedSink {
  /**
   * One event; `seq` becomes the SSE `id:` (absent for a direct reply), `json` is the event's
   * JSON text when the log has it (made once per logged event: packing reuses it). Returns
   * false when the client has not taken what was sent before: a replay then waits for `onDrain`.
   */
  event(event: StreamEvent, seq: number | undefined, json?: string): boolean;
  /**
   * Optional: the events `deliver` sends may be written together (one write for a snapshot and
   * a catch-up). Events and their order are the same; `event`'s answers may only come later.
   */
  batch?(deliver: () => void): void;
  /** Calls `resume` once, when everything sent so far has left the server's buffers. */
  onDrain(resume: () => void): void;
  /** The feed is over: the final event was delivered. */
  end(): void;
  /** The client fell further behind than the log can replay: drop it, so it resumes. */
  fellBehind(): void;
  /** The feed broke (a bug, or the store failed): log it and drop the client, so it resumes. */
  fail(err: unknown): void;
}

const noop = (): void => {};
/** The sink of a run not started yet: nothing reaches it (pushed events wait for `follow`). */
const NOT_STARTED: FeedSink = { event: () => false, onDrain: noop, end: noop, fellBehind: noop, fail: noop };
const isFinal = (event: StreamEvent): boolean => event.kind === 'status-update' && event.final;

/**
 * Every step checks `stopped` after writing, because a write can end the stream (a slow
 * consumer past its cap, a client gone) and release the run synchronously.
 */
export class FeedRun {
  stopped = false;
  private sink = NOT_STARTED;
  private unsubscribe = noop;
  private lastSeq = 0;
  /** The sink refused more: catching up waits for it to drain. */
  private blocked = false;
  /** Reading from the log rather than taking pushed events. */
  private catchingUp = true;

  constructor(
    private readonly events: TaskEventLog,
    private readonly taskId: string,
  ) {}

  /** The client attached: what the run delivers from now on goes to `sink`. */
  start(sink: FeedSink): void {
    this.sink = sink;
  }

  /**
   * Subscribes now, before the run follows: the log is not dropped under it (a turn that ends
   * before the client attaches, with retention 0), and the events it pushes meanwhile are left
   * to `follow`'s read. Released by `stop`; `follow` keeps the same subscription.
   */
  hold(): void {
    if (this.stopped || this.unsubscribe !== noop) return;
    this.unsubscribe = this.events.subscribe(this.taskId, (entry) => {
      if (this.catchingUp) return;
      // A client's stream failing (an event it cannot be sent) ends that stream, never the
      // task whose event log called us.
      try {
        this.deliver(entry);
      } catch (err) {
        this.fail(err);
      }
    });
  }

  /** Runs `deliver` (snapshot, follow) as one batch of the sink's writes, where it batches. */
  batch(deliver: () => void): void {
    if (this.sink.batch) this.sink.batch(deliver);
    else deliver();
  }

  /** A snapshot first; `last`: nothing can follow it (a terminal task, or a turn that ended). */
  snapshot(task: Task, seq: number, last: boolean): void {
    if (this.stopped) return;
    this.blocked = !this.sink.event(task, seq);
    if (last) this.finish();
  }

  /** Delivers `replay` (events after `afterSeq`, read just now), then live events, until a final one. */
  follow(afterSeq: number, replay: readonly LoggedEvent[]): void {
    if (this.stopped) return;
    this.lastSeq = afterSeq;
    this.hold();
    this.catchUp(replay);
  }

  /** A direct reply: the one and only event. */
  message(event: StreamEvent): void {
    if (this.stopped) return;
    this.sink.event(event, undefined);
    this.finish();
  }

  private catchUp(batch: readonly LoggedEvent[]): void {
    for (const entry of batch) {
      if (this.stopped) return;
      if (this.blocked) {
        // The rest of the batch stays in the log; read it again once the client has caught up.
        this.sink.onDrain(() => this.resume());
        return;
      }
      this.deliver(entry);
    }
    if (this.stopped) return;
    if (this.blocked) {
      this.sink.onDrain(() => this.resume());
      return;
    }
    this.catchingUp = false;
  }

  private resume(): void {
    if (this.stopped) return;
    this.blocked = false;
    // A log behind what we sent (dropped, or a restart) has nothing newer: we are caught up.
    const more = this.events.since(this.taskId, this.lastSeq) ?? (this.events.lastSeq(this.taskId) <= this.lastSeq ? [] : undefined);
    if (more) {
      this.batch(() => this.catchUp(more));
      return;
    }
    this.stop();
    this.sink.fellBehind();
  }

  private deliver(entry: LoggedEvent): void {
    if (this.stopped || entry.seq <= this.lastSeq) return;
    this.lastSeq = entry.seq;
    this.blocked = !this.sink.event(entry.event, entry.seq, eventJson(entry));
    if (isFinal(entry.event)) this.finish();
  }

  finish(): void {
    if (this.stopped) return;
    this.stop();
    this.sink.end();
  }

  fail(err: unknown): void {
    if (this.stopped) return;
    this.stop();
    this.sink.fail(err);
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    this.unsubscribe = noop;
  }
}
