/**
 * A stored task's JSON text seen as the three parts a list reads apart: the summary (status, ids,
 * metadata), the `history` and the `artifacts`. The parts are found by one scan of the text's
 * top level, so a store can keep a task as one text and still return a projection of it without
 * parsing what the projection leaves out, and can count a list answer's cost before reading it.
 */

/** Where one top-level member lies in the text: the key's opening quote, and its value. */
export interface MemberSpan {
  start: number;
  valueStart: number;
  end: number;
}

export interface TaskParts {
  history: MemberSpan | undefined;
  artifacts: MemberSpan | undefined;
  /** Top-level members in all (what the commas between them number). */
  members: number;
}

/** Characters of each part as a list would return it. */
export interface PartSizes {
  summaryBytes: number;
  historyBytes: number;
  artifactsBytes: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The index just past the string whose opening quote is at `at`. */
function skipString(text: string, at: number): number {
  let i = at + 1;
  for (;;) {
    const close = text.indexOf('"', i);
    if (close < 0) return -1;
    // A quote after an odd run of backslashes is escaped.
    let slashes = 0;
    while (text.charCodeAt(close - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return close + 1;
    i = close + 1;
  }
}

/** The index just past the value starting at `at` (the text is JSON.stringify output: no whitespace). */
function skipValue(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) return skipString(text, at);
  if (c !== 0x7b && c !== 0x5b) {
    let i = at;
    while (i < text.length) {
      const d = text.charCodeAt(i);
      if (d === 0x2c || d === 0x7d || d === 0x5d) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  let i = at;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === QUOTE) {
      i = skipString(text, i);
      if (i < 0) return -1;
      continue;
    }
    if (d === 0x7b || d === 0x5b) depth++;
    else if (d === 0x7d || d === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/**
 * Where `history` and `artifacts` lie in a task's JSON text, or undefined when the text is not the
 * compact object JSON.stringify writes (the caller then reads the task whole).
 */
export function taskParts(json: string): TaskParts | undefined {
  if (json.charCodeAt(0) !== 0x7b) return undefined;
  const parts: TaskParts = { history: undefined, artifacts: undefined, members: 0 };
  let i = 1;
  if (json.charCodeAt(i) === 0x7d) return parts;
  for (;;) {
    if (json.charCodeAt(i) !== QUOTE) return undefined;
    const start = i;
    const keyEnd = skipString(json, i);
    if (keyEnd < 0 || json.charCodeAt(keyEnd) !== 0x3a) return undefined;
    const valueStart = keyEnd + 1;
    const end = skipValue(json, valueStart);
    if (end < 0) return undefined;
    parts.members++;
    const key = json.slice(start + 1, keyEnd - 1);
    if (key === 'history') parts.history = { start, valueStart, end };
    else if (key === 'artifacts') parts.artifacts = { start, valueStart, end };
    const next = json.charCodeAt(end);
    if (next === 0x7d) return end === json.length - 1 ? parts : undefined;
    if (next !== 0x2c) return undefined;
    i = end + 1;
  }
}

const spanBytes = (span: MemberSpan | undefined): number => (span === undefined ? 0 : span.end - span.valueStart);
const memberBytes = (span: MemberSpan | undefined): number => (span === undefined ? 0 : span.end - span.start);

export function partSizes(json: string, parts: TaskParts): PartSizes {
  const cut = (parts.history ? 1 : 0) + (parts.artifacts ? 1 : 0);
  // Each member cut takes one comma with it while any is left between the members.
  const commas = Math.max(0, parts.members - 1) - Math.max(0, parts.members - cut - 1);
  return {
    summaryBytes: json.length - memberBytes(parts.history) - memberBytes(parts.artifacts) - commas,
    historyBytes: spanBytes(parts.history),
    artifactsBytes: spanBytes(parts.artifacts),
  };
}

/** The task's JSON text without its `history` and `artifacts` members. */
export function summaryText(json: string, parts: TaskParts): string {
  const cuts = [parts.history, parts.artifacts].filter((s): s is MemberSpan => s !== undefined).sort((a, b) => a.start - b.start);
  let out = '';
  let from = 0;
  for (const cut of cuts) {
    out += json.slice(from, cut.start);
    from = cut.end;
    // Drop the member's separator: the comma after it, or (for the last member) the one before.
    if (json.charCodeAt(from) === 0x2c) from++;
    else if (out.charCodeAt(out.length - 1) === 0x2c) out = out.slice(0, -1);
  }
  return out + json.slice(from);
}

/** The JSON text of one part's value, or undefined when the task has none. */
export const partText = (json: string, span: MemberSpan | undefined): string | undefined =>
  span === undefined ? undefined : json.slice(span.valueStart, span.end);
