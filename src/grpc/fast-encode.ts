/**
 * The v1.0 `SendMessageResponse` and `StreamResponse` (a task or a message) written straight
 * from their proto-JSON into one buffer, without the reference path's JSON text and reflective
 * walk (`referenceEncoder` in codec.ts: JSON.stringify, fromJsonString, toBinary), which was the
 * gRPC transport's largest cost of its own per call, and without a general writer's chunk per
 * nested message and byte array per string.
 *
 * It answers only for what it is sure of: ids, roles, states, timestamps in the `Z` form, text
 * parts and JSON metadata; anything else (data or file parts, a key it does not know, a null) makes
 * it step aside with `undefined`, and the reference path encodes. Where it answers, the bytes are
 * the reference path's, field for field in field-number order: test/unit/grpc-fast-encode.test.ts
 * holds the two equal.
 */
import { asciiDigits } from '../a2a/ascii-digits.js';

/** Thrown inside, caught at the top: the input is not one this path is sure of. */
const STEP_ASIDE: unique symbol = Symbol('step aside');

const TASK_STATES: Readonly<Record<string, number>> = {
  TASK_STATE_UNSPECIFIED: 0,
  TASK_STATE_SUBMITTED: 1,
  TASK_STATE_WORKING: 2,
  TASK_STATE_COMPLETED: 3,
  TASK_STATE_FAILED: 4,
  TASK_STATE_CANCELED: 5,
  TASK_STATE_INPUT_REQUIRED: 6,
  TASK_STATE_REJECTED: 7,
  TASK_STATE_AUTH_REQUIRED: 8,
};

const ROLES: Readonly<Record<string, number>> = { ROLE_UNSPECIFIED: 0, ROLE_USER: 1, ROLE_AGENT: 2 };

type Json = Record<string, unknown>;

/*
 * The writer: one scratch buffer the answer is written into, then copied out. A nested message's
 * length comes before it and is known only after it: one byte is kept for it, enough below 128
 * bytes, and a longer message is moved up by the bytes its length needs more. Every field number
 * here is below 16, so a tag is one byte.
 */
const LEN = 2;
const VARINT = 0;
const BIT64 = 1;
const SCRATCH_BYTES = 8192;
/** An answer that grew the scratch past this does not keep it: a big answer is rare. */
const SCRATCH_KEPT_BYTES = 1 << 20;
let buf = Buffer.allocUnsafe(SCRATCH_BYTES);
let pos = 0;
/** Set while an answer is written: a getter in metadata that asks for another would overwrite it. */
let writing = false;

function room(n: number): void {
  if (pos + n <= buf.length) return;
  const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, pos + n));
  buf.copy(bigger, 0, 0, pos);
  buf = bigger;
}

function tag(field: number, wireType: number): void {
  room(1);
  buf[pos++] = (field << 3) | wireType;
}

/** A non-negative integer up to 2^53. */
function varint(n: number): void {
  room(8);
  while (n > 127) {
    buf[pos++] = (n & 127) | 128;
    n = n > 0x7fffffff ? Math.floor(n / 128) : n >>> 7;
  }
  buf[pos++] = n;
}

/** UTF-8 as TextEncoder writes it (a lone surrogate as U+FFFD), as the reference path's writer does. */
function utf8(s: string): void {
  const n = s.length;
  if (n < 128) {
    room(n + 1);
    const at = pos + 1;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 127) break;
      buf[at + i] = c;
    }
    if (i === n) {
      buf[pos] = n;
      pos = at + n;
      return;
    }
  }
  const bytes = Buffer.byteLength(s, 'utf8');
  varint(bytes);
  room(bytes);
  pos += buf.write(s, pos, bytes, 'utf8');
}

/** Opens a nested message: its tag, and the byte kept for its length, whose index is returned. */
function open(field: number): number {
  room(2);
  buf[pos++] = (field << 3) | LEN;
  return pos++;
}

function close(at: number): void {
  const length = pos - at - 1;
  if (length < 128) {
    buf[at] = length;
    return;
  }
  // The bytes the length needs beyond the one kept.
  let more = 0;
  for (let n = length; n > 127; n = Math.floor(n / 128)) more++;
  room(more);
  buf.copyWithin(at + 1 + more, at + 1, pos);
  pos += more;
  let n = length;
  let p = at;
  while (n > 127) {
    buf[p++] = (n & 127) | 128;
    n >>>= 7;
  }
  buf[p] = n;
}

function object(value: unknown): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw STEP_ASIDE;
  return value as Json;
}

function text(value: unknown): string {
  if (typeof value !== 'string') throw STEP_ASIDE;
  return value;
}

function list(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw STEP_ASIDE;
  return value;
}

/** An implicit-presence string: the empty string is the default and is not written. */
function stringField(field: number, value: unknown): void {
  const s = text(value);
  if (s === '') return;
  tag(field, LEN);
  utf8(s);
}

