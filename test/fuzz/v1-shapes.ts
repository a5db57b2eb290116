/**
 * What an A2A v1.0 answer must look like (README "Protocol versions", wire reference §3.3, §6):
 * `google.rpc.Status` REST errors with an ErrorInfo first in their details, JSON-RPC errors with
 * the ErrorInfo first in `data`, proto-JSON results without `kind`, and stream events that are
 * `StreamResponse`s (one of four members, no `final`).
 */
import { expect } from 'vitest';
import type { Json } from '../support/a2a.js';

export const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

/**
 * The ErrorInfo reason of each code: the A2A error's name in UPPER_SNAKE without "Error". -32603
 * also stands for refused credentials, a forbidden call and an unavailable server, whose reason
 * is their status's name (OTHER_INTERNAL_REASONS).
 */
const REASONS: ReadonlyMap<number, string> = new Map([
  [-32700, 'JSON_PARSE'],
  [-32600, 'INVALID_REQUEST'],
  [-32601, 'METHOD_NOT_FOUND'],
  [-32602, 'INVALID_PARAMS'],
  [-32603, 'INTERNAL'],
  [-32001, 'TASK_NOT_FOUND'],
  [-32002, 'TASK_NOT_CANCELABLE'],
  [-32003, 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
  [-32004, 'UNSUPPORTED_OPERATION'],
  [-32005, 'CONTENT_TYPE_NOT_SUPPORTED'],
  [-32007, 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'],
  [-32008, 'EXTENSION_SUPPORT_REQUIRED'],
  [-32009, 'VERSION_NOT_SUPPORTED'],
]);
const OTHER_INTERNAL_REASONS = ['UNAUTHENTICATED', 'PERMISSION_DENIED', 'UNAVAILABLE'];
const KNOWN_REASONS: ReadonlySet<string> = new Set([...REASONS.values(), ...OTHER_INTERNAL_REASONS]);

/** The google.rpc code names a v1.0 REST error may carry with each HTTP status (5xx: only 503). */
const STATUS_NAMES: ReadonlyMap<number, readonly string[]> = new Map([
  [400, ['INVALID_ARGUMENT', 'FAILED_PRECONDITION', 'RESOURCE_EXHAUSTED', 'OUT_OF_RANGE']],
  [401, ['UNAUTHENTICATED']],
  [403, ['PERMISSION_DENIED']],
  [404, ['NOT_FOUND', 'UNIMPLEMENTED']],
  [409, ['ALREADY_EXISTS', 'ABORTED']],
  [413, ['RESOURCE_EXHAUSTED']],
  [415, ['INVALID_ARGUMENT']],
  [503, ['UNAVAILABLE']],
]);
const ALL_STATUS_NAMES: ReadonlySet<string> = new Set([...STATUS_NAMES.values()].flat());

/** The first of an error's details: ErrorInfo of our domain with a known UPPER_SNAKE reason. */
function expectErrorInfo(details: Json, where: string): string {
  expect(Array.isArray(details), `${where}: details are an array`).toBe(true);
  const info = details[0];
  expect(info?.['@type'], `${where}: ErrorInfo first`).toBe(ERROR_INFO);
  expect(info.domain, where).toBe('a2a-protocol.org');
  expect(info.reason, where).toMatch(/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/);
  expect(KNOWN_REASONS.has(info.reason), `${where}: reason ${info.reason}`).toBe(true);
  for (const d of details) expect(typeof d?.['@type'], `${where}: every detail is typed`).toBe('string');
  return info.reason;
}

/**
 * A v1.0 REST error body: `{error: {code, status, message, details}}` with `code` the HTTP status
 * (`status` undefined: an error event in a stream, which has none of its own).
 */
export function expectV1RestError(body: Json, status: number | undefined, where: string): string {
  expect(Object.keys(body ?? {}), `${where}: only an error member`).toEqual(['error']);
  const error = body.error;
  expect(typeof error?.code, where).toBe('number');
  if (status !== undefined) {
    expect(error.code, `${where}: code is the HTTP status`).toBe(status);
    expect(STATUS_NAMES.get(status) ?? [], `${where}: ${status} ${error.status}`).toContain(error.status);
  } else {
    expect(ALL_STATUS_NAMES.has(error.status), `${where}: status ${error.status}`).toBe(true);
  }
  expect(typeof error.message, where).toBe('string');
  expect('kind' in error || 'data' in error, `${where}: v0.3 members`).toBe(false);
  return expectErrorInfo(error.details, where);
}

/** A v1.0 JSON-RPC `error` member: a known code, and `data` the typed details, ErrorInfo first with that code's reason. */
export function expectV1RpcErrorData(error: Json, where: string): void {
  const reason = expectErrorInfo(error.data, where);
  const reasons = error.code === -32603 ? ['INTERNAL', ...OTHER_INTERNAL_REASONS] : [REASONS.get(error.code)];
  expect(reasons, `${where}: reason of ${error.code}`).toContain(reason);
}

/** Members whose values are the client's own JSON (metadata, data parts, extension params). */
const FREE_FORM = new Set(['metadata', 'data', 'params']);

/** Where a value holds one of `names` as a member name, free-form values aside. */
export function membersNamed(value: unknown, names: ReadonlySet<string>, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => membersNamed(v, names, `${path}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => [
    ...(names.has(k) ? [`${path}.${k}`] : []),
    ...(FREE_FORM.has(k) ? [] : membersNamed(v, names, `${path}.${k}`)),
  ]);
}

const KIND = new Set(['kind']);
const V03_STREAM_MEMBERS = new Set(['kind', 'final']);
const STREAM_RESPONSE = ['task', 'message', 'statusUpdate', 'artifactUpdate'];

/** A v1.0 result: proto-JSON, so no `kind` member anywhere. */
export function expectV1Result(result: unknown, where: string): void {
  expect(membersNamed(result, KIND), `${where}: kind members`).toEqual([]);
}

/** One v1.0 stream event: a `StreamResponse` (exactly one of its four members), no `kind` or `final`. */
export function expectStreamResponse(event: Json, where: string): void {
  expect(typeof event === 'object' && event !== null && !Array.isArray(event), where).toBe(true);
  const keys = Object.keys(event);
  expect(keys.length === 1 && STREAM_RESPONSE.includes(keys[0] as string), `${where}: members ${keys.join(',')}`).toBe(true);
  expect(membersNamed(event, V03_STREAM_MEMBERS), `${where}: v0.3 members`).toEqual([]);
}
