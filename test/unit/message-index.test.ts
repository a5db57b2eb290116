/** Idempotency keys at their seam (src/runtime/message-index.ts), over the real memory store. */
import { describe, expect, it } from 'vitest';
import type { Message, Task } from '../../src/a2a/schemas.js';
import { LiveTask } from '../../src/runtime/live-task.js';
import { MessageIndex } from '../../src/runtime/message-index.js';
import { MemoryTaskStore } from '../../src/store/memory.js';

const message = (extra: Partial<Message> = {}): Message => ({
  kind: 'message',
  role: 'user',
  messageId: 'm1',
  parts: [{ kind: 'text', text: 'hi' }],
  ...extra,
});

describe('MessageIndex', () => {
  it('scopes a message by task, else context, else none; with auth per principal, unambiguously', () => {
    const index = new MessageIndex(new MemoryTaskStore());
    expect(index.scopeOf(message({ taskId: 't', contextId: 'c' }), undefined)).toBe('t');
    expect(index.scopeOf(message({ contextId: 'c' }), undefined)).toBe('c');
    expect(index.scopeOf(message(), undefined)).toBe('');
    const alice = index.scopeOf(message({ contextId: 'c' }), 'alice');
    expect(alice).not.toBe(index.scopeOf(message({ contextId: 'c' }), 'bob'));
    // An owner and a context that run into each other when joined still give two scopes.
    expect(index.scopeOf(message({ contextId: 'b:c' }), 'a')).not.toBe(index.scopeOf(message({ contextId: 'c' }), 'a:b'));
  });

  it('answers from memory while the task runs, from the store once written, and forgets the memory when the task leaves', async () => {
    const store = new MemoryTaskStore();
    const index = new MessageIndex(store);
    const task: Task = { kind: 'task', id: 'task-1', contextId: 'c', status: { state: 'working', timestamp: new Date().toISOString() } };
    const live = new LiveTask(task, message(), { firstTurn: true, mode: 'progress' });
    index.remember(live, 's', 'm1');
    expect(await index.taskIdFor('s', 'm1')).toBe('task-1');
    expect(live.run.messageKey).toEqual({ scope: 's', messageId: 'm1' });
    expect(await index.taskIdFor('s', 'm2')).toBeUndefined();
    // The task leaves memory without ever being written (a direct reply): no record remains.
    live.finish({ kind: 'task' });
    await live.settled;
    await Promise.resolve();
    expect(await index.taskIdFor('s', 'm1')).toBeUndefined();
    // Written with its key: the store answers.
    await store.saveTask(task, { scope: 's', messageId: 'm1' });
    expect(await index.taskIdFor('s', 'm1')).toBe('task-1');
  });
});
