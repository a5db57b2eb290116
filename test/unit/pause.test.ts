/** `pause`: the wait agent handlers and webhook retries use, cut short by a cancel (src/pause.ts). */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pause } from '../../src/index.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Resolves to whether `promise` has settled, after the pending microtasks ran. */
const settled = async (promise: Promise<void>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
};

describe('pause', () => {
  it('resolves after its time, and leaves no timer or listener', async () => {
    vi.useFakeTimers();
    const signal = new AbortController().signal;
    const waiting = pause(100, signal);
    await vi.advanceTimersByTimeAsync(99);
    expect(await settled(waiting)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waiting)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('a cancel ends it at once, and takes its timer and listener with it', async () => {
    vi.useFakeTimers();
    const cancel = new AbortController();
    const waiting = pause(60_000, cancel.signal);
    expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(1);
    cancel.abort();
    expect(await settled(waiting)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(0);
  });

  it('after a cancel, or for no time, it does not wait at all', async () => {
    vi.useFakeTimers();
    const cancel = new AbortController();
    cancel.abort();
    const waiting = pause(60_000, cancel.signal);
    expect(vi.getTimerCount()).toBe(0);
    expect(await settled(waiting)).toBe(true);
    expect(await settled(pause(0))).toBe(true);
  });

  it('without a signal it waits its whole time', async () => {
    vi.useFakeTimers();
    const waiting = pause(50);
    await vi.advanceTimersByTimeAsync(49);
    expect(await settled(waiting)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waiting)).toBe(true);
  });
});
