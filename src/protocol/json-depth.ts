/**
 * Nesting limits for client JSON. `JSON.stringify` (store writes, replies, webhooks) recurses,
 * so a value nested a few thousand levels deep throws `RangeError` there, long after it was
 * accepted. Two checks keep such values out at the edge:
 *
 * - `bodyTooDeep` scans the raw body text before `JSON.parse`: a body nesting deeper than the
 *   free-form limit plus room for the envelope is refused without being parsed (parsing millions
 *   of levels costs seconds of CPU). It follows object keys and array indexes, so the refusal
 *   names where the nesting is.
 * - `freeFormTooDeep` measures one validated free-form field (metadata, a data part) from the
 *   field itself, so the limit means the same on both transports.
 */

/** Levels an A2A envelope itself takes (`params.configuration.pushNotificationConfig.authentication.schemes`…). */
export const ENVELOPE_LEVELS = 16;

/** Path segments kept in an error message: enough to name the field, short enough to read. */
const SHOWN_SEGMENTS = 8;

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const COMMA = 0x2c; // ,

/** `a.b[0][1]…`, shortened to its first segments. */
export function formatPath(segments: readonly (string | number)[]): string {
  let out = '';
  segments.slice(0, SHOWN_SEGMENTS).forEach((s) => {
    out += typeof s === 'number' ? `[${s}]` : out === '' ? s : `.${s}`;
  });
  return segments.length > SHOWN_SEGMENTS ? `${out}…` : out || '(root)';
}

/** The index of the quote that closes the string opened at `open`, or -1 when none does. */
function stringEnd(text: string, open: number): number {
  let end = open + 1;
  for (;;) {
    end = text.indexOf('"', end);
    if (end < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end++;
  }
}

/**
 * Whether the text has at most `max` opening brackets anywhere (in strings too): then it cannot
 * nest deeper than `max`. Counted with `indexOf`, which runs in native code: most bodies stop here,
 * without a pass over every character (docs/benchmark.md, "Why the protocol layer is shaped as it is").
 */
function fewBrackets(text: string, max: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) if (++count > max) return false;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) if (++count > max) return false;
  return true;
}

/**
 * Whether the text nests deeper than `maxLevels`, counting brackets outside strings and keeping
 * nothing else. Only a body that does nest too deep is scanned again to name where (`deepPath`):
 * the path bookkeeping (a slice per string, the array indexes) is paid only by the bodies refused.
 */
function nestsDeeper(text: string, maxLevels: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return false; // unterminated: JSON.parse refuses it
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > maxLevels) return true;
    } else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && depth > 0) depth--;
  }
  return false;
}

/**
 * Where the body text first nests deeper than `maxLevels` (as `a.b[0]…`), or undefined. The
 * scan only tracks brackets outside strings; it does not validate JSON (JSON.parse does that).
 */
export function bodyTooDeep(text: string, maxLevels: number): string | undefined {
  // Each level takes at least one character.
  if (text.length <= maxLevels || fewBrackets(text, maxLevels) || !nestsDeeper(text, maxLevels)) return undefined;
  return deepPath(text, maxLevels);
}

/**
 * `bodyTooDeep` without its shortcuts: one scan that keeps the path as it goes. Exported as the
 * reference the shortcuts are tested against (test/unit/json-depth.test.ts).
 */
export function deepPath(text: string, maxLevels: number): string | undefined {
  /** segments[d - 1]: the key (or index) of the container opened at depth d + 1. */
  const segments: (string | number)[] = [];
  const inArray: boolean[] = [];
  const index: number[] = [];
  let depth = 0;
  let lastString = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined; // unterminated: JSON.parse refuses it
      // Only a key before `{`/`[` is ever used, and keys are short: keep a bounded prefix.
      lastString = text.slice(i + 1, Math.min(end, i + 65));
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth > 0) segments[depth - 1] = inArray[depth - 1] ? (index[depth - 1] as number) : lastString;
      depth++;
      if (depth > maxLevels) return formatPath(segments.slice(0, depth - 1));
      inArray[depth - 1] = c === OPEN_ARRAY;
      index[depth - 1] = 0;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth > 0) depth--;
    } else if (c === COMMA && depth > 0 && inArray[depth - 1]) {
      index[depth - 1] = (index[depth - 1] as number) + 1;
    }
  }
  return undefined;
}

/**
 * The path (below the field) where `value` nests deeper than `maxLevels`, counting the field's
 * own object as level 1; undefined when it does not. Iterative, so any depth is safe to measure.
 */
export function freeFormTooDeep(value: unknown, maxLevels: number): (string | number)[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  interface Frame {
    value: object;
    depth: number;
    key: string | number;
    parent: Frame | undefined;
  }
  const pathOf = (frame: Frame): (string | number)[] => {
    const path: (string | number)[] = [];
    for (let f: Frame | undefined = frame; f?.parent; f = f.parent) path.unshift(f.key);
    return path;
  };
  const stack: Frame[] = [{ value, depth: 1, key: '', parent: undefined }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    if (frame.depth > maxLevels) return pathOf(frame);
    const container = frame.value as Record<string, unknown>;
    const keys: (string | number)[] = Array.isArray(container) ? container.map((_, i) => i) : Object.keys(container);
    for (const key of keys) {
      const child = container[key];
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: frame.depth + 1, key, parent: frame });
    }
  }
  return undefined;
}
