/**
 * The v1.0 `SendMessageResponse` and `StreamResponse` (a task or a message) written straight
 * from their proto-JSON, without the reference path's JSON text and reflective walk
 * (`referenceEncoder` in codec.ts: JSON.stringify, fromJsonString, toBinary), which was the gRPC
 * transport's largest cost of its own per call.
 *
 * It answers only for what it is sure of: ids, roles, states, timestamps in the `Z` form, and
 * text parts; anything else (metadata, data or file parts, a key it does not know, a null) makes
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
    if (key !== 'filename' && key !== 'mediaType') throw STEP_ASIDE;
  }
  if (p.filename !== undefined) stringField(w, 6, p.filename);
  if (p.mediaType !== undefined) stringField(w, 7, p.mediaType);
}

const parts = (w: BinaryWriter, field: number, value: unknown): void => {
  for (const p of list(value)) nested(w, field, (w) => part(w, p));
};

const MESSAGE_KEYS = new Set(['messageId', 'contextId', 'taskId', 'role', 'parts', 'extensions', 'referenceTaskIds']);

function message(w: BinaryWriter, value: unknown): void {
  const m = object(value);
  for (const key in m) if (m[key] !== undefined && !MESSAGE_KEYS.has(key)) throw STEP_ASIDE;
  if (m.messageId !== undefined) stringField(w, 1, m.messageId);
  if (m.contextId !== undefined) stringField(w, 2, m.contextId);
  if (m.taskId !== undefined) stringField(w, 3, m.taskId);
  if (m.role !== undefined) enumField(w, 4, ROLES, m.role);
  if (m.parts !== undefined) parts(w, 5, m.parts);
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

const ARTIFACT_KEYS = new Set(['artifactId', 'name', 'description', 'parts', 'extensions']);

function artifact(w: BinaryWriter, value: unknown): void {
  const a = object(value);
  for (const key in a) if (a[key] !== undefined && !ARTIFACT_KEYS.has(key)) throw STEP_ASIDE;
  if (a.artifactId !== undefined) stringField(w, 1, a.artifactId);
  if (a.name !== undefined) stringField(w, 2, a.name);
  if (a.description !== undefined) stringField(w, 3, a.description);
  if (a.parts !== undefined) parts(w, 4, a.parts);
  if (a.extensions !== undefined) repeatedStrings(w, 6, a.extensions);
}

const TASK_KEYS = new Set(['id', 'contextId', 'status', 'artifacts', 'history']);

function task(w: BinaryWriter, value: unknown): void {
  const t = object(value);
  for (const key in t) if (t[key] !== undefined && !TASK_KEYS.has(key)) throw STEP_ASIDE;
  if (t.id !== undefined) stringField(w, 1, t.id);
  if (t.contextId !== undefined) stringField(w, 2, t.contextId);
  if (t.status !== undefined) nested(w, 3, (w) => status(w, t.status));
  if (t.artifacts !== undefined) for (const a of list(t.artifacts)) nested(w, 4, (w) => artifact(w, a));
  if (t.history !== undefined) for (const m of list(t.history)) nested(w, 5, (w) => message(w, m));
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
