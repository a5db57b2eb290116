import { fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referenceDecoder } from '../../src/grpc/codec.js';
import { fastSendMessageRequestV1 } from '../../src/grpc/fast-decode.js';
import { SendMessageRequestSchema } from '../../src/grpc/gen/a2a/v1_0/a2a_pb.js';

const reference = referenceDecoder(SendMessageRequestSchema);
/** The request's bytes as a client writes them (members left undefined by the generators are dropped). */
const bytesOf = (json: unknown): Buffer =>
  Buffer.from(toBinary(SendMessageRequestSchema, fromJson(SendMessageRequestSchema, JSON.parse(JSON.stringify(json)) as JsonValue)));

/** What the reference path makes of the bytes: its proto-JSON as text (key order counts), or `refused`. */
function viaReference(bytes: Buffer): string {
  try {
    return JSON.stringify(reference(bytes));
  } catch {
    return 'refused';
  }
}

/** The fast path must either step aside or give exactly the reference path's value, keys in the same order. */
function expectSameAsReference(bytes: Buffer): 'fast' | 'reference' {
  const fast = fastSendMessageRequestV1(bytes);
  if (fast === undefined) return 'reference';
  expect(JSON.stringify(fast)).toBe(viaReference(bytes));
  expect(fast).toStrictEqual(reference(bytes));
  return 'fast';
}

const str = fc.oneof(
  { arbitrary: fc.constantFrom('', 'a', 'tasks/1', 'ü€😀', '\u0000', 'text/plain'), weight: 4 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'grapheme', minLength: 20, maxLength: 80 }), weight: 1 },
);
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
/** Mostly what the path takes, now and then what it must leave. */
const mostly = <T>(usual: fc.Arbitrary<T>, rare: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: usual, weight: 12 }, { arbitrary: rare, weight: 1 });

const part = mostly<Record<string, unknown>>(
  fc.record({ text: str, filename: opt(str), mediaType: opt(str) }, { requiredKeys: ['text'] }),
  fc.oneof(
    fc.record({ url: str }),
    fc.record({ data: fc.jsonValue({ maxDepth: 2 }) }),
    fc.record({ raw: fc.constant('aGVsbG8=') }),
    fc.record({ text: str, metadata: fc.constant({ a: 1 }) }),
  ),
);
const message = fc.record(
  {
    messageId: str,
    contextId: opt(str),
    taskId: opt(str),
    role: fc.constantFrom('ROLE_USER', 'ROLE_AGENT', 'ROLE_UNSPECIFIED'),
    parts: fc.array(part, { maxLength: 3 }),
    extensions: opt(fc.array(str, { maxLength: 2 })),
    referenceTaskIds: opt(fc.array(str, { maxLength: 2 })),
    metadata: opt(mostly(fc.constant(undefined), fc.constant({ k: 'v' }))),
  },
  { requiredKeys: [] },
);
const configuration = fc.record(
  {
    acceptedOutputModes: opt(fc.array(str, { maxLength: 2 })),
    historyLength: opt(mostly(fc.nat({ max: 2 ** 31 - 1 }), fc.integer({ min: -5, max: -1 }))),
    returnImmediately: opt(fc.boolean()),
    taskPushNotificationConfig: opt(mostly(fc.constant(undefined), fc.constant({ url: 'https://example.com/hook' }))),
  },
  { requiredKeys: [] },
);
const request = fc.record(
  {
    tenant: opt(str),
    message: opt(message),
    configuration: opt(configuration),
    metadata: opt(mostly(fc.constant(undefined), fc.constant({ k: 'v' }))),
  },
  { requiredKeys: [] },
);

describe('the v1.0 SendMessageRequest fast decoder', () => {
  it('reads what the clients send as the reference path does', () => {
    const common: unknown[] = [
      { message: { messageId: '30f1b8f0-da80-4f4c-9ef7-1fd9796dbbad', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
      {
        tenant: 't',
        message: {
          messageId: 'm',
          contextId: 'c',
          taskId: 't-1',
          role: 'ROLE_USER',
          parts: [{ text: '' }, { text: 'x'.repeat(300), filename: 'a.txt', mediaType: 'text/plain' }],
          extensions: ['https://example.com/ext'],
          referenceTaskIds: ['t-0'],
        },
        configuration: { acceptedOutputModes: ['text/plain'], historyLength: 0, returnImmediately: true },
      },
      { message: { messageId: 'é'.repeat(100), role: 'ROLE_USER', parts: [{ text: 'ü€😀' }] } },
      {},
    ];
    for (const json of common) expect(expectSameAsReference(bytesOf(json))).toBe('fast');
  });

  it('steps aside for what it is not sure of', () => {
    const aside: Buffer[] = [
      bytesOf({ message: { messageId: 'm', metadata: { a: 1 } } }),
      bytesOf({ message: { messageId: 'm', parts: [{ data: { a: 1 } }] } }),
      bytesOf({ configuration: { taskPushNotificationConfig: { url: 'https://example.com/hook' } } }),
      bytesOf({ configuration: { historyLength: -1 } }),
      // The message field twice (the reference path merges the two), an unknown field, bytes cut short.
      Buffer.concat([bytesOf({ message: { messageId: 'a' } }), bytesOf({ message: { contextId: 'b' } })]),
      Buffer.from([0x2a, 0x01, 0x00]),
      bytesOf({ message: { messageId: 'm', parts: [{ text: 'hello' }] } }).subarray(0, 10),
      // A text that is not UTF-8: the reference path refuses it.
      Buffer.from([0x12, 0x05, 0x0a, 0x03, 0x61, 0xff, 0x62]),
    ];
    for (const bytes of aside) expect(fastSendMessageRequestV1(bytes)).toBeUndefined();
  });

  it('reads any request exactly as the reference path does', () => {
    let fast = 0;
    fc.assert(
      fc.property(request, (json) => {
        if (expectSameAsReference(bytesOf(json)) === 'fast') fast++;
      }),
      { numRuns: 2000 },
    );
    // The generators mostly make shapes the fast path takes: the equality above is not vacuous.
    expect(fast).toBeGreaterThan(500);
  });

  it('never answers differently from the reference path for damaged bytes', () => {
    fc.assert(
      fc.property(request, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.boolean(), (json, at, byte, cut) => {
        const bytes = bytesOf(json);
        if (bytes.length === 0) return;
        const i = at % bytes.length;
        const damaged = cut ? bytes.subarray(0, i) : Buffer.from(bytes);
        if (!cut) damaged[i] = byte;
        expectSameAsReference(damaged);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (raw) => {
        expectSameAsReference(Buffer.from(raw));
      }),
      { numRuns: 1000 },
    );
  });
});
