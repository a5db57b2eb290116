/** One queue and one timer for waits of one length (src/runtime/deadlines.ts, wait.ts). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeadlineQueue } from '../../src/runtime/deadlines.js';
import { waitFor } from '../../src/runtime/wait.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('DeadlineQueue', () => {
  it('expires waits in order at their deadline, skips ended ones, and keeps no timer when empty', () => {
    vi.useFakeTimers();
    const queue = new DeadlineQueue(100);
    const fired: string[] = [];
    const a = queue.add(() => fired.push('a'));
    vi.advanceTimersByTime(30);
    const b = queue.add(() => fired.push('b'));
    queue.add(() => fired.push('c'));
    queue.cancel(b);
    expect(queue.pending).toBe(2);
    vi.advanceTimersByTime(69);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['a']);
    queue.cancel(a);
    vi.advanceTimersByTime(30);
    expect(fired).toEqual(['a', 'c']);
    expect(queue.pending).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an ended wait at the front lets the timer go once nothing waits', () => {
    vi.useFakeTimers();
    const queue = new DeadlineQueue(100);
    const expired = vi.fn();
    const a = queue.add(expired);
    const b = queue.add(expired);
    queue.cancel(a);
    expect(vi.getTimerCount()).toBe(1);
    queue.cancel(b);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(200);
    expect(expired).not.toHaveBeenCalled();
  });

  it('a wait added by an expiry gets its own deadline', () => {
    vi.useFakeTimers();
    const queue = new DeadlineQueue(50);
    const fired: number[] = [];
    queue.add(() => {
      fired.push(Date.now());
      queue.add(() => fired.push(Date.now()));
    });
    const start = Date.now();
    vi.advanceTimersByTime(200);
    expect(fired.map((t) => t - start)).toEqual([50, 100]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('waitFor', () => {
  it('resolves with the value, or undefined at the deadline or on rejection', async () => {
    expect(await waitFor(Promise.resolve(7), 1000)).toBe(7);
    expect(await waitFor(Promise.reject(new Error('x')), 1000)).toBeUndefined();
    expect(await waitFor(new Promise<number>(() => {}), 20)).toBeUndefined();
  });
});
