/** One queue and one timer for waits of one length (src/runtime/deadlines.ts, wait.ts). */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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

  it('once nothing waits, its timer holds no process up and goes at its deadline without expiring anything', () => {
    vi.useFakeTimers();
    const queue = new DeadlineQueue(100);
    const expired = vi.fn();
    const a = queue.add(expired);
    const b = queue.add(expired);
    queue.cancel(a);
    expect(vi.getTimerCount()).toBe(1);
    expect(queue.idle).toBe(false);
    expect(queue.holdsProcess).toBe(true);
    queue.cancel(b);
    expect(queue.idle).toBe(true);
    expect(queue.holdsProcess).toBe(false);
    vi.advanceTimersByTime(100);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(100);
    expect(expired).not.toHaveBeenCalled();
  });

  it('a wait added to an idle queue reuses its timer, which re-arms for the new deadline', () => {
    vi.useFakeTimers();
    const queue = new DeadlineQueue(100);
    const start = Date.now();
    const fired: number[] = [];
    // One task after another, each ending its wait at once: one timer serves them all.
    for (let i = 0; i < 50; i++) queue.cancel(queue.add(() => fired.push(-1)));
    expect(vi.getTimerCount()).toBe(1);
    expect(queue.holdsProcess).toBe(false);
    vi.advanceTimersByTime(60);
    queue.add(() => fired.push(Date.now() - start));
    expect(queue.holdsProcess).toBe(true);
    expect(vi.getTimerCount()).toBe(1);
    // The old timer fires at 100, finds the new wait not due and re-arms for 160.
    vi.advanceTimersByTime(40);
    expect(fired).toEqual([]);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(59);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([160]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a queue left idle on a real timer arms a fake one for a wait made under fake timers', () => {
    const queue = new DeadlineQueue(100);
    queue.cancel(queue.add(() => {}));
    vi.useFakeTimers();
    const expired = vi.fn();
    queue.add(expired);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(100);
    expect(expired).toHaveBeenCalledOnce();
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

describe('a real process with a DeadlineQueue', () => {
  const ROOT = fileURLToPath(new URL('../..', import.meta.url));
  /** Runs a script with DeadlineQueue and `started` in scope under node; resolves with what it printed once it exits. */
  const run = (script: string): Promise<{ out: string }> => {
    const source = `import { DeadlineQueue } from './src/runtime/deadlines.ts';\nconst started = Date.now();\n${script}`;
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', source],
        { cwd: ROOT, timeout: 30_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve({ out: stdout.trim() })),
      );
    });
  };

  it('exits on its own once every wait has ended, though the idle timer is still armed for ten minutes', async () => {
    // Were the idle timer still ref'd, the process would live ten minutes and execFile's 30 s timeout would fail this.
    const { out } = await run(`const q = new DeadlineQueue(600_000);
for (let i = 0; i < 3; i++) q.cancel(q.add(() => console.log('expired')));
console.log(q.idle, q.holdsProcess);`);
    expect(out).toBe('true false');
  });

  it('stays up for a pending wait on a reused timer and expires it at its deadline', async () => {
    const { out } = await run(`const q = new DeadlineQueue(300);
q.cancel(q.add(() => console.log('ended wait expired')));
setTimeout(() => q.add(() => console.log('expired after', Date.now() - started >= 400)), 100);`);
    expect(out).toBe('expired after true');
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
    expect(await waiting).toBe('done');
    await vi.advanceTimersByTimeAsync(1000);
    expect(vi.getTimerCount()).toBe(0);
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
    expect(await waiting).toEqual({ kind: 'task' });
    expect(await running.waitTurnEndWithin(1000)).toEqual({ kind: 'task' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(vi.getTimerCount()).toBe(0);
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
