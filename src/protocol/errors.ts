/**
 * The one error table (spec "Errors", wire reference §2.4 and §3.5). Both transports render
 * from it: REST uses `http` and the body `{code, message, error, data?}`; JSON-RPC answers
 * HTTP 200 with an error envelope unless `rpcHttp` says otherwise (the version check, spec
 * "Versioning", and authentication, wire §4.4).
 */
export interface ErrorEntry {
  /** A2A / JSON-RPC error code. */
  readonly code: number;
  /** HTTP status on the REST transport. */
  readonly http: number;
  /** HTTP status on the JSON-RPC transport (200 unless stated). */
  readonly rpcHttp: number;
  /** A2A type name, sent as `error` in REST bodies so clients can map it (wire §3.5). */
  readonly type: string;
  readonly message: string;
}

const entry = (code: number, http: number, type: string, message: string, rpcHttp = 200): ErrorEntry => ({
  code,
  http,
  rpcHttp,
  type,
  message,
});

export const ERRORS = {
  parseError: entry(-32700, 400, 'JSONParseError', 'Invalid JSON payload'),
  invalidRequest: entry(-32600, 400, 'InvalidRequestError', 'Request payload validation error'),
  payloadTooLarge: entry(-32600, 413, 'InvalidRequestError', 'Request body too large', 413),
  /** HTTP framing we refuse to guess about (duplicate or conflicting Content-Length, …). */
  malformedHttp: entry(-32600, 400, 'InvalidRequestError', 'Malformed HTTP request', 400),
  /** A2A bodies are JSON; anything else could be a cross-site form post (no CORS preflight). */
  unsupportedMediaType: entry(-32005, 415, 'ContentTypeNotSupportedError', 'Incompatible content types', 415),
  methodNotFound: entry(-32601, 404, 'MethodNotFoundError', 'Method not found'),
  invalidParams: entry(-32602, 400, 'InvalidParamsError', 'Invalid parameters'),
  contextMismatch: entry(-32602, 400, 'InvalidParamsError', 'Context mismatch: the message contextId differs from the task'),
  taskNotAcceptingMessages: entry(-32602, 422, 'InvalidParamsError', 'Task is not accepting messages in its current state'),
  internal: entry(-32603, 500, 'InternalError', 'Internal error'),
  notInitialized: entry(-32603, 503, 'InternalError', 'Task manager not initialized', 503),
  unavailable: entry(-32603, 503, 'InternalError', 'Service temporarily unavailable', 503),
  unauthenticated: entry(-32603, 401, 'InternalError', 'Authentication required', 401),
  forbidden: entry(-32603, 403, 'InternalError', 'Forbidden', 403),
  taskNotFound: entry(-32001, 404, 'TaskNotFoundError', 'Task not found'),
  pushConfigNotFound: entry(-32001, 404, 'TaskNotFoundError', 'Push notification config not found'),
  pushConfigLimit: entry(-32602, 400, 'InvalidParamsError', 'Too many push notification configs for this task'),
  jsonTooDeep: entry(-32602, 400, 'InvalidParamsError', 'JSON nested too deeply'),
  taskNotCancelable: entry(-32002, 409, 'TaskNotCancelableError', 'Task cannot be canceled'),
  pushNotSupported: entry(-32003, 501, 'PushNotificationNotSupportedError', 'Push Notification is not supported'),
  streamingNotSupported: entry(-32004, 400, 'UnsupportedOperationError', 'This operation is not supported: streaming is not enabled'),
  taskTerminal: entry(-32004, 409, 'UnsupportedOperationError', 'This operation is not supported: the task is in a terminal state'),
  subscribeTerminal: entry(-32004, 400, 'UnsupportedOperationError', 'This operation is not supported: cannot subscribe to a task in a terminal state'),
  extendedCardNotConfigured: entry(-32007, 404, 'AuthenticatedExtendedCardNotConfiguredError', 'Authenticated Extended Card is not configured'),
  versionNotSupported: entry(-32009, 400, 'VersionNotSupportedError', 'Protocol version not supported', 400),
} as const satisfies Record<string, ErrorEntry>;

export type ErrorName = keyof typeof ERRORS;

/**
 * Marks our errors across copies of this library: an agent built against one copy (say, the
 * CLI's) throws `unauthenticated()` from another, where `instanceof` would say no.
 */
const A2A_ERROR = Symbol.for('a2actor.A2AError');

/** A client-visible failure: always one entry of the table, optionally with detail. */
export class A2AError extends Error {
  readonly [A2A_ERROR] = true;
  readonly entry: ErrorEntry;
  readonly data: unknown;
  /** Extra response headers (e.g. WWW-Authenticate on 401). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(entry: ErrorEntry, detail?: string, data?: unknown, headers: Record<string, string> = {}) {
    super(detail ? `${entry.message}: ${detail}` : entry.message);
    this.name = 'A2AError';
    this.entry = entry;
    this.data = data;
    this.headers = headers;
  }
}

/** Whether `err` is an A2AError of this or any other copy of the library. */
export const isA2AError = (err: unknown): err is A2AError =>
  typeof err === 'object' && err !== null && (err as { [A2A_ERROR]?: unknown })[A2A_ERROR] === true;

export const a2aError = (name: ErrorName, detail?: string, data?: unknown): A2AError =>
  new A2AError(ERRORS[name], detail, data);

/** Client input quoted in an error message: short, and quoted so odd characters stay visible. */
export const shown = (text: string): string => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

export interface ErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

export function errorBody(err: A2AError): ErrorBody {
  return err.data === undefined
    ? { code: err.entry.code, message: err.message }
    : { code: err.entry.code, message: err.message, data: err.data };
}
