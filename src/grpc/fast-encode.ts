/**
 * The v1.0 `SendMessageResponse` and `StreamResponse` (a task or a message) written straight
 * from their proto-JSON, without the reference path's JSON text and reflective walk
 * (`referenceEncoder` in codec.ts: JSON.stringify, fromJsonString, toBinary), which was the gRPC
 * transport's largest cost of its own per call.
 *
 * It answers only for what it is sure of: ids, roles, states, timestamps in the `Z` form, text
 * parts and JSON metadata; anything else (data or file parts, a key it does not know, a null) makes
 * it step aside with `undefined`, and the reference path encodes. Where it answers, the bytes are
 * the reference path's, field for field in field-number order: test/unit/grpc-fast-encode.test.ts
 * holds the two equal.
 */
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

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
function stringField(w: BinaryWriter, field: number, value: unknown): void {
  const s = text(value);
  if (s !== '') w.tag(field, WireType.LengthDelimited).string(s);
}

function repeatedStrings(w: BinaryWriter, field: number, value: unknown): void {
  for (const s of list(value)) w.tag(field, WireType.LengthDelimited).string(text(s));
}

function enumField(w: BinaryWriter, field: number, names: Readonly<Record<string, number>>, value: unknown): void {
  const n = Object.hasOwn(names, text(value)) ? names[value as string] : undefined;
  if (n === undefined) throw STEP_ASIDE;
  if (n !== 0) w.tag(field, WireType.Varint).int32(n);
}

function nested(w: BinaryWriter, field: number, write: (w: BinaryWriter) => void): void {
  w.tag(field, WireType.LengthDelimited).fork();
  write(w);
  w.join();
}

/** JSON.parse's objects, or prototype-less ones; anything else (a Date, a class) has its own JSON form. */
function plainObject(value: unknown): Json {
  const o = object(value);
  const proto: unknown = Object.getPrototypeOf(o);
  if (proto !== Object.prototype && proto !== null) throw STEP_ASIDE;
  return o;
}

/** `google.protobuf.Struct`: map<string, Value> fields = 1, each entry's key and value always written. */
function struct(w: BinaryWriter, value: unknown): void {
  const o = plainObject(value);
  for (const key in o) {
    const v = o[key];
    // JSON text leaves undefined members out, as the reference path does.
    if (v === undefined) continue;
    w.tag(1, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(key);
    nested(w, 2, (w) => jsonValue(w, v));
    w.join();
  }
}

/** `google.protobuf.Value`: a oneof, so even a zero, an empty string or false is written. */
function jsonValue(w: BinaryWriter, v: unknown): void {
  switch (typeof v) {
    case 'string':
      w.tag(3, WireType.LengthDelimited).string(v);
      return;
    case 'number':
      // JSON text has no NaN or infinities, and writes -0 as 0.
      if (!Number.isFinite(v)) throw STEP_ASIDE;
      w.tag(2, WireType.Bit64).double(v === 0 ? 0 : v);
      return;
    case 'boolean':
      w.tag(4, WireType.Varint).bool(v);
      return;
    case 'object':
      if (v === null) w.tag(1, WireType.Varint).int32(0);
      else if (Array.isArray(v)) nested(w, 6, (w) => listValue(w, v));
      else nested(w, 5, (w) => struct(w, v));
      return;
    default:
      throw STEP_ASIDE;
  }
}

/** `google.protobuf.ListValue`: repeated Value values = 1 (JSON text would turn a hole into null: step aside). */
function listValue(w: BinaryWriter, values: unknown[]): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) throw STEP_ASIDE;
    nested(w, 1, (w) => jsonValue(w, v));
  }
}

const RFC3339_Z = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

/** `google.protobuf.Timestamp` from the `…Z` form (other forms and years before 1970 step aside). */
function timestamp(w: BinaryWriter, value: unknown): void {
  const s = text(value);
  const m = RFC3339_Z.exec(s);
  if (!m || Number(m[1]) < 1970) throw STEP_ASIDE;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  // Date.UTC rolls a 31st of a 30-day month over; such a text is not a date.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== s.slice(0, 19)) throw STEP_ASIDE;
  const seconds = ms / 1000;
  const nanos = m[7] === undefined ? 0 : Number(m[7].padEnd(9, '0'));
  if (seconds !== 0) w.tag(1, WireType.Varint).int64(seconds);
  if (nanos !== 0) w.tag(2, WireType.Varint).int32(nanos);
}

