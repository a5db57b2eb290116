import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyTooDeep, deepPath } from '../../src/protocol/json-depth.js';

/** `levels` arrays, each inside the last. */
const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

/** JSON values with brackets, keys and strings that hold brackets, quotes and backslashes. */
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ unit: fc.constantFrom('a', '{', '[', ']', '}', '"', '\\', ',', ':') }),
    fc.integer(),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.string({ unit: fc.constantFrom('k', '{', '[', '"', '\\') }), tie('value'), { maxKeys: 4 }),
}));

describe('the body depth check', () => {
  it('answers as the one path-keeping scan does, for any JSON text and limit', () => {
    fc.assert(
      fc.property(jsonValue.value, fc.integer({ min: 0, max: 12 }), (value, max) => {
        const text = JSON.stringify(value);
        expect(bodyTooDeep(text, max)).toBe(deepPath(text, max));
      }),
      { numRuns: 3000, seed: 20_260_101 },
    );
  });

  it('answers as the reference for texts that are not JSON (cut short, brackets in a string)', () => {
    const texts = [
      `{"a":${nested(10)}}`,
      `{"a":"${'['.repeat(20)}"}`,
      `{"a":"${'['.repeat(20)}`,
      `{"a\\"":{"b":${nested(9)}}}`,
      `[1,2,[3,[4,[5]]]]`,
      `${'{"k":'.repeat(30)}1${'}'.repeat(30)}`,
      nested(100),
    ];
    for (const text of texts) for (const max of [0, 1, 3, 8, 20, 64]) expect(bodyTooDeep(text, max)).toBe(deepPath(text, max));
  });

  it('names where a body nests too deep, also past the bracket count shortcut', () => {
    expect(bodyTooDeep(`{"a":{"b":[0,${nested(5)}]}}`, 4)).toBe('a.b[1][0]');
    expect(bodyTooDeep(`{"x":"${'['.repeat(100)}","y":${nested(3)}}`, 3)).toBe('y[0][0]');
    expect(bodyTooDeep(`{"x":"${'['.repeat(100)}","y":${nested(3)}}`, 4)).toBeUndefined();
  });
});
