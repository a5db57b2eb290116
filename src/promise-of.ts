/**
 * The one "sync or promise" shortcut of the hot path. An `async` function allocates a promise
 * and resumes on a microtask for every await; a request that waits for nothing of its own can
 * hand back the promise of the step it ends with. What such a function must keep from `async` is
 * that a throw reaches its caller as a rejection, never as an exception: `promiseOf` gives
 * exactly that. Anywhere off the request path, write a plain `async` function instead.
 */

/** Runs `step` now; its value, its promise, or its throw as a rejected promise. */
export function promiseOf<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    const value = step();
    return value instanceof Promise ? value : Promise.resolve(value);
  } catch (err) {
    return Promise.reject(err);
  }
}
