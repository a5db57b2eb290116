/**
 * A fast path for task-text.ts's packing, for the task shapes the runtime itself writes (text
 * parts, the runtime's metadata, agent or user messages, named artifacts). The reference packer
 * costs ~5 µs per echo task on the bench machine (two replaceAll of the ids, then a regex of
 * 18 alternatives calling back per match), most of it searching: here the fields are walked in
 * the order JSON.stringify writes them, so each fragment is checked once with startsWith where
 * it must be, and only free string values are searched (for their closing quote).
 *
 * The text is written as bytes first (one native write, straight into the memory store's arena
 * where it is kept) and compacted in place there: no string is built and nothing is copied. It gives the reference packer's bytes whenever both accept the text (a state word or a
 * fragment inside a free value is the only difference: the reference packs those too, this
 * leaves them); anything else (another shape, non-ASCII text) answers -1 and the caller packs
 * with the reference. Exactness does not depend on the walk: every code replaces exactly the
 * fragment it stands for, and JSON text holds no raw control characters.
 */
import { CONTEXT_ID, TASK_ID, codeOf } from './task-text.js';

interface Fragment {
  readonly text: string;
  readonly code: number;
}
const fragment = (text: string): Fragment => ({ text, code: codeOf(text) });

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
/** State words, in the reference's order (its alternation tries them in that order). */
const STATES = ['input-required', 'completed', 'working', 'submitted'].map(fragment);

const QUOTE = 0x22;
const EMPTY = Buffer.alloc(0);
const BACKSLASH = 0x5c;

export class TaskPacker {
  /** Where `pack` writes: its caller's buffer, held only during the call. */
  private bytes: Buffer = EMPTY;
  /** The byte the text's first character is written to. */
  private base = 0;
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
    this.json = json;
    this.taskId = taskId;
    this.contextId = contextId;
    this.pos = 0;
    this.from = 0;
    this.dst = at;
    const known = this.task() && this.pos === length;
    if (known) this.copyRaw();
    // Neither the caller's buffer nor its text is held past the call.
    this.json = '';
    this.bytes = EMPTY;
    return known ? this.dst - at : -1;
  }

  private task(): boolean {
    if (!(this.code(TASK) && this.id(this.taskId, TASK_ID) && this.code(CONTEXT) && this.id(this.contextId, CONTEXT_ID))) return false;
    if (!(this.code(STATUS) && this.state() && this.code(TIMESTAMP) && this.string())) return false;
    if (this.codeAfter('",', STATUS_MESSAGE)) {
      if (!(this.raw(',') && this.message() && this.raw('}'))) return false;
    } else if (!this.raw('"}')) return false;
    if (this.codeAfter(',', HISTORY)) {
      if (!(this.string() && this.raw('",') && this.message())) return false;
      for (;;) {
        if (this.codeAfter(',', AGENT_MESSAGE)) {
          if (!(this.raw(',') && this.message())) return false;
        } else if (this.raw(',{"kind":"message","role":"')) {
          if (!(this.string() && this.raw('",') && this.message())) return false;
        } else break;
      }
      if (!this.raw(']')) return false;
    }
    if (this.codeAfter(',', METADATA)) {
      if (!(this.state() && this.code(TIMESTAMP) && this.string())) return false;
      while (this.code(NEXT_TRANSITION)) if (!(this.state() && this.code(TIMESTAMP) && this.string())) return false;
      if (!(this.raw('"}]') && this.code(EVENT_SEQ) && this.digits() && this.raw('}'))) return false;
    }
    if (this.codeAfter(',', ARTIFACTS)) {
      if (!this.artifact()) return false;
      while (this.raw(',{"artifactId":"')) if (!this.artifact()) return false;
      if (!this.raw(']')) return false;
    }
    return this.raw('}');
  }

  /** A message from its parts on (its kind and role are read): text parts, id, task and context. */
  private message(): boolean {
    return (
      this.code(PARTS) &&
      this.textParts() &&
      this.raw(',') &&
      this.code(MESSAGE_ID) &&
      this.string() &&
      this.raw('"') &&
      this.code(TASK_ID_KEY) &&
      this.id(this.taskId, TASK_ID) &&
      this.code(CONTEXT) &&
      this.id(this.contextId, CONTEXT_ID) &&
      this.raw('}')
    );
  }

  /** An artifact from its id's value on: text parts and an optional name. */
  private artifact(): boolean {
    if (!(this.string() && this.raw('",') && this.code(PARTS) && this.textParts())) return false;
    if (this.raw(',"name":"') && !(this.string() && this.raw('"'))) return false;
    return this.raw('}');
  }

  /** The first text part's value on, to the end of the parts array. */
  private textParts(): boolean {
    if (!this.string()) return false;
    while (this.raw('"},{"kind":"text","text":"')) if (!this.string()) return false;
    return this.raw('"}]');
  }

  /** A task state's value: a known state is a code, another is left as it is. */
  private state(): boolean {
    for (let s = 0; s < STATES.length; s++) if (this.code(STATES[s] as Fragment)) return true;
    return this.string();
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

  /** Reads `text` if it comes next, leaving it raw. */
  private raw(text: string): boolean {
    if (!this.json.startsWith(text, this.pos)) return false;
    this.pos += text.length;
    return true;
  }

  /** Reads `fragment` if it comes next, writing its code. */
  private code({ text, code }: Fragment): boolean {
    if (!this.json.startsWith(text, this.pos)) return false;
    this.emit(code, this.pos + text.length);
    return true;
  }

  /** Reads `prefix` (left raw) and `fragment` if both come next, else reads nothing. */
  private codeAfter(prefix: string, fragment: Fragment): boolean {
    if (!this.json.startsWith(prefix, this.pos) || !this.json.startsWith(fragment.text, this.pos + prefix.length)) return false;
    this.pos += prefix.length;
    return this.code(fragment);
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
