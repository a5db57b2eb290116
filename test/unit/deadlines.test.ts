/** One queue and one timer for waits of one length (src/runtime/deadlines.ts, wait.ts). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeadlineQueue } from '../../src/runtime/deadlines.js';
import { keptQueues, waitFor, waitWithin } from '../../src/runtime/wait.js';
import { LiveTask } from '../../src/runtime/live-task.js';
import type { Message, Task } from '../../src/a2a/schemas.js';

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
    expect(queue.idle).toBe(false);
    queue.cancel(b);
    expect(vi.getTimerCount()).toBe(0);
    expect(queue.idle).toBe(true);
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

describe('waitWithin', () => {
  it('resolves with what the registered callback is called with, and drops the deadline so no timer is left', async () => {
    vi.useFakeTimers();
    const waiters: ((value: string | undefined) => void)[] = [];
    const waiting = waitWithin<string>(waiters, 1000);
    expect(vi.getTimerCount()).toBe(1);
    waiters[0]?.('done');
    expect(vi.getTimerCount()).toBe(0);
    expect(await waiting).toBe('done');
  });

  it('resolves with undefined at the deadline, and a late callback changes nothing', async () => {
    vi.useFakeTimers();
    const waiters: ((value: string | undefined) => void)[] = [];
    let result: string | undefined = 'pending';
    void waitWithin<string>(waiters, 1000).then((value) => (result = value));
    await vi.advanceTimersByTimeAsync(999);
    expect(result).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toBeUndefined();
    waiters[0]?.('late');
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("a blocking send's wait for the end of the turn", () => {
  const message: Message = { kind: 'message', role: 'user', messageId: 'm', parts: [{ kind: 'text', text: 'hi' }] };
  const task: Task = { kind: 'task', id: 't', contextId: 'c', status: { state: 'working', timestamp: new Date().toISOString() } };
  const live = () => new LiveTask(task, message, { firstTurn: true, mode: 'progress' });

  it('gets the outcome when the turn ends first, and leaves no timer', async () => {
    vi.useFakeTimers();
    const running = live();
    const waiting = running.waitTurnEndWithin(1000);
    running.finish({ kind: 'task' });
    expect(vi.getTimerCount()).toBe(0);
    expect(await waiting).toEqual({ kind: 'task' });
    expect(await running.waitTurnEndWithin(1000)).toEqual({ kind: 'task' });
  });

  it('gets undefined at the deadline while the turn goes on', async () => {
    vi.useFakeTimers();
    const running = live();
    let result: unknown = 'pending';
    void running.waitTurnEndWithin(1000).then((outcome) => (result = outcome));
    await vi.advanceTimersByTimeAsync(999);
    expect(result).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toBeUndefined();
    running.finish({ kind: 'task' });
    await vi.advanceTimersByTimeAsync(0);
    expect(result).toBeUndefined();
  });
});

describe('waits of many lengths', () => {
  it('keep a few queues however many lengths are asked for, and every wait still expires on time', async () => {
    vi.useFakeTimers();
    const start = Date.now();
    const lengths = Array.from({ length: 200 }, (_, i) => 10 + i * 7);
    const expired: number[] = [];
    // All 200 wait at once, so queues still holding waits are dropped from the map; one wait is
    // settled before its deadline, the others expire.
    const settles: ((value: number | undefined) => void)[] = [];
    const waits = lengths.map((ms, i) =>
      waitWithin<number>(settles, ms).then((value) => {
        if (value === undefined) expired[i] = Date.now() - start;
        return value;
      }),
    );
    expect(keptQueues()).toBeLessThanOrEqual(8);
    settles[199]?.(199);
    await vi.advanceTimersByTimeAsync(lengths.at(-1) as number);
    expect(await waits[199]).toBe(199);
    expect(expired.slice(0, 199)).toEqual(lengths.slice(0, 199));
    expect(keptQueues()).toBeLessThanOrEqual(8);
    expect(vi.getTimerCount()).toBe(0);
  });
});