/** A text part; its `text` is in a oneof, so it is written even when empty. */
function part(w: BinaryWriter, value: unknown): void {
  const p = object(value);
  if (typeof p.text !== 'string') throw STEP_ASIDE;
  w.tag(1, WireType.LengthDelimited).string(p.text);
  for (const key in p) {
    if (key === 'text' || p[key] === undefined) continue;
    if (key !== 'filename' && key !== 'mediaType' && key !== 'metadata') throw STEP_ASIDE;
  }
  if (p.metadata !== undefined) nested(w, 5, (w) => struct(w, p.metadata));
  if (p.filename !== undefined) stringField(w, 6, p.filename);
  if (p.mediaType !== undefined) stringField(w, 7, p.mediaType);
}

const parts = (w: BinaryWriter, field: number, value: unknown): void => {
  for (const p of list(value)) nested(w, field, (w) => part(w, p));
};

const MESSAGE_KEYS = new Set(['messageId', 'contextId', 'taskId', 'role', 'parts', 'metadata', 'extensions', 'referenceTaskIds']);

function message(w: BinaryWriter, value: unknown): void {
  const m = object(value);
  for (const key in m) if (m[key] !== undefined && !MESSAGE_KEYS.has(key)) throw STEP_ASIDE;
  if (m.messageId !== undefined) stringField(w, 1, m.messageId);
  if (m.contextId !== undefined) stringField(w, 2, m.contextId);
  if (m.taskId !== undefined) stringField(w, 3, m.taskId);
  if (m.role !== undefined) enumField(w, 4, ROLES, m.role);
  if (m.parts !== undefined) parts(w, 5, m.parts);
  if (m.metadata !== undefined) nested(w, 6, (w) => struct(w, m.metadata));
  if (m.extensions !== undefined) repeatedStrings(w, 7, m.extensions);
  if (m.referenceTaskIds !== undefined) repeatedStrings(w, 8, m.referenceTaskIds);
}

const STATUS_KEYS = new Set(['state', 'message', 'timestamp']);

function status(w: BinaryWriter, value: unknown): void {
  const s = object(value);
  for (const key in s) if (s[key] !== undefined && !STATUS_KEYS.has(key)) throw STEP_ASIDE;
  if (s.state !== undefined) enumField(w, 1, TASK_STATES, s.state);
  if (s.message !== undefined) nested(w, 2, (w) => message(w, s.message));
  if (s.timestamp !== undefined) nested(w, 3, (w) => timestamp(w, s.timestamp));
}

const ARTIFACT_KEYS = new Set(['artifactId', 'name', 'description', 'parts', 'metadata', 'extensions']);

function artifact(w: BinaryWriter, value: unknown): void {
  const a = object(value);
  for (const key in a) if (a[key] !== undefined && !ARTIFACT_KEYS.has(key)) throw STEP_ASIDE;
  if (a.artifactId !== undefined) stringField(w, 1, a.artifactId);
  if (a.name !== undefined) stringField(w, 2, a.name);
  if (a.description !== undefined) stringField(w, 3, a.description);
  if (a.parts !== undefined) parts(w, 4, a.parts);
  if (a.metadata !== undefined) nested(w, 5, (w) => struct(w, a.metadata));
  if (a.extensions !== undefined) repeatedStrings(w, 6, a.extensions);
}

const TASK_KEYS = new Set(['id', 'contextId', 'status', 'artifacts', 'history', 'metadata']);

function task(w: BinaryWriter, value: unknown): void {
  const t = object(value);
  for (const key in t) if (t[key] !== undefined && !TASK_KEYS.has(key)) throw STEP_ASIDE;
  if (t.id !== undefined) stringField(w, 1, t.id);
  if (t.contextId !== undefined) stringField(w, 2, t.contextId);
  if (t.status !== undefined) nested(w, 3, (w) => status(w, t.status));
  if (t.artifacts !== undefined) for (const a of list(t.artifacts)) nested(w, 4, (w) => artifact(w, a));
  if (t.history !== undefined) for (const m of list(t.history)) nested(w, 5, (w) => message(w, m));
  if (t.metadata !== undefined) nested(w, 6, (w) => struct(w, t.metadata));
}

/**
 * A v1.0 `SendMessageResponse` or `StreamResponse` holding a task (field 1) or a message
 * (field 2), the two messages numbering those alike; `undefined` for anything else.
 */
export function fastTaskOrMessageV1(json: unknown): Buffer | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const { task: t, message: m } = json as Json;
  let keys = 0;
  for (const key in json) if ((json as Json)[key] !== undefined) keys++;
  if (keys !== 1 || (t === undefined) === (m === undefined)) return undefined;
  const w = new BinaryWriter();
  try {
    if (t !== undefined) nested(w, 1, (w) => task(w, t));
    else nested(w, 2, (w) => message(w, m));
  } catch (err) {
    if (err === STEP_ASIDE) return undefined;
    throw err;
  }
  const bytes = w.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
