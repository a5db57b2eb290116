/** The runtime's waits, in one place: every timer here ends or is unref'd, none outlives its wait. */

/** Resolves after `ms`; `unref`: the timer alone does not keep the process up. */
export function sleep(ms: number, opts: { unref?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (opts.unref) timer.unref();
  });
}

/** Resolves with the promise's value, or undefined after `ms` (or if it rejects); the timer is cleared either way. */
export function waitFor<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    const settle = (value: T | undefined): void => {
      clearTimeout(timer);
      resolve(value);
    };
    promise.then(settle, () => settle(undefined));
  });
}