function repeatedStrings(field: number, value: unknown): void {
  for (const s of list(value)) {
    tag(field, LEN);
    utf8(text(s));
  }
}

function enumField(field: number, names: Readonly<Record<string, number>>, value: unknown): void {
  const n = Object.hasOwn(names, text(value)) ? names[value as string] : undefined;
  if (n === undefined) throw STEP_ASIDE;
  if (n === 0) return;
  tag(field, VARINT);
  varint(n);
}

/** JSON.parse's objects, or prototype-less ones; anything else (a Date, a class) has its own JSON form. */
function plainObject(value: unknown): Json {
  const o = object(value);
  const proto: unknown = Object.getPrototypeOf(o);
  if (proto !== Object.prototype && proto !== null) throw STEP_ASIDE;
  return o;
}

/** `google.protobuf.Struct`: map<string, Value> fields = 1, each entry's key and value always written. */
function struct(value: unknown): void {
  const o = plainObject(value);
  for (const key in o) {
    const v = o[key];
    // JSON text leaves undefined members out, as the reference path does.
    if (v === undefined) continue;
    const entry = open(1);
    tag(1, LEN);
    utf8(key);
    const inner = open(2);
    jsonValue(v);
    close(inner);
    close(entry);
  }
}

/** `google.protobuf.Value`: a oneof, so even a zero, an empty string or false is written. */
function jsonValue(v: unknown): void {
  switch (typeof v) {
    case 'string':
      tag(3, LEN);
      utf8(v);
      return;
    case 'number':
      // JSON text has no NaN or infinities, and writes -0 as 0.
      if (!Number.isFinite(v)) throw STEP_ASIDE;
      tag(2, BIT64);
      room(8);
      pos = buf.writeDoubleLE(v === 0 ? 0 : v, pos);
      return;
    case 'boolean':
      tag(4, VARINT);
      varint(v ? 1 : 0);
      return;
    case 'object': {
      if (v === null) {
        tag(1, VARINT);
        varint(0);
        return;
      }
      const at = open(Array.isArray(v) ? 6 : 5);
      if (Array.isArray(v)) listValue(v);
      else struct(v);
      close(at);
      return;
    }
    default:
      throw STEP_ASIDE;
  }
}

/** `google.protobuf.ListValue`: repeated Value values = 1 (JSON text would turn a hole into null: step aside). */
function listValue(values: unknown[]): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) throw STEP_ASIDE;
    const at = open(1);
    jsonValue(v);
    close(at);
  }
}

const daysIn = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : month === 4 || month === 6 || month === 9 || month === 11
      ? 30
      : 31;

/** Characters at fixed places of `YYYY-MM-DDTHH:MM:SS`. */
const SEPARATORS: readonly (readonly [number, string])[] = [
  [4, '-'],
  [7, '-'],
  [10, 'T'],
  [13, ':'],
  [16, ':'],
];

/**
 * `google.protobuf.Timestamp` from `YYYY-MM-DDTHH:MM:SS[.f…]Z` with one to nine fraction digits,
 * a real date and time from 1970 on; any other text steps aside.
 */
function timestamp(value: unknown): void {
  const s = text(value);
  const n = s.length;
  if (n < 20 || s.charCodeAt(n - 1) !== 90 /* Z */) throw STEP_ASIDE;
  for (const [i, c] of SEPARATORS) if (s[i] !== c) throw STEP_ASIDE;
  const year = asciiDigits(s, 0, 4);
  const month = asciiDigits(s, 5, 2);
  const day = asciiDigits(s, 8, 2);
  const hour = asciiDigits(s, 11, 2);
  const minute = asciiDigits(s, 14, 2);
  const second = asciiDigits(s, 17, 2);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) throw STEP_ASIDE;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) throw STEP_ASIDE;
  let nanos = 0;
  if (n > 20) {
    const fraction = n - 21;
    if (s.charCodeAt(19) !== 46 /* . */ || fraction < 1 || fraction > 9) throw STEP_ASIDE;
    nanos = asciiDigits(s, 20, fraction);
    if (nanos < 0) throw STEP_ASIDE;
    nanos *= 10 ** (9 - fraction);
  }
  const seconds = Date.UTC(year, month - 1, day, hour, minute, second) / 1000;
  if (seconds !== 0) {
    tag(1, VARINT);
    varint(seconds);
  }
  if (nanos !== 0) {
    tag(2, VARINT);
    varint(nanos);
  }
}

/** A text part; its `text` is in a oneof, so it is written even when empty. */
function part(value: unknown): void {
  const p = object(value);
  if (typeof p.text !== 'string') throw STEP_ASIDE;
  tag(1, LEN);
  utf8(p.text);
  for (const key in p) {
    if (key === 'text' || p[key] === undefined) continue;
    if (key !== 'filename' && key !== 'mediaType' && key !== 'metadata') throw STEP_ASIDE;
  }
  if (p.metadata !== undefined) nestedStruct(5, p.metadata);
  if (p.filename !== undefined) stringField(6, p.filename);
  if (p.mediaType !== undefined) stringField(7, p.mediaType);
}

