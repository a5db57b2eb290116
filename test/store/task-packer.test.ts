/**
 * The fast packer against the reference (task-text.ts packTask): the same bytes for the
 * runtime's task shapes, -1 (the caller then uses the reference) for others, and exact always.
 */
import { describe, expect, it } from 'vitest';
import { TaskPacker } from '../../src/store/task-packer.js';
import { packTask, unpackTask } from '../../src/store/task-text.js';

const id = '01a20e12-159f-714d-80a8-d673113dcde7';
const contextId = '01a20e12-159f-714d-80a8-d803562c1baa';
const at = '2026-11-24T14:59:55.939Z';

type Json = Record<string, unknown>;
const message = (role: string, texts: string[], messageId: string): Json => ({
  kind: 'message',
  role,
  parts: texts.map((text) => ({ kind: 'text', text })),
  messageId,
  taskId: id,
  contextId,
});

/** A task as the runtime writes it, varied by a seed: states, messages, parts, artifacts. */
function runtimeTask(seed: number, text: (n: number) => string): Json {
  const states = ['submitted', 'working', 'input-required', 'completed', 'failed', 'canceled'];
  const state = states[seed % states.length] as string;
  const paused = state === 'input-required';
  const agent = message('agent', [text(seed + 1)], `a-${seed}`);
  const history = [
    message(
      'user',
      Array.from({ length: 1 + (seed % 3) }, (_, i) => text(seed + i)),
      `m-${seed}`,
    ),
  ];
  if (paused || seed % 4 === 1) history.push(agent);
  if (seed % 5 === 2) history.push(message('user', [text(seed + 7)], `m2-${seed}`));
  const task: Json = {
    kind: 'task',
    id,
    contextId,
    status: { state, timestamp: at, ...(paused ? { message: agent } : {}) },
  };
  if (seed % 7 !== 3) task.history = history;
  if (seed % 6 !== 4)
    task.metadata = {
      stateTransitions: states.slice(0, 1 + (seed % 4)).map((s) => ({ state: s, timestamp: at })),
      _eventSeq: seed,
    };
  if (seed % 2 === 0)
    task.artifacts = Array.from({ length: 1 + (seed % 3) }, (_, i) => ({
      artifactId: `art-${i}`,
      parts: [{ kind: 'text', text: text(seed + i) }],
      ...(i % 2 === 0 ? { name: `name ${i}` } : {}),
    }));
  return task;
}

const plainText = (n: number) =>
  ['hello from the bench', 'a "quoted" \\ back\\slash', 'tab\tnew\nline', '', 'x'.repeat(n % 50)][n % 5] as string;
const oddText = (n: number) =>
  [`"${id}" ,"contextId": completed`, 'héllo wörld ✓ 😀', '\\"}],"messageId":"', '\u0001 raw control', 'submitted'][n % 5] as string;

/**
 * Packs at an offset into a buffer with bytes around it: the packer must touch only its own. The
 * buffer is a view into a larger one, as a pooled Buffer is (it reads the text from the memory).
 */
function packed(packer: TaskPacker, json: string): string | undefined {
  const at = 7;
  const into = Buffer.alloc(3 + at + json.length + 5, '#').subarray(3);
  const length = packer.pack(json, id, contextId, into, at);
  if (length >= 0) expect(into.toString('latin1', 0, at) + into.toString('latin1', at + json.length)).toBe('#'.repeat(at + 5));
  return length < 0 ? undefined : into.toString('utf8', at, at + length);
}

describe('fast task packer', () => {
  it('gives the reference bytes for the runtime task shapes, exactly unpacked', () => {
    const packer = new TaskPacker();
    for (let seed = 0; seed < 300; seed++) {
      const json = JSON.stringify(runtimeTask(seed, plainText));
      const fast = packed(packer, json);
      expect(fast, json).toBe(packTask(json, id, contextId));
      expect(unpackTask(fast as string, id, contextId)).toBe(json);
    }
  });

  it('is exact (or declines) whatever the values hold', () => {
    const packer = new TaskPacker();
    let declined = 0;
    for (let seed = 0; seed < 300; seed++) {
      const json = JSON.stringify(runtimeTask(seed, oddText));
      const fast = packed(packer, json);
      if (fast === undefined) declined++;
      else expect(unpackTask(fast, id, contextId)).toBe(json);
    }
    expect(declined).toBeGreaterThan(0); // the non-ASCII texts
  });

  it('declines other shapes, which the reference then packs', () => {
    const packer = new TaskPacker();
    const base = runtimeTask(0, plainText);
    const others = [
      { ...base, metadata: { ...(base.metadata as Json), user: 'extra' } },
      { ...base, artifacts: [{ artifactId: 'a', parts: [{ kind: 'data', data: { x: 1 } }] }] },
      { ...base, id: 'another' },
      { ...base, extra: true },
      { kind: 'task' },
    ];
    for (const other of others) expect(packed(packer, JSON.stringify(other))).toBeUndefined();
    expect(packed(packer, `${JSON.stringify(base)} `)).toBeUndefined();
    // Cut anywhere, even inside a fragment it expects, with the rest of the text in the bytes
    // after it (as an arena's older bytes may be): those are not read as the text's own.
    const json = JSON.stringify(base);
    const into = Buffer.alloc(json.length);
    for (let end = 0; end < json.length; end++) {
      into.write(json, 'latin1');
      expect(packer.pack(json.slice(0, end), id, contextId, into, 0)).toBe(-1);
      // And in memory that ends with the text: nothing is read past it.
      expect(packer.pack(json.slice(0, end), id, contextId, Buffer.alloc(end), 0)).toBe(-1);
    }
  });

  it('packs a large task, and refuses a buffer without room for the whole text', () => {
    const packer = new TaskPacker();
    const json = JSON.stringify(runtimeTask(0, () => 'y'.repeat(100_000)));
    expect(unpackTask(packed(packer, json) as string, id, contextId)).toBe(json);
    expect(() => packer.pack(json, id, contextId, Buffer.alloc(json.length), 1)).toThrow(/no room/);
  });
});
