/**
 * Idempotency (spec "message/send"): which task a (scope, messageId) already produced. The
 * scope is the task the message continues, else its context, else none; with auth on it is
 * per principal too. Tasks in memory answer ahead of the store, whose record is written with
 * the task's first write (so a direct reply, never written, leaves none).
 */
import type { Message } from '../a2a/schemas.js';
import type { TaskStore } from '../store/types.js';
import type { LiveTask, MessageIndexEntry } from './live-task.js';
import { promiseOf } from '../promise-of.js';

const keyOf = (scope: string, messageId: string): string => `${scope}\u0000${messageId}`;

export class MessageIndex implements MessageIndexEntry {
  private readonly inMemory = new Map<string, string>();

  constructor(private readonly store: TaskStore) {}

  /**
   * The message's scope. The same messageId (or contextId) from two callers is two messages:
   * the owner's length makes the key unambiguous whatever either part contains.
   */
  scopeOf(message: Message, owner: string | undefined): string {
    const scope = message.taskId ?? message.contextId ?? '';
    return owner === undefined ? scope : `${owner.length}:${owner}:${scope}`;
  }

  /** On the request path: the store's promise is handed on as it is (promiseOf, src/promise-of.ts). */
  taskIdFor(scope: string, messageId: string): Promise<string | undefined> {
    return promiseOf(() => this.inMemory.get(keyOf(scope, messageId)) ?? this.store.findTaskIdByMessage(scope, messageId));
  }

  /** The message started this live task: known here now, in the store from its first write. */
  remember(live: LiveTask, scope: string, messageId: string): void {
    const key = keyOf(scope, messageId);
    this.inMemory.set(key, live.id);
    live.run.recordMessage({ scope, messageId });
    live.indexedAs(this, key);
  }

  /** The task that started with this key has left memory (LiveTask.finish). */
  forget(key: string): void {
    this.inMemory.delete(key);
  }
}
