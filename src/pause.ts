/**
 * A pause a cancel cuts short, for agent handlers (`await pause(100, ctx.signal)`) and the
 * server's own waits between webhook retries. Unlike `timers/promises`' `setTimeout`, it resolves
 * on abort instead of rejecting: the caller checks `signal.aborted` after it, as after any step.
 */

/** Resolves after `ms`, or at once when `signal` aborts (or already has); leaves no timer or listener behind. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
