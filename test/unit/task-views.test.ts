/** How a message enters a task's history (src/runtime/task-views.ts). */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/a2a/schemas.js';
import { messageInTask } from '../../src/runtime/task-views.js';

describe('messageInTask', () => {
  it('is the message with the task and context ids, keys in the same order as a spread copy, whatever the message holds', () => {
    const messages: Message[] = [
      { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'hi' }], messageId: 'm1' },
      { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'hi' }], messageId: 'm2', contextId: 'c-old' },
      { role: 'user', kind: 'message', parts: [{ kind: 'text', text: 'hi' }], messageId: 'm3' },
      { kind: 'message', role: 'user', parts: [], messageId: 'm4', metadata: { a: 1 }, extensions: ['x'] },
    ];
    for (const message of messages) {
      const stored = messageInTask(message, 't1', 'c1');
      const spread = { ...message, taskId: 't1', contextId: 'c1' };
      expect(JSON.stringify(stored)).toBe(JSON.stringify(spread));
      expect(stored).toEqual(spread);
      expect(stored).not.toBe(message);
      expect(stored.parts).toBe(message.parts);
    }
  });
});
