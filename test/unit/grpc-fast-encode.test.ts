import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referenceEncoder } from '../../src/grpc/codec.js';
import { fastTaskOrMessageV1 } from '../../src/grpc/fast-encode.js';
import { SendMessageResponseSchema, StreamResponseSchema } from '../../src/grpc/gen/a2a/v1_0/a2a_pb.js';

const referenceSend = referenceEncoder(SendMessageResponseSchema);
const referenceStream = referenceEncoder(StreamResponseSchema);

/** What the reference path makes of it: the bytes as hex, or `refused`. */
function viaReference(encode: (json: unknown) => Buffer, json: unknown): string {
  try {
    return encode(json).toString('hex');
  } catch {
    return 'refused';
  }
}

/** The fast path must either step aside or give exactly the reference path's bytes, for both messages. */
function expectSameAsReference(json: unknown): 'fast' | 'reference' {
  const fast = fastTaskOrMessageV1(json);
  if (fast === undefined) return 'reference';
  expect(fast.toString('hex')).toBe(viaReference(referenceSend, json));
  expect(fast.toString('hex')).toBe(viaReference(referenceStream, json));
  return 'fast';
}

/** Now and then past 127 characters: the writer takes short ASCII text on a path of its own. */
const str = fc.oneof(
  { arbitrary: fc.constantFrom('', 'a', 'tasks/1', 'ü€😀'), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 12 }), weight: 4 },
  { arbitrary: fc.string({ minLength: 120, maxLength: 200 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 60, maxLength: 200 }), weight: 1 },
);
/** Sometimes absent, sometimes explicitly undefined (what the wire mappers leave), else the value. */
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(fc.option(arb, { nil: undefined }), { nil: undefined, freq: 3 });

/** Mostly what the path takes, now and then what it must leave. */
const mostly = <T>(usual: fc.Arbitrary<T>, rare: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: usual, weight: 20 }, { arbitrary: rare, weight: 1 });

/** Metadata: JSON of every kind, undefined members, and now and then what JSON text would change (a Date, NaN, a hole). */
const metadata = fc.option(
  mostly<unknown>(
    fc.oneof(
      fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
      fc.constant({ stateTransitions: [{ state: 'completed', timestamp: '2026-11-27T00:25:02.726Z' }], _eventSeq: 3, gone: undefined }),
      fc.constant({ zero: -0, no: false, empty: '', nothing: null, nested: { list: [], obj: {} }, '2': 'two', '1': 'one' }),
    ),
    fc.constantFrom({ when: new Date(0) }, { n: Number.NaN }, { list: [1, undefined] }, [1, 2], 'text'),
  ),
  { nil: undefined },
);

const textPart = fc.record(
  { text: str, metadata, filename: opt(str), mediaType: opt(fc.constantFrom('text/plain', '')) },
  { requiredKeys: ['text'] },
);
/** Shapes the fast path leaves alone, so that stepping aside is tested too. */
const otherPart = fc.oneof(
  fc.record({ data: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ url: str }),
  fc.record({ text: str, unknownKey: str }),
);
const part = fc.oneof({ arbitrary: textPart, weight: 20 }, { arbitrary: otherPart, weight: 1 });

const role = mostly(fc.constantFrom('ROLE_USER', 'ROLE_AGENT', 'ROLE_UNSPECIFIED'), fc.constant('ROLE_OTHER'));
const message = fc.record(
  {
    messageId: str,
    contextId: opt(str),
    taskId: opt(str),
    role,
    parts: fc.array(part, { maxLength: 3 }),
    extensions: opt(fc.array(str, { maxLength: 2 })),
    referenceTaskIds: opt(fc.array(str, { maxLength: 2 })),
    metadata,
  },
  { requiredKeys: ['messageId', 'role', 'parts'] },
);

