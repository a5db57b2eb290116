/**
 * RFC 8785 (JSON Canonicalization Scheme) against the RFC's own examples: the number table of
 * Appendix B, the §3.2.2 serialization example and the §3.2.3 sorting example.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson, CanonicalJsonError } from '../../src/a2a/canonical-json.js';

/** The IEEE 754 double with these 64 bits, as the RFC's Appendix B lists them. */
function double(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('RFC 8785 numbers (Appendix B)', () => {
  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'], // -0
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('the double %s is written %s', (hex, text) => {
    expect(canonicalJson(double(hex))).toBe(text);
  });

  it('writes 1e21, 1e-7 and -0 as ECMAScript does', () => {
    expect(canonicalJson([1e21, 1e-7, -0, 1e20, 0.1])).toBe('[1e+21,1e-7,0,100000000000000000000,0.1]');
    expect(canonicalJson(Number('333333333.33333329'))).toBe('333333333.3333333');
  });

  it.each([NaN, Infinity, -Infinity])('refuses %s (not a JSON number)', (n) => {
    expect(() => canonicalJson({ a: [n] })).toThrow(CanonicalJsonError);
    expect(() => canonicalJson({ a: [n] })).toThrow(/\(root\)\.a\[0\]/);
  });
});

describe('RFC 8785 serialization', () => {
  it('the §3.2.2 example: members sorted, numbers and strings in canonical form, no whitespace', () => {
    // The RFC's input text, parsed as a verifier would parse it.
    const input = JSON.parse(`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",
      "literals": [null, true, false]
    }`) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('the §3.2.3 example: member names ordered by UTF-16 code units, not code points', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // The emoji (a surrogate pair, 0xD83D…) sorts before U+FB33 although its code point is higher,
    // and "\r" before "1" (an integer-like name a JavaScript object would list first).
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('escapes control characters as the RFC lists them and leaves other characters as they are', () => {
    expect(canonicalJson('\b\t\n\f\r\u0000\u001f\u007f"\\/é')).toBe('"\\b\\t\\n\\f\\r\\u0000\\u001f\u007f\\"\\\\/é"');
  });

  it('sorts nested objects and keeps array order; undefined members are left out as JSON.stringify does', () => {
    expect(canonicalJson({ b: [{ z: 1, a: 2 }, 3], a: { y: undefined, x: null } })).toBe('{"a":{"x":null},"b":[{"a":2,"z":1},3]}');
  });

  it('the canonical form of a value and of its parsed JSON copy are the same', () => {
    const card = { name: 'x', skills: [{ id: 's', tags: ['t'], examples: undefined }], n: -0, when: new Date(0) };
    expect(canonicalJson(JSON.parse(JSON.stringify(card)))).toBe(canonicalJson(card));
  });

  it('refuses a lone surrogate (not I-JSON), in a value or a member name', () => {
    expect(() => canonicalJson('\ud800')).toThrow(CanonicalJsonError);
    expect(() => canonicalJson({ '\udc00': 1 })).toThrow(CanonicalJsonError);
    expect(() => canonicalJson(10n)).toThrow(CanonicalJsonError);
    expect(canonicalJson('\ud83d\ude00')).toBe('"\ud83d\ude00"');
  });
});
