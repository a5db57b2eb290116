/**
 * A fast path for task-text.ts's packing, for the task shapes the runtime itself writes (text
 * parts, the runtime's metadata, agent or user messages, named artifacts). The reference packer
 * searches the whole text three times (two replaceAll of the ids, then a regex of 18 alternatives
 * calling back per match), and every write of the memory store pays it: here the fields are walked
 * in the order JSON.stringify writes them, so each fragment is checked once where it must be
 * (against the bytes, four at a time), and only free string values are searched (for their closing
 * quote). docs/benchmark.md ("The memory store: packed against plain") has what each costs.
 *
 * The text is written as bytes first (one native write, straight into the memory store's arena
 * where it is kept) and compacted in place there: no string is built and nothing is copied. It
 * gives the reference packer's bytes whenever both accept the text (a state word or a
 * fragment inside a free value is the only difference: the reference packs those too, this
 * leaves them); anything else (another shape, non-ASCII text) answers -1 and the caller packs
 * with the reference. Exactness does not depend on the walk: every code replaces exactly the
 * fragment it stands for, and JSON text holds no raw control characters.
 */
import { CONTEXT_ID, TASK_ID, codeOf } from './task-text.js';

/**
 * Text the walk expects at some point. It is compared against the bytes already in the buffer,
 * four at a time (one 32-bit read each, where a `startsWith` is a call per fragment): `words`
 * holds the text's 32-bit little-endian words at 0, 4, 8, … and, last, the one ending at its end
 * (it may overlap the one before). Under four characters it is compared character by character.
 * One object shape for all (made in one place): the walk's reads of them stay monomorphic.
 */
interface Pattern {
  readonly text: string;
  readonly words: Int32Array;
  /** The code written for the text, or -1 for text left raw. */
  readonly code: number;
}

function pattern(text: string, code = -1): Pattern {
  const bytes = Buffer.from(text, 'latin1');
  const words: number[] = [];
  if (text.length >= 4) {
    for (let at = 0; at + 4 < text.length; at += 4) words.push(bytes.readInt32LE(at));
    words.push(bytes.readInt32LE(text.length - 4));
  }
  return { text, words: Int32Array.from(words), code };
}
const fragment = (text: string): Pattern => pattern(text, codeOf(text));

const TASK = fragment('{"kind":"task","id":');
const CONTEXT = fragment(',"contextId":');
const STATUS = fragment(',"status":{"state":"');
const TIMESTAMP = fragment('","timestamp":"');
const HISTORY = fragment('"history":[{"kind":"message","role":"');
const PARTS = fragment('"parts":[{"kind":"text","text":"');
const MESSAGE_ID = fragment('"messageId":"');
const TASK_ID_KEY = fragment(',"taskId":');
const METADATA = fragment('"metadata":{"stateTransitions":[{"state":"');
const NEXT_TRANSITION = fragment('"},{"state":"');
const EVENT_SEQ = fragment(',"_eventSeq":');
const ARTIFACTS = fragment('"artifacts":[{"artifactId":"');
const AGENT_MESSAGE = fragment('{"kind":"message","role":"agent"');
const STATUS_MESSAGE = fragment('"message":{"kind":"message","role":"agent"');
/** The state words that have a code, by their first letter (no two share one). */
const STATE_BY_LETTER: (Pattern | undefined)[] = [];
for (const state of ['input-required', 'completed', 'working', 'submitted']) {
  if (STATE_BY_LETTER[state.charCodeAt(0)]) throw new Error(`task packer: two states start with ${state[0]}`);
  STATE_BY_LETTER[state.charCodeAt(0)] = fragment(state);
}

/** Text left raw. */
const COMMA = pattern(',');
const QUOTE_TEXT = pattern('"');
const CLOSE_OBJECT = pattern('}');
const CLOSE_ARRAY = pattern(']');
const STRING_END = pattern('"}');
const STRING_NEXT = pattern('",');
const STRING_END_ARRAY = pattern('"}]');
const USER_MESSAGE = pattern(',{"kind":"message","role":"');
const NEXT_TEXT_PART = pattern('"},{"kind":"text","text":"');
const NAME = pattern(',"name":"');
const NEXT_ARTIFACT = pattern(',{"artifactId":"');

