/**
 * The proto dialect's send reply built from the finished task the runtime hands along with its
 * stored JSON text is byte for byte the reply built by parsing that text back (what it did before).
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/a2a/schemas.js';
import { JsonText } from '../../src/protocol/json-text.js';
import { REST_DIALECTS } from '../../src/protocol/rest-dialect.js';

const TS = '2025-07-30T10:00:00.000Z';

const finished: Task = {
  kind: 'task',
  id: 't1',
  contextId: 'c1',
  status: {
    state: 'input-required',
    timestamp: TS,
    message: { kind: 'message', role: 'agent', messageId: 'm2', taskId: 't1', contextId: 'c1', parts: [{ kind: 'text', text: 'which?' }] },
  },
  history: [
    {
      kind: 'message',
      role: 'user',
      messageId: 'm1',
      taskId: 't1',
      contextId: 'c1',
      parts: [
        { kind: 'text', text: 'caf\u00e9 \ud83d\ude00 "quoted" \\ \n' },
        { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
        { kind: 'file', file: { uri: 'https://example.com/a.png' } },
        { kind: 'data', data: { answer: 42, nested: { data: [1, null, 'x'] }, 10: 'ten', 2: 'two' }, metadata: { m: true } },
      ],
      metadata: { k: 1 },
      extensions: ['urn:x'],
      referenceTaskIds: ['t0'],
    },
  ],
  artifacts: [
    {
      artifactId: 'a1',
      name: 'echo',
      description: 'd',
      parts: [{ kind: 'text', text: 'hi' }],
      metadata: { z: 1, a: 2 },
      extensions: ['urn:y'],
    },
    { artifactId: 'a2', parts: [{ kind: 'data', data: {} }] },
  ],
  metadata: { stateTransitions: [{ state: 'submitted', timestamp: TS }], unset: undefined, deep: { '': -0, e: 1e21 } },
};

describe('the proto send reply of a finished task', () => {
  it('is the same bytes from the task object as from its JSON text parsed back', () => {
    const json = JSON.stringify(finished);
    const proto = REST_DIALECTS.proto;
    const fromValue = JSON.stringify(proto.sendResult(new JsonText(json, finished)));
    const fromText = JSON.stringify(proto.sendResult(new JsonText(json)));
    expect(fromValue).toBe(fromText);
    expect(JSON.parse(fromValue)).toMatchObject({ task: { id: 't1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
  });

  it('leaves the task object as it was', () => {
    const copy = structuredClone(finished);
    REST_DIALECTS.proto.sendResult(new JsonText(JSON.stringify(finished), finished));
    expect(finished).toEqual(copy);
  });

  it('the a2a dialect answers the stored text itself', () => {
    const text = new JsonText(JSON.stringify(finished), finished);
    expect(REST_DIALECTS.a2a.sendResult(text)).toBe(text);
  });
});
