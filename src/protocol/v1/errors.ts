/**
 * How the one error table travels in A2A v1.0 (spec §5.4, §9.5, §11.6): the same codes, a
 * `google.rpc.ErrorInfo` in every error's details (`reason` the A2A type in UPPER_SNAKE_CASE
 * without "Error", domain `a2a-protocol.org`), validation issues as `google.rpc.BadRequest`, and
 * on HTTP+JSON a `google.rpc.Status` body with v1.0's own HTTP statuses.
 */
import type { A2AError, ErrorName } from '../../a2a/errors.js';
import { toJsonText } from '../json-text.js';
import type { Reply } from '../reply.js';

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
export const ERROR_DOMAIN = 'a2a-protocol.org';

/** v1.0's media type; `application/json` is accepted and answered alike. */
export const A2A_JSON = 'application/a2a+json';

export type GrpcStatus =
  | 'INVALID_ARGUMENT'
  | 'FAILED_PRECONDITION'
  | 'NOT_FOUND'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'UNIMPLEMENTED'
  | 'RESOURCE_EXHAUSTED';

// One row per entry reads as the table it is: v1.0's HTTP status and google.rpc code name.
// prettier-ignore
const STATUS: Readonly<Record<ErrorName, readonly [number, GrpcStatus]>> = {
  parseError: [400, 'INVALID_ARGUMENT'],
  invalidRequest: [400, 'INVALID_ARGUMENT'],
  payloadTooLarge: [413, 'RESOURCE_EXHAUSTED'],
  malformedHttp: [400, 'INVALID_ARGUMENT'],
  unsupportedMediaType: [415, 'INVALID_ARGUMENT'],
  outputNotAccepted: [400, 'INVALID_ARGUMENT'],
  methodNotFound: [404, 'UNIMPLEMENTED'],
  invalidParams: [400, 'INVALID_ARGUMENT'],
  contextMismatch: [400, 'INVALID_ARGUMENT'],
  taskNotAcceptingMessages: [400, 'FAILED_PRECONDITION'],
  internal: [500, 'INTERNAL'],
  notInitialized: [503, 'UNAVAILABLE'],
  unavailable: [503, 'UNAVAILABLE'],
  unauthenticated: [401, 'UNAUTHENTICATED'],
  forbidden: [403, 'PERMISSION_DENIED'],
  taskNotFound: [404, 'NOT_FOUND'],
  pushConfigNotFound: [404, 'NOT_FOUND'],
  pushConfigLimit: [400, 'RESOURCE_EXHAUSTED'],
  jsonTooDeep: [400, 'INVALID_ARGUMENT'],
  contentTooLarge: [413, 'RESOURCE_EXHAUSTED'],
  tooManyRequests: [429, 'RESOURCE_EXHAUSTED'],
  taskNotCancelable: [400, 'FAILED_PRECONDITION'],
  pushNotSupported: [400, 'FAILED_PRECONDITION'],
  streamingNotSupported: [400, 'FAILED_PRECONDITION'],
  taskTerminal: [400, 'FAILED_PRECONDITION'],
  subscribeTerminal: [400, 'FAILED_PRECONDITION'],
  extendedCardNotConfigured: [400, 'FAILED_PRECONDITION'],
  extensionRequired: [400, 'FAILED_PRECONDITION'],
  versionNotSupported: [400, 'FAILED_PRECONDITION'],
};

/** v1.0 renamed the extended card and its error; every other type keeps its v0.3 name. */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  AuthenticatedExtendedCardNotConfiguredError: 'ExtendedAgentCardNotConfiguredError',
};

/**
 * `TaskNotFoundError` -> `TASK_NOT_FOUND`. v0.3 has no types for refused credentials or an
 * unavailable server and calls them `InternalError`; their reason is their status's name
 * instead (`UNAUTHENTICATED`), so a 401's ErrorInfo does not say the server failed.
 */
export const reasonOf = (err: A2AError): string =>
  err.entry.type === 'InternalError'
    ? statusOf(err)[1]
    : (TYPE_NAMES[err.entry.type] ?? err.entry.type)
        .replace(/Error$/, '')
        .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
        .replace(/JSONParse/, 'JSON_PARSE')
        .toUpperCase();

/** An error from another copy of the library with an entry this one lacks: a plain 500. */
const statusOf = (err: A2AError): readonly [number, GrpcStatus] =>
  Object.hasOwn(STATUS, err.entry.id) ? STATUS[err.entry.id as ErrorName] : [500, 'INTERNAL'];

interface Issue {
  path: string;
  message: string;
}
const issuesOf = (data: unknown): Issue[] | undefined => {
  const issues = typeof data === 'object' && data !== null ? (data as { issues?: unknown }).issues : undefined;
  return Array.isArray(issues) ? (issues as Issue[]) : undefined;
};

/** The typed details of an error: its ErrorInfo, then its field violations when it has some. */
export function errorDetails(err: A2AError): Record<string, unknown>[] {
  const details: Record<string, unknown>[] = [{ '@type': ERROR_INFO, reason: reasonOf(err), domain: ERROR_DOMAIN }];
  const issues = issuesOf(err.data);
  if (issues) details.push({ '@type': BAD_REQUEST, fieldViolations: issues.map((i) => ({ field: i.path, description: i.message })) });
  return details;
}

/** A JSON-RPC `error` member: the code, the message and the typed details as `data`. */
export const rpcErrorBody = (err: A2AError) => ({ code: err.entry.code, message: err.message, data: errorDetails(err) });

/** The gRPC status of an error (its `google.rpc.Code` name), on the gRPC binding of both versions. */
export const grpcStatusOf = (err: A2AError): GrpcStatus => statusOf(err)[1];

/** The HTTP status of an error on v1.0's HTTP+JSON binding. */
export const restStatusV1 = (err: A2AError): number => statusOf(err)[0];

/** HTTP+JSON: a `google.rpc.Status` under `error`, with v1.0's HTTP status. */
export function restErrorV1(err: A2AError): Reply {
  const [status, name] = statusOf(err);
  const body = toJsonText({ error: { code: status, status: name, message: err.message, details: errorDetails(err) } });
  return { kind: 'json', status, body, contentType: A2A_JSON, headers: { ...err.headers }, refused: err.entry };
}
