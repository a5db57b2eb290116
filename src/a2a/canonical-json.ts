/**
 * The JSON Canonicalization Scheme (RFC 8785): the one byte sequence a signed agent card is
 * signed over, so that a verifier who re-serializes the card it received gets the same bytes.
 *
 * It is JSON.stringify with three rules added: object members sorted by their names' UTF-16 code
 * units (§3.2.3), no whitespace (§3.2.1), and I-JSON input only (§3.1: finite numbers, no lone
 * surrogates). Numbers (§3.2.2.3) and strings (§3.2.2.2) are already serialized as the RFC asks
 * by ECMAScript's JSON.stringify, which is what the RFC specifies them by.
 */

/** Thrown for a value JSON cannot carry canonically (a non-finite number, a lone surrogate, …). */
export class CanonicalJsonError extends TypeError {
  /** The error's name. */
  override readonly name = 'CanonicalJsonError';
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function string(value: string, at: string): string {
  // §3.1: I-JSON (RFC 7493 §2.1) strings are valid Unicode; JSON.stringify would escape a lone
  // surrogate as \udXXX, which RFC 8785 does not allow.
  if (LONE_SURROGATE.test(value)) throw new CanonicalJsonError(`${at}: a string with a lone UTF-16 surrogate is not I-JSON`);
  return JSON.stringify(value);
}

/** Compares by UTF-16 code units (§3.2.3), which is what `<` on JavaScript strings does. */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function serialize(value: unknown, at: string): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // §3.2.2.3: NaN and Infinity are not JSON; -0 is serialized as 0 (Number.prototype.toString does both).
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`${at}: ${value} is not a JSON number`);
      return JSON.stringify(value);
    case 'string':
      return string(value, at);
    // Like JSON.stringify: absent in objects, null in arrays (what a parsed copy would hold).
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      throw new CanonicalJsonError(`${at}: a bigint is not a JSON number`);
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return serialize((value as { toJSON: () => unknown }).toJSON(), at);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item, i) => serialize(item, `${at}[${i}]`) ?? 'null').join(',')}]`;
  }
  const members: string[] = [];
  for (const key of Object.keys(value as object).sort(byCodeUnits)) {
    const text = serialize((value as Record<string, unknown>)[key], `${at}.${key}`);
    if (text !== undefined) members.push(`${string(key, at)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * The RFC 8785 canonical form of a JSON value. Throws CanonicalJsonError (naming where) for what
 * I-JSON cannot hold: NaN, ±Infinity, bigints, lone surrogates.
 */
export function canonicalJson(value: unknown): string {
  const text = serialize(value, '(root)');
  if (text === undefined) throw new CanonicalJsonError('(root): undefined is not JSON');
  return text;
}
