/**
 * The time limit of one turn of the handler (SERVICE_TURN_TIMEOUT). A handler that never returns
 * would leave its task working for good, with nobody told: past the limit the task's machine
 * gets TURN_TIMEOUT, which fails the task and fires the handler's signal, and the task ends as
 * any other does (stored, then streamed and pushed). A turn's deadline starts with the handler
 * and is dropped when the handler settles or the task leaves memory, so work left running after
 * `continueInBackground()` is not limited.
 *
 * Every turn gets the same limit, so their deadlines share one queue and one timer
 * (deadlines.ts says why): no timer per turn, and none at all with the limit off.
 */
import { DeadlineQueue, type Deadline } from './deadlines.js';

/** Turns of `T` (the runtime's live tasks), one running at a time per task. */
export class TurnLimit<T extends object> {
  private readonly queue: DeadlineQueue;
  /** The deadline of each running turn, by task. */
  private readonly deadlines = new WeakMap<T, Deadline>();

  /** `expired` is called once for a turn still running when `seconds` have passed. */
  constructor(
    readonly seconds: number,
    private readonly expired: (live: T) => void,
  ) {
    this.queue = new DeadlineQueue(seconds * 1000);
  }

  /** The handler starts a turn of `live`. */
  started(live: T): void {
    this.ended(live);
    this.deadlines.set(
      live,
      this.queue.add(() => {
        this.deadlines.delete(live);
        this.expired(live);
      }),
    );
  }

  /** The turn of `live` is over (its handler settled, or the task left memory). */
  ended(live: T): void {
    const deadline = this.deadlines.get(live);
    if (deadline === undefined) return;
    this.deadlines.delete(live);
    this.queue.cancel(deadline);
  }

  /** Turns whose deadline is pending (for leak checks). */
  get pending(): number {
    return this.queue.pending;
  }

  /** Whether the limit's timer keeps the process up: only while a turn runs (for tests). */
  get holdsProcess(): boolean {
    return this.queue.holdsProcess;
  }
}

/** The limit for `seconds` (SERVICE_TURN_TIMEOUT); undefined when it is 0: no limit. */
export function turnLimitOf<T extends object>(seconds: number | undefined, expired: (live: T) => void): TurnLimit<T> | undefined {
  return seconds === undefined || seconds <= 0 ? undefined : new TurnLimit(seconds, expired);
}
