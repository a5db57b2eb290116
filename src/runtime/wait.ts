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

/** Resolves with the promise's value, or undefined after `ms` (or if it rejects); the deadline is dropped either way. */
export function waitFor<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let queue = queues.get(ms);
  if (!queue) queues.set(ms, (queue = new DeadlineQueue(ms)));
  const waits = queue;
  return new Promise((resolve) => {
    const deadline = waits.add(() => resolve(undefined));
    const settle = (value: T | undefined): void => {
      waits.cancel(deadline);
      resolve(value);
    };
    promise.then(settle, () => settle(undefined));
  });
}