const isoTime = fc
  .date({ min: new Date('1960-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const timestamp = mostly(
  fc.oneof(
    isoTime,
    isoTime.map((t) => t.replace('.000Z', 'Z')),
    isoTime.map((t) => t.replace('Z', '123456Z')),
    fc.tuple(isoTime, fc.stringMatching(/^\d{1,9}$/)).map(([t, f]) => `${t.slice(0, 19)}.${f}Z`),
    fc.constant('1970-01-01T00:00:00Z'),
  ),
  fc.constantFrom(
    '2026-02-30T00:00:00Z',
    '2026-01-01T00:00:00+01:00',
    'yesterday',
    '2024-02-29T24:00:00Z',
    '2026-01-01T00:00:60Z',
    '2026-01-01T00:00:00.Z',
    '2026-01-01T00:00:00.1234567890Z',
    '2026-01-01 00:00:00Z',
    '2026-1-01T00:00:00Z',
  ),
);
const state = mostly(
  fc.constantFrom(
    'TASK_STATE_SUBMITTED',
    'TASK_STATE_WORKING',
    'TASK_STATE_COMPLETED',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_AUTH_REQUIRED',
    'TASK_STATE_UNSPECIFIED',
  ),
  fc.constant('TASK_STATE_NONSENSE'),
);
const status = fc.record({ state, message: opt(message), timestamp: opt(timestamp) }, { requiredKeys: ['state'] });
const artifact = fc.record(
  {
    artifactId: str,
    name: opt(str),
    description: opt(str),
    metadata,
    parts: fc.array(part, { maxLength: 3 }),
    extensions: opt(fc.array(str)),
  },
  { requiredKeys: ['artifactId', 'parts'] },
);
const task = fc.record(
  {
    id: str,
    contextId: opt(str),
    status,
    artifacts: opt(fc.array(artifact, { maxLength: 2 })),
    history: opt(fc.array(message, { maxLength: 3 })),
    metadata,
  },
  { requiredKeys: ['id', 'status'] },
);

describe('the v1.0 task-or-message fast encoder', () => {
  it('takes what the echo agent answers and writes the reference bytes', () => {
    const common: unknown[] = [
      {
        task: {
          id: 't-1',
          contextId: 'c-1',
          status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-11-27T00:15:57.123Z' },
          history: [{ messageId: 'm-1', contextId: 'c-1', taskId: 't-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] }],
          artifacts: [{ artifactId: 'a-1', name: 'echo', parts: [{ text: 'hello' }] }],
          metadata: { stateTransitions: [{ state: 'completed', timestamp: '2026-11-27T00:15:57.123Z' }], _eventSeq: 3 },
        },
      },
      { message: { messageId: 'm-2', role: 'ROLE_AGENT', parts: [{ text: '' }], contextId: undefined } },
    ];
    for (const json of common) expect(expectSameAsReference(json)).toBe('fast');
  });

  it('writes long texts and answers past its scratch buffer as the reference path does', () => {
    const long = (n: number, unit: string) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
    const big: unknown[] = [
      { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: long(127, 'a') }, { text: long(128, 'b') }] } },
      { message: { messageId: long(300, 'é'), role: 'ROLE_AGENT', parts: [{ text: long(200_000, 'x€') }] } },
      {
        task: {
          id: 't',
          status: { state: 'TASK_STATE_COMPLETED', timestamp: '2024-02-29T23:59:59.5Z' },
          history: Array.from({ length: 300 }, (_, i) => ({ messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: long(i, 'y') }] })),
          metadata: { list: Array.from({ length: 2000 }, (_, i) => ({ n: i, s: long(i % 50, 'z') })) },
        },
      },
    ];
    for (const json of big) expect(expectSameAsReference(json)).toBe('fast');
  });

  it('steps aside for what it is not sure of', () => {
    const aside: unknown[] = [
      null,
      {},
      { task: { id: 't' }, message: { messageId: 'm' } },
      { statusUpdate: { taskId: 't' } },
      { task: { id: 't', metadata: { when: new Date(0) } } },
      { task: { id: 't', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:00+01:00' } } },
      { message: { messageId: 'm', parts: [{ data: { a: 1 } }] } },
      { message: { messageId: 'm', contextId: null } },
    ];
    for (const json of aside) expect(fastTaskOrMessageV1(json)).toBeUndefined();
  });

  it('answers exactly as the reference path for any task or message', () => {
    let fast = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          task.map((t) => ({ task: t })),
          message.map((m) => ({ message: m })),
        ),
        (json) => {
          if (expectSameAsReference(json) === 'fast') fast++;
        },
      ),
      { numRuns: 2000 },
    );
    // The generators mostly make shapes the fast path takes: the equality above is not vacuous.
    expect(fast).toBeGreaterThan(500);
  });
});
