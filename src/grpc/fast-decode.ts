/**
 * The v1.0 `SendMessageRequest` (what `SendMessage` and `SendStreamingMessage` take) read from its
 * bytes straight to its proto-JSON, without the reference path's message object in between
 * (`referenceDecoder` in codec.ts: fromBinary, then toJson).
 *
 * It answers only for what it is sure of: a tenant, a message of ids, a role and text parts
 * (with filename and media type), extensions and referenced tasks, and a configuration of
 * accepted output modes, history length and return-immediately. Anything else (metadata, data,
 * file or URL parts, a push config, a field it does not know, a message field sent twice, text
 * that is not valid UTF-8, bytes that end early) makes it step aside with `undefined`, and the
 * reference path decodes, or refuses. Where it answers, the value is the reference path's, key
 * for key in the same order: test/unit/grpc-fast-decode.test.ts holds the two equal.
 */
import { getTextEncoding } from '@bufbuild/protobuf/wire';

/** Thrown inside, caught at the top: the input is not one this path is sure of. */
const STEP_ASIDE: unique symbol = Symbol('step aside');

const VARINT = 0;
const LEN = 2;

const ROLE_NAMES: readonly string[] = ['', 'ROLE_USER', 'ROLE_AGENT'];

type Json = Record<string, unknown>;

/** A cursor over one request's bytes. */
interface Reader {
  buf: Buffer;
  pos: number;
}

/** A varint of at most 32 bits (tags, lengths, small numbers). */
function uint32(r: Reader, end: number): number {
  let n = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (r.pos >= end) throw STEP_ASIDE;
    const b = r.buf[r.pos++] as number;
    n += (b & 127) * 2 ** shift;
    if (b < 128) {
      if (n > 0xffffffff) throw STEP_ASIDE;
      return n;
    }
  }
  throw STEP_ASIDE;
}

/** The end of a length-delimited field whose length comes next. */
function delimited(r: Reader, end: number): number {
  const length = uint32(r, end);
  if (length > end - r.pos) throw STEP_ASIDE;
  return r.pos + length;
}

/** Valid UTF-8 only, as the reference path's proto3 reader insists; ASCII without the text decoder. */
function string(r: Reader, end: number): string {
  const stop = delimited(r, end);
  const { buf } = r;
  const start = r.pos;
  r.pos = stop;
  for (let i = start; i < stop; i++) if ((buf[i] as number) > 127) return utf8(buf, start, stop);
  return buf.toString('latin1', start, stop);
}

function utf8(buf: Buffer, start: number, stop: number): string {
  try {
    return getTextEncoding().decodeUtf8(buf.subarray(start, stop), true);
  } catch {
    throw STEP_ASIDE;
  }
}

/** A tag's field number, once its wire type is the one expected. */
function expect(wireType: number, tag: number): void {
  if ((tag & 7) !== wireType) throw STEP_ASIDE;
}

/** `Part`: a text (a oneof member, so written even when empty), a filename and a media type. */
function part(r: Reader, end: number): Json {
  let text: string | undefined;
  let filename = '';
  let mediaType = '';
  while (r.pos < end) {
    const tag = uint32(r, end);
    expect(LEN, tag);
    switch (tag >>> 3) {
      case 1:
        text = string(r, end);
        break;
      case 6:
        filename = string(r, end);
        break;
      case 7:
        mediaType = string(r, end);
        break;
      default:
        throw STEP_ASIDE;
    }
  }
  if (text === undefined) throw STEP_ASIDE;
  const json: Json = { text };
  if (filename !== '') json.filename = filename;
  if (mediaType !== '') json.mediaType = mediaType;
  return json;
}

function message(r: Reader, end: number): Json {
  let messageId = '';
  let contextId = '';
  let taskId = '';
  let role = 0;
  const parts: Json[] = [];
  const extensions: string[] = [];
  const referenceTaskIds: string[] = [];
  while (r.pos < end) {
    const tag = uint32(r, end);
    const field = tag >>> 3;
    if (field === 4) {
      expect(VARINT, tag);
      role = uint32(r, end);
      if (role >= ROLE_NAMES.length) throw STEP_ASIDE;
      continue;
    }
    expect(LEN, tag);
    switch (field) {
      case 1:
        messageId = string(r, end);
        break;
      case 2:
        contextId = string(r, end);
        break;
      case 3:
        taskId = string(r, end);
        break;
      case 5: {
        const stop = delimited(r, end);
        parts.push(part(r, stop));
        break;
      }
      case 7:
        extensions.push(string(r, end));
        break;
      case 8:
        referenceTaskIds.push(string(r, end));
        break;
      default:
        throw STEP_ASIDE;
    }
  }
  const json: Json = {};
  if (messageId !== '') json.messageId = messageId;
  if (contextId !== '') json.contextId = contextId;
  if (taskId !== '') json.taskId = taskId;
  if (role !== 0) json.role = ROLE_NAMES[role];
  if (parts.length > 0) json.parts = parts;
  if (extensions.length > 0) json.extensions = extensions;
  if (referenceTaskIds.length > 0) json.referenceTaskIds = referenceTaskIds;
  return json;
}

/** `SendMessageConfiguration` without a push config; `history_length` has presence, so a 0 is kept. */
function configuration(r: Reader, end: number): Json {
  const acceptedOutputModes: string[] = [];
  let historyLength: number | undefined;
  let returnImmediately = false;
  while (r.pos < end) {
    const tag = uint32(r, end);
    switch (tag >>> 3) {
      case 1:
        expect(LEN, tag);
        acceptedOutputModes.push(string(r, end));
        break;
      case 3:
        expect(VARINT, tag);
        historyLength = uint32(r, end);
        // A negative int32 is ten bytes on the wire: left to the reference path.
        if (historyLength > 0x7fffffff) throw STEP_ASIDE;
        break;
      case 4: {
        expect(VARINT, tag);
        const flag = uint32(r, end);
        if (flag > 1) throw STEP_ASIDE;
        returnImmediately = flag === 1;
        break;
      }
      default:
        throw STEP_ASIDE;
    }
  }
  const json: Json = {};
  if (acceptedOutputModes.length > 0) json.acceptedOutputModes = acceptedOutputModes;
  if (historyLength !== undefined) json.historyLength = historyLength;
  if (returnImmediately) json.returnImmediately = true;
  return json;
}

/** The proto-JSON of a v1.0 `SendMessageRequest`, or `undefined` to leave it to the reference path. */
export function fastSendMessageRequestV1(bytes: Buffer): unknown {
  const r: Reader = { buf: bytes, pos: 0 };
  const end = bytes.length;
  let tenant = '';
  let msg: Json | undefined;
  let conf: Json | undefined;
  try {
    while (r.pos < end) {
      const tag = uint32(r, end);
      expect(LEN, tag);
      switch (tag >>> 3) {
        case 1:
          tenant = string(r, end);
          break;
        // A message field sent twice is merged on the reference path: left to it.
        case 2:
          if (msg !== undefined) throw STEP_ASIDE;
          msg = message(r, delimited(r, end));
          break;
        case 3:
          if (conf !== undefined) throw STEP_ASIDE;
          conf = configuration(r, delimited(r, end));
          break;
        default:
          throw STEP_ASIDE;
      }
    }
  } catch (err) {
    if (err === STEP_ASIDE) return undefined;
    throw err;
  }
  const json: Json = {};
  if (tenant !== '') json.tenant = tenant;
  if (msg !== undefined) json.message = msg;
  if (conf !== undefined) json.configuration = conf;
  return json;
}
