/**
 * The write chain of running tasks (src/runtime/task-writes.ts) at its seam, over the real
 * memory store behind a gate that can hold, fail or reorder writes: order per task, one
 * visibility write, coalesced progress writes on one ticker (one in flight per task), and a
 * final write retried while the store is away.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Message, Task } from '../../src/a2a/schemas.js';
import { silentLogger } from '../../src/log.js';
import { LiveTask } from '../../src/runtime/live-task.js';
import { TaskWriter } from '../../src/runtime/task-writes.js';
import { MemoryTaskStore } from '../../src/store/memory.js';
import type { MessageKey } from '../../src/store/types.js';

/** The memory store, with each write's fate decided by the test. */
class GatedStore extends MemoryTaskStore {
  /** Every write, in the order it reached the store: state and owner. */
  readonly applied: { state: string; owner: string | undefined }[] = [];
  failWrites = 0;
  /** Delay per write, by call order (ms); lets a later write finish before an earlier one would. */
  delays: number[] = [];
  private calls = 0;

  override async saveTask(task: Task, key?: MessageKey, json?: string, owner?: string): Promise<void> {
    const delay = this.delays[this.calls++] ?? 0;
    if (delay) await new Promise((r) => setTimeout(r, delay));
    if (this.failWrites > 0) {
      this.failWrites--;
      throw new Error('store away');
    }
    this.applied.push({ state: task.status.state, owner });
    return super.saveTask(task, key, json, owner);
  }
}

const message: Message = { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }] };
const liveTask = (mode: 'progress' | 'stream' = 'progress', owner?: string): LiveTask => {
  const task: Task = {
    kind: 'task',
    id: `t-${Math.random()}`,
    contextId: 'c',
    status: { state: 'working', timestamp: new Date().toISOString() },
    history: [message],
  };
  const live = new LiveTask(task, message, { firstTurn: true, mode, ...(owner ? { owner } : {}) });
  live.run.expose();
  return live;
};

const writers: TaskWriter[] = [];
const writerOn = (store: GatedStore, settings = { progressFlushInterval: 0.02, storeRetryWindow: 1 }) => {
  const writer = new TaskWriter(store, silentLogger, settings);
  writers.push(writer);
  return writer;
};
afterEach(() => {
  for (const w of writers.splice(0)) w.close();
});

describe('TaskWriter', () => {
  it("applies one task's writes in the order they were made, even when the store would finish them out of order", async () => {
    const store = new GatedStore();
    const writer = writerOn(store);
    const live = liveTask('progress', 'alice');
    // The visibility write is slow; the final write behind it is fast.
    store.delays = [60, 0];
    const visible = writer.ensureVisible(live);
    live.task.status = { state: 'completed', timestamp: new Date().toISOString() };
    const final = writer.writeFinal(live);
    const [, json] = await Promise.all([visible, final]);
    expect(store.applied).toEqual([
      { state: 'working', owner: 'alice' },
      { state: 'completed', owner: 'alice' },
    ]);
    expect((await store.getTask(live.id, 'alice'))?.status.state).toBe('completed');
    expect(json).toBe(JSON.stringify(live.task));
  });

  it('makes a task visible with one write, and says 503 (and may try again) when the store is away', async () => {
    const store = new GatedStore();
    const writer = writerOn(store);
    const live = liveTask();
    store.failWrites = 1;
    await expect(writer.ensureVisible(live)).rejects.toMatchObject({ entry: { id: 'unavailable' } });
    await writer.ensureVisible(live);
    await writer.ensureVisible(live);
    expect(store.applied).toHaveLength(1);
  });

  it('coalesces progress writes: many schedules, one write per task per tick, streamed or not, no ticker left when idle', async () => {
    const store = new GatedStore();
    const writer = writerOn(store);
    const polled = liveTask('progress');
    const streamed = liveTask('stream');
    for (let i = 0; i < 5; i++) {
      writer.scheduleFlush(polled);
      writer.scheduleFlush(streamed);
    }
    expect(writer.pendingFlushes).toBe(2);
    await new Promise((r) => setTimeout(r, 60));
    expect(store.applied).toHaveLength(2);
    expect(writer.pendingFlushes).toBe(0);
    // A cancelled flush writes nothing.
    writer.scheduleFlush(polled);
    writer.cancelFlush(polled);
    await new Promise((r) => setTimeout(r, 60));
    expect(store.applied).toHaveLength(2);
  });

  it('keeps one progress write per task in flight: a slow store gets the next one later, with all changes since', async () => {
    const store = new GatedStore();
    const writer = writerOn(store);
    const live = liveTask();
    // The first write takes five windows; the task changes all along.
    store.delays = [100];
    const started = Date.now();
    for (let i = 1; Date.now() - started < 150; i++) {
      live.task.status = { state: 'working', timestamp: new Date().toISOString(), message: { ...message, messageId: `s${i}` } };
      writer.scheduleFlush(live);
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 150));
    // Ticks every 20 ms: one write queued per tick would be seven or more.
    expect(store.applied.length).toBeGreaterThanOrEqual(2);
    expect(store.applied.length).toBeLessThanOrEqual(4);
    expect((await store.getTask(live.id))?.status.message?.messageId).toBe(live.task.status.message?.messageId);
  });

  it('retries the final write while the store is away, within the window, and gives up after it', async () => {
    const store = new GatedStore();
    const writer = writerOn(store, { progressFlushInterval: 1, storeRetryWindow: 1 });
    const back = liveTask();
    store.failWrites = 2;
    expect(await writer.writeFinal(back)).toBe(JSON.stringify(back.task));
    expect(store.applied).toHaveLength(1);

    const lost = liveTask();
    store.failWrites = 100;
    const started = Date.now();
    expect(await writer.writeFinal(lost)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('records the idempotency key with the first write that succeeds, once', async () => {
    const store = new GatedStore();
    const writer = writerOn(store);
    const live = liveTask();
    live.run.recordMessage({ scope: 's', messageId: 'm1' });
    store.failWrites = 1;
    await expect(writer.ensureVisible(live)).rejects.toBeDefined();
    expect(live.run.messageKey).toBeDefined();
    await writer.ensureVisible(live);
    expect(live.run.messageKey).toBeUndefined();
    expect(await store.findTaskIdByMessage('s', 'm1')).toBe(live.id);
  });
});
