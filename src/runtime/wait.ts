/** The runtime's waits, in one place: every timer here ends or is unref'd, none outlives its wait. */
import { DeadlineQueue } from './deadlines.js';

/** Resolves after `ms`; `unref`: the timer alone does not keep the process up. */
export function sleep(ms: number, opts: { unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (opts.unref) timer.unref();
  });
}

/** One queue (and one timer) per wait length: the runtime uses a few fixed ones (deadlines.ts says why). */
const queues = new Map<number, DeadlineQueue>();

/** The queue of every wait that lasts `ms`. */
export function deadlineQueue(ms: number): DeadlineQueue {
  let queue = queues.get(ms);
  if (!queue) queues.set(ms, (queue = new DeadlineQueue(ms)));
  return queue;
}

/**
 * A deadline that resolves `resolve` with undefined: `resolve` itself is the expiry (the queue
 * calls it with no argument), so a wait costs no closure for it.
 */
export const expiryOf = (resolve: (value: undefined) => void): (() => void) => resolve as () => void;

/** Resolves with the promise's value, or undefined after `ms` (or if it rejects); the deadline is dropped either way. */
export function waitFor<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  const waits = deadlineQueue(ms);
  return new Promise((resolve) => {
    const deadline = waits.add(expiryOf(resolve));
    const settle = (value: T | undefined): void => {
      waits.cancel(deadline);
      resolve(value);
    };
    promise.then(settle, () => settle(undefined));
  });
}
