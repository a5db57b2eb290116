import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastSendParamsOfV1 } from '../../src/protocol/v1/send-fast-path.js';
import { sendParamsViaZod } from '../../src/protocol/v1/wire-in.js';

/** What the zod path makes of it: the params as JSON text, or `refused`. */
const viaZod = (raw: unknown): string => {
  try {
    return JSON.stringify(sendParamsViaZod(raw));
  } catch {
    return 'refused';
  }
};

/** The fast path must either step aside or give exactly the zod path's answer (same values, same key order). */
function expectSameAsZod(raw: unknown): 'fast' | 'zod' {
  const fast = fastSendParamsOfV1(raw);
  if (fast === undefined) return 'zod';
  expect(JSON.stringify(fast)).toBe(viaZod(raw));
  expect(fast).toStrictEqual(sendParamsViaZod(raw));
  return 'fast';
}

const base = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] };

describe('the v1.0 SendMessage fast path', () => {
  it('takes the common requests (the bench body, ids, a tenant, returnImmediately) and answers as zod does', () => {
    const common: unknown[] = [
      { message: base },
      { message: { ...base, contextId: 'c-1', taskId: 't-1' } },
      { message: { parts: [{ text: '' }, { text: 'b' }], role: 'ROLE_USER', messageId: 'm' } },
      { tenant: '', message: base },
      { tenant: 'acme', message: base, configuration: {} },
      { message: base, configuration: { returnImmediately: true } },
      { message: base, configuration: { returnImmediately: false } },
      { message: Object.assign(Object.create(null), base) },
    ];
    for (const raw of common) expect(expectSameAsZod(raw)).toBe('fast');
  });

  it('leaves everything unusual or wrong to zod', () => {
    const unusual: unknown[] = [
      undefined,
      null,
      [],
      {},
      { message: null },
      { message: { ...base, role: 'ROLE_AGENT' } },
      { message: { ...base, role: 1 } },
      { message: { ...base, messageId: '' } },
      { message: { ...base, contextId: '' } },
      { message: { ...base, taskId: 7 } },
      { message: { ...base, parts: [] } },
      { message: { ...base, parts: [{ text: 'a', metadata: {} }] } },
      { message: { ...base, parts: [{ text: 'a', mediaType: 'text/plain' }] } },
      { message: { ...base, parts: [{ data: { a: 1 } }] } },
      { message: { ...base, metadata: { a: 1 } } },
      { message: { ...base, extensions: ['e'] } },
      { message_id: 'm', message: base },
      { message: { message_id: 'm', role: 'ROLE_USER', parts: [{ text: 'a' }] } },
      { message: base, configuration: { historyLength: 1 } },
      { message: base, configuration: { returnImmediately: 'yes' } },
      { message: base, configuration: undefined },
      { message: base, metadata: {} },
      { tenant: 1, message: base },
      { message: JSON.parse('{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a"}],"__proto__":{}}') },
    ];
    for (const raw of unusual) expect(expectSameAsZod(raw)).toBe('zod');
  });

  it('never disagrees with zod on generated near-miss requests', () => {
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
      fc.record({ text: fc.string({ maxLength: 5 }) }),
      fc.record({ text: fc.oneof(fc.string({ maxLength: 5 }), value), filename: value }, { requiredKeys: [] }),
      fc.dictionary(fc.constantFrom('text', 'url', 'data', 'metadata'), value),
    );
    const message = fc.record(
      {
        messageId: fc.oneof(fc.string({ minLength: 1, maxLength: 4 }), fc.string({ maxLength: 1 }), value),
        role: fc.oneof(fc.constant('ROLE_USER'), fc.constant('ROLE_USER'), fc.constantFrom('ROLE_AGENT', 'ROLE_UNSPECIFIED', 1), value),
        parts: fc.oneof(fc.array(part, { minLength: 1, maxLength: 3 }), fc.array(part, { maxLength: 1 }), value),
        contextId: fc.oneof(fc.string({ maxLength: 3 }), value),
        taskId: fc.oneof(fc.string({ maxLength: 3 }), value),
        metadata: value,
      },
      { requiredKeys: ['messageId', 'role', 'parts'] },
    );
    const configuration = fc.oneof(
      fc.record({ returnImmediately: fc.oneof(fc.boolean(), value) }, { requiredKeys: [] }),
      fc.record({ returnImmediately: fc.boolean(), historyLength: fc.oneof(fc.nat(), value) }, { requiredKeys: [] }),
      value,
    );
    // Well formed, with one field now and then off.
    const nearlyRight = fc.record(
      {
        messageId: fc.oneof(fc.string({ minLength: 1, maxLength: 4 }), fc.string({ minLength: 1 }), fc.string({ maxLength: 1 })),
        role: fc.oneof(fc.constant('ROLE_USER'), fc.constant('ROLE_USER'), fc.constant('ROLE_USER'), value),
        parts: fc.array(fc.oneof(fc.record({ text: fc.string({ maxLength: 5 }) }), fc.record({ text: fc.string() }), part), {
          minLength: 1,
          maxLength: 3,
        }),
        contextId: fc.string({ maxLength: 3 }),
        taskId: fc.string({ maxLength: 3 }),
      },
      { requiredKeys: ['messageId', 'role', 'parts'] },
    );
    const request = fc.oneof(
      fc.record({ message }),
      fc.record({ message: nearlyRight }),
      fc.record(
        { message: nearlyRight, configuration: fc.record({ returnImmediately: fc.boolean() }, { requiredKeys: [] }), tenant: fc.string() },
        { requiredKeys: ['message'] },
      ),
      fc.record({ message, configuration, tenant: fc.oneof(fc.string({ maxLength: 2 }), value) }, { requiredKeys: ['message'] }),
      value,
    );
    let fast = 0;
    fc.assert(
      fc.property(request, (raw) => {
        if (expectSameAsZod(raw) === 'fast') fast++;
      }),
      { numRuns: 3000 },
    );
    // The generator reaches the fast path too, not only the refusals.
    expect(fast).toBeGreaterThan(100);
  });
});
