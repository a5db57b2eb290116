/** The runtime's waits, in one place: every timer here ends or is unref'd, none outlives its wait. */
import { DeadlineQueue } from './deadlines.js';

/** Resolves after `ms`; `unref`: the timer alone does not keep the process up. */
export function sleep(ms: number, opts: { unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (opts.unref) timer.unref();
  });
}

/**
 * One queue (and one timer) per wait length: the runtime uses a few, from fixed settings
 * (deadlines.ts says why). Every wait holds on to its own queue, so a queue dropped from here
 * still expires the waits it has and is then collected: the map is only where new waits find a
 * queue, and is kept to a few lengths so that many distinct lengths (servers with different
 * settings in one process, say) do not pile up empty queues for good.
 */
const queues = new Map<number, DeadlineQueue>();
const MAX_QUEUES = 8;

/** The queue for new waits that last `ms`. */
function deadlineQueue(ms: number): DeadlineQueue {
  let queue = queues.get(ms);
  if (!queue) {
    if (queues.size >= MAX_QUEUES) dropAQueue();
    queues.set(ms, (queue = new DeadlineQueue(ms)));
  }
  return queue;
}

/** Drops a queue with no wait pending, else the oldest (its waits still expire on time). */
function dropAQueue(): void {
  for (const [ms, queue] of queues) {
    if (queue.idle) return void queues.delete(ms);
  }
  for (const ms of queues.keys()) return void queues.delete(ms);
}

/** How many wait lengths have a queue kept for new waits (for tests). */
export const keptQueues = (): number => queues.size;

/**
 * Where a wait registers the callback that settles it, to be called once with the awaited value
 * (or undefined when the awaited thing fails). A list of waiters is one as it stands.
 */
export interface Waiters<T> {
  push(settle: (value: T | undefined) => void): unknown;
}

/**
 * What the callback registered with `waiters` is called with, or undefined after `ms`; the
 * deadline is dropped either way. One promise per wait: the callback resolves it directly, and
 * the deadline's expiry is `resolve` itself (the queue calls it with no argument), so no closure
 * is made for it.
 */
export function waitWithin<T>(waiters: Waiters<T>, ms: number): Promise<T | undefined> {
  const waits = deadlineQueue(ms);
  return new Promise((resolve) => {
    const deadline = waits.add(resolve as () => void);
    waiters.push((value) => {
      waits.cancel(deadline);
      resolve(value);
    });
  });
}

/** Resolves with the promise's value, or undefined after `ms` (or if it rejects). */
export const waitFor = <T>(promise: Promise<T>, ms: number): Promise<T | undefined> =>
  waitWithin<T>({ push: (settle) => promise.then(settle, () => settle(undefined)) }, ms);