const QUOTE = 0x22;
const EMPTY = Buffer.alloc(0);
const NO_VIEW = new DataView(new ArrayBuffer(0));
const BACKSLASH = 0x5c;

export class TaskPacker {
  /** Where `pack` writes: its caller's buffer, held only during the call. */
  private bytes: Buffer = EMPTY;
  /** The byte the text's first character is written to. */
  private base = 0;
  /**
   * `bytes`' memory, read 32 bits at a time, and the byte the text starts at there. The view is
   * kept for the next call and made anew only for another buffer (the memory store writes
   * thousands of tasks into one arena chunk, and a new DataView is a call into C++).
   */
  private view: DataView = NO_VIEW;
  private viewBase = 0;
  private json = '';
  private taskId = '';
  private contextId = '';
  /** Next character to read. */
  private pos = 0;
  /** First character read but not yet copied (the raw text since the last code). */
  private from = 0;
  /** Next byte to write (absolute); never past `base + from`, so the compaction can work in place. */
  private dst = 0;

  /**
   * Packs `json` into `into` from byte `at` (which needs room for `json.length` bytes: the text
   * is written there whole, then compacted in place) and returns the packed length, or -1 if this
   * is not a shape it knows (the bytes from `at` are then garbage).
   */
  pack(json: string, taskId: string, contextId: string, into: Buffer, at: number): number {
    const length = json.length;
    // One byte per character is what lets the walk's positions index the bytes.
    if (Buffer.byteLength(json, 'utf8') !== length) return -1;
    if (at + length > into.length) throw new Error('task packer: no room for the text');
    into.write(json, at, length, 'latin1');
    this.bytes = into;
    this.base = at;
    if (this.view.buffer !== into.buffer) this.view = new DataView(into.buffer);
    this.viewBase = into.byteOffset + at;
    this.json = json;
    this.taskId = taskId;
    this.contextId = contextId;
    this.pos = 0;
    this.from = 0;
    this.dst = at;
    const known = this.task() && this.pos === length;
    if (known) this.copyRaw();
    // The text and the caller's Buffer are not held past the call (only the view, see `view`).
    this.json = '';
    this.bytes = EMPTY;
    return known ? this.dst - at : -1;
  }

  private task(): boolean {
    if (!(this.code(TASK) && this.id(this.taskId, TASK_ID) && this.code(CONTEXT) && this.id(this.contextId, CONTEXT_ID))) return false;
    if (!(this.code(STATUS) && this.state() && this.code(TIMESTAMP) && this.string())) return false;
    if (this.codeAfter(STRING_NEXT, STATUS_MESSAGE)) {
      if (!(this.raw(COMMA) && this.message() && this.raw(CLOSE_OBJECT))) return false;
    } else if (!this.raw(STRING_END)) return false;
    if (this.codeAfter(COMMA, HISTORY)) {
      if (!(this.string() && this.raw(STRING_NEXT) && this.message())) return false;
      for (;;) {
        if (this.codeAfter(COMMA, AGENT_MESSAGE)) {
          if (!(this.raw(COMMA) && this.message())) return false;
        } else if (this.raw(USER_MESSAGE)) {
          if (!(this.string() && this.raw(STRING_NEXT) && this.message())) return false;
        } else break;
      }
      if (!this.raw(CLOSE_ARRAY)) return false;
    }
    if (this.codeAfter(COMMA, METADATA)) {
      if (!(this.state() && this.code(TIMESTAMP) && this.string())) return false;
      while (this.code(NEXT_TRANSITION)) if (!(this.state() && this.code(TIMESTAMP) && this.string())) return false;
      if (!(this.raw(STRING_END_ARRAY) && this.code(EVENT_SEQ) && this.digits() && this.raw(CLOSE_OBJECT))) return false;
    }
    if (this.codeAfter(COMMA, ARTIFACTS)) {
      if (!this.artifact()) return false;
      while (this.raw(NEXT_ARTIFACT)) if (!this.artifact()) return false;
      if (!this.raw(CLOSE_ARRAY)) return false;
    }
    return this.raw(CLOSE_OBJECT);
  }

