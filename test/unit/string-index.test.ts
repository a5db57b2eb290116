/** The memory store's task id index (src/store/string-index.ts), held to a Map's answers. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/a2a/ids.js';
import { StringIndex } from '../../src/store/string-index.js';

/** An index over a key column, as the memory store keeps one. */
function indexed(): { index: StringIndex; add(key: string): number; keys: string[] } {
  const keys: string[] = [];
  const index = new StringIndex((value) => keys[value] as string);
  return {
    index,
    keys,
    add(key) {
      keys.push(key);
      index.add(key, keys.length - 1);
      return keys.length - 1;
    },
  };
}

describe('StringIndex', () => {
  it('answers what a Map would for any keys, added once each, and -1 for the others', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.oneof(fc.string({ maxLength: 50 }), fc.string({ unit: 'grapheme', maxLength: 12 }), fc.uuid()), {
          maxLength: 3000,
        }),
        fc.array(fc.string({ maxLength: 50 }), { maxLength: 200 }),
        (keys, probes) => {
          const { index, add } = indexed();
          const reference = new Map<string, number>();
          for (const key of keys) {
            expect(index.get(key)).toBe(-1);
            reference.set(key, add(key));
          }
          expect(index.size).toBe(reference.size);
          for (const key of keys) expect(index.get(key)).toBe(reference.get(key));
          for (const key of probes) expect(index.get(key)).toBe(reference.get(key) ?? -1);
        },
      ),
      { numRuns: 60, seed: 20_261_125 },
    );
  });

  it('keeps every id through many doublings of its table', () => {
    const { index, add, keys } = indexed();
    for (let i = 0; i < 200_000; i++) add(newId());
    expect(index.size).toBe(200_000);
    for (let i = 0; i < keys.length; i += 997) expect(index.get(keys[i] as string)).toBe(i);
    // Near misses of stored ids: one character changed, cut short, extended.
    const id = keys[123_456] as string;
    expect(index.get(`${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`)).toBe(-1);
    expect(index.get(id.slice(0, -1))).toBe(-1);
    expect(index.get(`${id}0`)).toBe(-1);
  });

  it('tells apart keys that differ only past the first characters, or in odd and even lengths', () => {
    const { index, add } = indexed();
    const keys = ['', 'a', 'ab', 'a\u0000', '\u0000a', 'ba', 'x'.repeat(1000), `${'x'.repeat(999)}y`, '😀', '\ud83d'];
    for (const key of keys) add(key);
    keys.forEach((key, i) => expect(index.get(key)).toBe(i));
    expect(index.get('b')).toBe(-1);
    expect(index.get('\ude00')).toBe(-1);
  });
});