function nestedStruct(field: number, value: unknown): void {
  const at = open(field);
  struct(value);
  close(at);
}

function parts(field: number, value: unknown): void {
  for (const p of list(value)) {
    const at = open(field);
    part(p);
    close(at);
  }
}

const MESSAGE_KEYS = new Set(['messageId', 'contextId', 'taskId', 'role', 'parts', 'metadata', 'extensions', 'referenceTaskIds']);

function message(value: unknown): void {
  const m = object(value);
  for (const key in m) if (m[key] !== undefined && !MESSAGE_KEYS.has(key)) throw STEP_ASIDE;
  if (m.messageId !== undefined) stringField(1, m.messageId);
  if (m.contextId !== undefined) stringField(2, m.contextId);
  if (m.taskId !== undefined) stringField(3, m.taskId);
  if (m.role !== undefined) enumField(4, ROLES, m.role);
  if (m.parts !== undefined) parts(5, m.parts);
  if (m.metadata !== undefined) nestedStruct(6, m.metadata);
  if (m.extensions !== undefined) repeatedStrings(7, m.extensions);
  if (m.referenceTaskIds !== undefined) repeatedStrings(8, m.referenceTaskIds);
}

function nestedMessage(field: number, value: unknown): void {
  const at = open(field);
  message(value);
  close(at);
}

const STATUS_KEYS = new Set(['state', 'message', 'timestamp']);

function status(value: unknown): void {
  const s = object(value);
  for (const key in s) if (s[key] !== undefined && !STATUS_KEYS.has(key)) throw STEP_ASIDE;
  if (s.state !== undefined) enumField(1, TASK_STATES, s.state);
  if (s.message !== undefined) nestedMessage(2, s.message);
  if (s.timestamp !== undefined) {
    const at = open(3);
    timestamp(s.timestamp);
    close(at);
  }
}

const ARTIFACT_KEYS = new Set(['artifactId', 'name', 'description', 'parts', 'metadata', 'extensions']);

function artifact(value: unknown): void {
  const a = object(value);
  for (const key in a) if (a[key] !== undefined && !ARTIFACT_KEYS.has(key)) throw STEP_ASIDE;
  if (a.artifactId !== undefined) stringField(1, a.artifactId);
  if (a.name !== undefined) stringField(2, a.name);
  if (a.description !== undefined) stringField(3, a.description);
  if (a.parts !== undefined) parts(4, a.parts);
  if (a.metadata !== undefined) nestedStruct(5, a.metadata);
  if (a.extensions !== undefined) repeatedStrings(6, a.extensions);
}

const TASK_KEYS = new Set(['id', 'contextId', 'status', 'artifacts', 'history', 'metadata']);

function task(value: unknown): void {
  const t = object(value);
  for (const key in t) if (t[key] !== undefined && !TASK_KEYS.has(key)) throw STEP_ASIDE;
  if (t.id !== undefined) stringField(1, t.id);
  if (t.contextId !== undefined) stringField(2, t.contextId);
  if (t.status !== undefined) {
    const at = open(3);
    status(t.status);
    close(at);
  }
  if (t.artifacts !== undefined)
    for (const a of list(t.artifacts)) {
      const at = open(4);
      artifact(a);
      close(at);
    }
  if (t.history !== undefined) for (const m of list(t.history)) nestedMessage(5, m);
  if (t.metadata !== undefined) nestedStruct(6, t.metadata);
}

/**
 * A v1.0 `SendMessageResponse` or `StreamResponse` holding a task (field 1) or a message
 * (field 2), the two messages numbering those alike; `undefined` for anything else.
 */
export function fastTaskOrMessageV1(json: unknown): Buffer | undefined {
  if (typeof json !== 'object' || json === null || writing) return undefined;
  const { task: t, message: m } = json as Json;
  let keys = 0;
  for (const key in json) if ((json as Json)[key] !== undefined) keys++;
  if (keys !== 1 || (t === undefined) === (m === undefined)) return undefined;
  writing = true;
  pos = 0;
  try {
    const at = open(t !== undefined ? 1 : 2);
    if (t !== undefined) task(t);
    else message(m);
    close(at);
    const bytes = Buffer.allocUnsafe(pos);
    buf.copy(bytes, 0, 0, pos);
    return bytes;
  } catch (err) {
    if (err === STEP_ASIDE) return undefined;
    throw err;
  } finally {
    writing = false;
    if (buf.length > SCRATCH_KEPT_BYTES) buf = Buffer.allocUnsafe(SCRATCH_BYTES);
  }
}