  /** A message from its parts on (its kind and role are read): text parts, id, task and context. */
  private message(): boolean {
    return (
      this.code(PARTS) &&
      this.textParts() &&
      this.raw(COMMA) &&
      this.code(MESSAGE_ID) &&
      this.string() &&
      this.raw(QUOTE_TEXT) &&
      this.code(TASK_ID_KEY) &&
      this.id(this.taskId, TASK_ID) &&
      this.code(CONTEXT) &&
      this.id(this.contextId, CONTEXT_ID) &&
      this.raw(CLOSE_OBJECT)
    );
  }

  /** An artifact from its id's value on: text parts and an optional name. */
  private artifact(): boolean {
    if (!(this.string() && this.raw(STRING_NEXT) && this.code(PARTS) && this.textParts())) return false;
    if (this.raw(NAME) && !(this.string() && this.raw(QUOTE_TEXT))) return false;
    return this.raw(CLOSE_OBJECT);
  }

  /** The first text part's value on, to the end of the parts array. */
  private textParts(): boolean {
    if (!this.string()) return false;
    while (this.raw(NEXT_TEXT_PART)) if (!this.string()) return false;
    return this.raw(STRING_END_ARRAY);
  }

  /**
   * A task state's value: a known state is a code, another is left as it is. The known states
   * start with four different letters, so the first one says which to try.
   */
  private state(): boolean {
    const known = STATE_BY_LETTER[this.json.charCodeAt(this.pos)];
    return (known !== undefined && this.code(known)) || this.string();
  }

  /** `"id"`, as the reference packer replaces it. */
  private id(id: string, code: number): boolean {
    const json = this.json;
    const at = this.pos;
    if (json.charCodeAt(at) !== QUOTE || json.charCodeAt(at + 1 + id.length) !== QUOTE || !json.startsWith(id, at + 1)) return false;
    this.emit(code, at + id.length + 2);
    return true;
  }

  /** Skips a string value's characters, up to (not past) its closing quote. */
  private string(): boolean {
    const json = this.json;
    for (let quote = json.indexOf('"', this.pos); quote >= 0; quote = json.indexOf('"', quote + 1)) {
      let backslashes = 0;
      while (json.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) {
        this.pos = quote;
        return true;
      }
    }
    return false;
  }

  private digits(): boolean {
    const start = this.pos;
    while (this.pos < this.json.length && (this.json.charCodeAt(this.pos) - 0x30) >>> 0 < 10) this.pos++;
    return this.pos > start;
  }

  /** Whether `expected` comes at character `at`. */
  private sees({ text, words }: Pattern, at: number): boolean {
    const length = text.length;
    if (at + length > this.json.length) return false;
    if (length < 4) {
      for (let i = 0; i < length; i++) if (this.json.charCodeAt(at + i) !== text.charCodeAt(i)) return false;
      return true;
    }
    // The text from `pos` on is still as written (the compaction writes behind it).
    const view = this.view;
    const start = this.viewBase + at;
    const last = words.length - 1;
    for (let i = 0; i < last; i++) if (view.getInt32(start + 4 * i, true) !== words[i]) return false;
    return view.getInt32(start + length - 4, true) === words[last];
  }

  /** Reads `expected` if it comes next, leaving it raw. */
  private raw(expected: Pattern): boolean {
    if (!this.sees(expected, this.pos)) return false;
    this.pos += expected.text.length;
    return true;
  }

  /** Reads `fragment` if it comes next, writing its code. */
  private code(fragment: Pattern): boolean {
    if (!this.sees(fragment, this.pos)) return false;
    this.emit(fragment.code, this.pos + fragment.text.length);
    return true;
  }

  /** Reads `prefix` (left raw) and `fragment` if both come next, else reads nothing. */
  private codeAfter(prefix: Pattern, fragment: Pattern): boolean {
    const at = this.pos + prefix.text.length;
    if (!this.sees(prefix, this.pos) || !this.sees(fragment, at)) return false;
    this.pos = at;
    this.emit(fragment.code, at + fragment.text.length);
    return true;
  }

  /** Writes the raw text read so far, then `code` for the characters up to `end`. */
  private emit(code: number, end: number): void {
    this.copyRaw();
    this.bytes[this.dst++] = code;
    this.pos = end;
    this.from = end;
  }

  private copyRaw(): void {
    const bytes = this.bytes;
    const base = this.base;
    let dst = this.dst;
    for (let i = this.from; i < this.pos; i++) bytes[dst++] = bytes[base + i] as number;
    this.dst = dst;
    this.from = this.pos;
  }
}
