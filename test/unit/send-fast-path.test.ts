import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MessageSendParamsSchema } from '../../src/a2a/schemas.js';
import { fastSendParams } from '../../src/protocol/send-fast-path.js';

/** What zod makes of it: the parsed params as JSON text, or `refused`. */
const viaZod = (raw: unknown): string => {
  const r = MessageSendParamsSchema.safeParse(raw);
  return r.success ? JSON.stringify(r.data) : 'refused';
};

/** The fast path must either step aside or give exactly zod's answer (same values, same key order). */
function expectSameAsZod(raw: unknown): 'fast' | 'zod' {
  const fast = fastSendParams(raw);
  if (fast === undefined) return 'zod';
  expect(JSON.stringify(fast)).toBe(viaZod(raw));
  expect(fast).toStrictEqual(MessageSendParamsSchema.parse(raw));
  return 'fast';
}

const text = (t: string) => ({ kind: 'text', text: t });
const base = { kind: 'message', role: 'user', messageId: 'm-1', parts: [text('hello')] };

describe('the message/send fast path', () => {
  it('takes the common shapes (the bench bodies, ids, several text parts) and answers as zod does', () => {
    const common: unknown[] = [
      { message: base },
      { message: { role: 'user', messageId: 'm', parts: [text('')] } },
      { message: { ...base, contextId: 'c-1' } },
      { message: { ...base, taskId: 't-1', contextId: 'c-1' } },
      { message: { messageId: 'm', parts: [text('a'), text('b')], role: 'agent', kind: 'message' } },
      { message: base, configuration: { blocking: true } },
      { configuration: { blocking: false }, message: base },
      {
        message: Object.assign(Object.create(null), {
          role: 'user',
          messageId: 'm',
          parts: [Object.assign(Object.create(null), text('x'))],
        }),
      },
    ];
    for (const raw of common) expect(expectSameAsZod(raw)).toBe('fast');
  });

  it('leaves everything unusual or wrong to zod', () => {
    const unusual: unknown[] = [
      undefined,
      null,
      [],
      'x',
      {},
      { message: null },
      { message: [] },
      { message: base, configuration: undefined },
      { message: base, configuration: {} },
      { message: base, configuration: { blocking: 'yes' } },
      { message: base, configuration: { blocking: true, historyLength: 1 } },
      { message: base, configuration: { blocking: true, pushNotificationConfig: { url: 'https://example.com' } } },
      { message: base, configuration: JSON.parse('{"blocking":true,"__proto__":{}}') },
      { message: base, metadata: {} },
      { message: { ...base, kind: 'task' } },
      { message: { ...base, role: 'system' } },
      { message: { ...base, messageId: '' } },
      { message: { ...base, messageId: 7 } },
      { message: { ...base, parts: [] } },
      { message: { ...base, parts: 'hello' } },
      { message: { ...base, parts: [{ kind: 'text' }] } },
      { message: { ...base, parts: [{ kind: 'text', text: 1 }] } },
      { message: { ...base, parts: [{ kind: 'text', text: 'a', metadata: {} }] } },
      { message: { ...base, parts: [{ kind: 'data', data: {} }] } },
      { message: { ...base, parts: [{ kind: 'file', file: { uri: 'u' } }] } },
      { message: { ...base, taskId: null } },
      { message: { ...base, taskId: '' } },
      { message: { ...base, contextId: 3 } },
      { message: { ...base, metadata: { a: 1 } } },
      { message: { ...base, extensions: [] } },
      { message: { ...base, referenceTaskIds: ['t'] } },
      { message: { ...base, unknownField: 1 } },
      { message: JSON.parse('{"kind":"message","role":"user","messageId":"m","parts":[{"kind":"text","text":"a"}],"__proto__":{}}') },
      { message: { ...base, parts: [JSON.parse('{"kind":"text","text":"a","__proto__":{"x":1}}')] } },
      JSON.parse('{"message":{"role":"user","messageId":"m","parts":[{"kind":"text","text":"a"}]},"__proto__":{}}'),
    ];
    for (const raw of unusual) expect(expectSameAsZod(raw)).toBe('zod');
  });

  it('never disagrees with zod on generated near-miss params', () => {
    const value = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.string({ maxLength: 3 }),
      fc.integer(),
      fc.boolean(),
      fc.constant({}),
      fc.constant([]),
    );
    const part = fc.oneof(
      fc.record(
        { kind: fc.constantFrom('text', 'data', 'file', 'x'), text: fc.oneof(fc.string({ maxLength: 5 }), value) },
        { requiredKeys: [] },
      ),
      fc.constant(text('ok')),
      fc.dictionary(fc.constantFrom('kind', 'text', 'metadata', 'data'), value),
    );
    const message = fc.record(
      {
        kind: fc.oneof(fc.constant('message'), value),
        role: fc.oneof(fc.constantFrom('user', 'agent'), value),
        messageId: fc.oneof(fc.string({ maxLength: 4 }), value),
        parts: fc.oneof(fc.array(part, { maxLength: 3 }), value),
        taskId: fc.oneof(fc.string({ maxLength: 3 }), value),
        contextId: fc.oneof(fc.string({ maxLength: 3 }), value),
        metadata: value,
        extra: value,
      },
      { requiredKeys: [] },
    );
    // Mostly well-formed, with one field at a time possibly off.
    const nearlyRight = fc.record(
      {
        kind: fc.oneof(fc.constant('message'), fc.constant('message'), value),
        role: fc.oneof(fc.constant('user'), fc.constant('user'), value),
        messageId: fc.oneof(fc.string({ minLength: 1, maxLength: 4 }), fc.string({ maxLength: 1 })),
        parts: fc.array(fc.oneof(fc.constant(text('ok')), fc.constant(text('')), part), { minLength: 1, maxLength: 3 }),
        taskId: fc.string({ maxLength: 2 }),
        contextId: fc.oneof(fc.string({ maxLength: 2 }), fc.constant(null)),
      },
      { requiredKeys: ['role', 'messageId', 'parts'] },
    );
    const params = fc.oneof(
      fc.record({ message }),
      fc.record({ message: nearlyRight }),
      fc.record({ message: nearlyRight }),
      fc.record({ message, configuration: fc.oneof(value, fc.constant({ blocking: true })) }, { requiredKeys: ['message'] }),
      fc.record(
        {
          message: nearlyRight,
          configuration: fc.oneof(
            fc.record({ blocking: fc.oneof(fc.boolean(), value) }, { requiredKeys: [] }),
            fc.record({ blocking: fc.boolean(), historyLength: fc.oneof(fc.nat(), value) }, { requiredKeys: [] }),
            value,
          ),
        },
        { requiredKeys: ['message'] },
      ),
      value,
    );
    let fast = 0;
    fc.assert(
      fc.property(params, (raw) => {
        if (expectSameAsZod(raw) === 'fast') fast++;
      }),
      { numRuns: 3000 },
    );
    // The generator reaches the fast path too, not only the refusals.
    expect(fast).toBeGreaterThan(0);
  });
});
