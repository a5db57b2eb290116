/** The memory store's compact task text: exact whatever the task holds, and much shorter. */
import { describe, expect, it } from 'vitest';
import { packTask, unpackTask } from '../../src/store/task-text.js';

const id = '01a20e12-159f-714d-80a8-d673113dcde7';
const contextId = '01a20e12-159f-714d-80a8-d803562c1baa';
const at = '2026-11-24T14:59:55.939Z';
const task = {
  kind: 'task',
  id,
  contextId,
  status: { state: 'completed', timestamp: at },
  history: [
    { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'hello from the bench' }], messageId: 'm-1', taskId: id, contextId },
  ],
  metadata: {
    stateTransitions: [
      { state: 'submitted', timestamp: at },
      { state: 'working', timestamp: at },
      { state: 'completed', timestamp: at },
    ],
    _eventSeq: 3,
  },
  artifacts: [{ artifactId: 'echo', parts: [{ kind: 'text', text: 'hello from the bench' }], name: 'echo' }],
};

describe('task text packing', () => {
  it('gives back the exact text, in a third of the bytes for a finished echo task', () => {
    const json = JSON.stringify(task);
    const packed = packTask(json, id, contextId);
    expect(unpackTask(packed, id, contextId)).toBe(json);
    expect(Buffer.byteLength(packed)).toBeLessThan(json.length / 2);
  });

  it('is exact when user data holds the ids, the key sequences, escapes and non-ASCII text', () => {
    const odd = {
      ...task,
      metadata: { note: `"${id}" ,"contextId": "completed" \\u0001 \u0001 \n\t€ 😀`, taskId: id, nested: { contextId } },
    };
    const json = JSON.stringify(odd);
    expect(unpackTask(packTask(json, id, contextId), id, contextId)).toBe(json);
    // A context id equal to the task id, or one JSON escapes.
    expect(unpackTask(packTask(JSON.stringify({ ...task, contextId: id }), id, id), id, id)).toBe(
      JSON.stringify({ ...task, contextId: id }),
    );
    const quoted = 'ctx "with" \\ quotes';
    const withQuotes = JSON.stringify({ ...task, contextId: quoted });
    expect(unpackTask(packTask(withQuotes, id, quoted), id, quoted)).toBe(withQuotes);
  });
});
