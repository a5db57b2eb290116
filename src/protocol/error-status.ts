/**
 * How each error of the table travels over HTTP (spec "Errors", wire reference §2.4, §3.5 and
 * §4.4): the REST status, and the JSON-RPC one where it is not 200 (the version check, body
 * framing and size, content type, authentication and availability).
 */
import type { A2AError, ErrorName } from '../a2a/errors.js';

// prettier-ignore
const STATUS: Readonly<Record<ErrorName, { rest: number; rpc?: number }>> = {
  parseError: { rest: 400 },
  invalidRequest: { rest: 400 },
  payloadTooLarge: { rest: 413, rpc: 413 },
  malformedHttp: { rest: 400, rpc: 400 },
  unsupportedMediaType: { rest: 415, rpc: 415 },
  outputNotAccepted: { rest: 415 },
  methodNotFound: { rest: 404 },
  invalidParams: { rest: 400 },
  contextMismatch: { rest: 400 },
  taskNotAcceptingMessages: { rest: 422 },
  internal: { rest: 500 },
  notInitialized: { rest: 503, rpc: 503 },
  unavailable: { rest: 503, rpc: 503 },
  unauthenticated: { rest: 401, rpc: 401 },
  forbidden: { rest: 403, rpc: 403 },
  taskNotFound: { rest: 404 },
  pushConfigNotFound: { rest: 404 },
  pushConfigLimit: { rest: 400 },
  jsonTooDeep: { rest: 400 },
  contentTooLarge: { rest: 413 },
  tooManyRequests: { rest: 429, rpc: 429 },
  taskNotCancelable: { rest: 409 },
  pushNotSupported: { rest: 501 },
  streamingNotSupported: { rest: 400 },
  taskTerminal: { rest: 409 },
  subscribeTerminal: { rest: 400 },
  extendedCardNotConfigured: { rest: 404 },
  extensionRequired: { rest: 400 },
  versionNotSupported: { rest: 400, rpc: 400 },
};

/** An error from another copy of this library with an entry this one lacks: a plain 500. */
const UNKNOWN = { rest: 500, rpc: 500 };
const statusOf = (err: A2AError) => (Object.hasOwn(STATUS, err.entry.id) ? STATUS[err.entry.id as ErrorName] : UNKNOWN);

/** The HTTP status of an error on the REST transport. */
export const restStatus = (err: A2AError): number => statusOf(err).rest;

/** The HTTP status of a JSON-RPC error answer: 200 unless the table says otherwise. */
export const rpcStatus = (err: A2AError): number => statusOf(err).rpc ?? 200;
