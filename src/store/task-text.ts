/**
 * The memory store's compact form of a task's JSON text. A stored task repeats its own id and
 * context id (on the task and on every message) and the same key sequences every task has; in
 * the arena those are bytes of resident memory per task. Each is written as one control
 * character, which JSON text never holds raw (RFC 8259 §7: strings escape U+0000..U+001F; the
 * whitespace allowed between tokens, tab, LF and CR, is not used as a code). Packing is exact:
 * `unpackTask(packTask(t, …), …) === t` for any text without those characters, which every
 * JSON.stringify output is.
 */

/** Key sequences of the runtime's task records, most frequent first. Append only: stored texts use these codes. */
const FRAGMENTS = [
  '{"kind":"task","id":',
  ',"contextId":',
  ',"status":{"state":"',
  '","timestamp":"',
  '"history":[{"kind":"message","role":"',
  '"parts":[{"kind":"text","text":"',
  '"messageId":"',
  ',"taskId":',
  '"metadata":{"stateTransitions":[{"state":"',
  '"},{"state":"',
  ',"_eventSeq":',
  '"artifacts":[{"artifactId":"',
  '{"kind":"message","role":"agent"',
  '"message":{"kind":"message","role":"agent"',
  'input-required',
  'completed',
  'working',
  'submitted',
];

export const TASK_ID = 0x01;
export const CONTEXT_ID = 0x02;
/** The codes of FRAGMENTS: control characters other than tab, LF and CR. */
const CODES = Array.from({ length: 0x20 }, (_, c) => c).filter((c) => c > CONTEXT_ID && c !== 0x09 && c !== 0x0a && c !== 0x0d);
if (FRAGMENTS.length > CODES.length) throw new Error('task-text: more fragments than codes');

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const FRAGMENT_PATTERN = new RegExp(FRAGMENTS.map(escapeRegExp).join('|'), 'g');
/** The code (a char code) standing for one of the fragments above. */
export function codeOf(fragment: string): number {
  const at = FRAGMENTS.indexOf(fragment);
  if (at < 0) throw new Error(`task-text: not a fragment: ${fragment}`);
  return CODES[at] as number;
}
const CODE_OF = new Map(FRAGMENTS.map((f, i) => [f, String.fromCharCode(CODES[i] as number)]));
const FRAGMENT_OF: (string | undefined)[] = [];
FRAGMENTS.forEach((f, i) => (FRAGMENT_OF[CODES[i] as number] = f));
// Control characters are the point here: they are what JSON text cannot hold raw.
// eslint-disable-next-line no-control-regex
const ANY_CODE = /[\x01-\x08\x0b\x0c\x0e-\x1f]/g;

/**
 * The compact form of a task's JSON text, given the task's id and context id: the reference
 * packing, for any text (task-packer.ts packs the runtime's own task shapes faster, to the
 * same bytes).
 */
export function packTask(json: string, taskId: string, contextId: string): string {
  return json
    .replaceAll(`"${taskId}"`, '\x01')
    .replaceAll(`"${contextId}"`, '\x02')
    .replace(FRAGMENT_PATTERN, (fragment) => CODE_OF.get(fragment) as string);
}

/** The JSON text `packTask` was given. */
export function unpackTask(packed: string, taskId: string, contextId: string): string {
  const id = `"${taskId}"`;
  const context = `"${contextId}"`;
  return packed.replace(ANY_CODE, (code) => {
    const c = code.charCodeAt(0);
    return c === TASK_ID ? id : c === CONTEXT_ID ? context : (FRAGMENT_OF[c] as string);
  });
}
