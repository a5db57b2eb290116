/**
 * The one error table (spec "Errors", wire reference §2.4 and §3.5): what a client can be told
 * went wrong, as A2A codes and type names. It says nothing of HTTP: the transports map each
 * entry to a status (`src/protocol/error-status.ts`), so the layers below raise these without
 * knowing how they travel.
 */
export interface ErrorEntry {
  /** The entry's name in ERRORS (what the transports look its HTTP status up by). */
  readonly id: string;
  /** A2A / JSON-RPC error code. */
  readonly code: number;
  /** A2A type name, sent as `error` in REST bodies so clients can map it (wire §3.5). */
  readonly type: string;
  /** What the client is told; a detail may follow it after a colon. */
  readonly message: string;
}

const entry = <Id extends string>(id: Id, code: number, type: string, message: string) => ({ id, code, type, message }) as const;

/** Every failure a client can see, by name: its A2A code, type name and message. */
// One row per entry reads as the table it is.
// prettier-ignore
export const ERRORS = {
  parseError: entry('parseError', -32700, 'JSONParseError', 'Invalid JSON payload'),
  invalidRequest: entry('invalidRequest', -32600, 'InvalidRequestError', 'Request payload validation error'),
  payloadTooLarge: entry('payloadTooLarge', -32600, 'InvalidRequestError', 'Request body too large'),
  /** HTTP framing we refuse to guess about (duplicate or conflicting Content-Length, …). */
  malformedHttp: entry('malformedHttp', -32600, 'InvalidRequestError', 'Malformed HTTP request'),
  /** A2A bodies are JSON; anything else could be a cross-site form post (no CORS preflight). */
  unsupportedMediaType: entry('unsupportedMediaType', -32005, 'ContentTypeNotSupportedError', 'Incompatible content types'),
  /** A part the agent emitted of a type the request's acceptedOutputModes leave out (fails the task). */
  outputNotAccepted: entry('outputNotAccepted', -32005, 'ContentTypeNotSupportedError', 'Incompatible content types: content type not supported'),
  methodNotFound: entry('methodNotFound', -32601, 'MethodNotFoundError', 'Method not found'),
  invalidParams: entry('invalidParams', -32602, 'InvalidParamsError', 'Invalid parameters'),
  contextMismatch: entry('contextMismatch', -32602, 'InvalidParamsError', 'Context mismatch: the message contextId differs from the task'),
  taskNotAcceptingMessages: entry('taskNotAcceptingMessages', -32602, 'InvalidParamsError', 'Task is not accepting messages in its current state'),
  internal: entry('internal', -32603, 'InternalError', 'Internal error'),
  notInitialized: entry('notInitialized', -32603, 'InternalError', 'Task manager not initialized'),
  unavailable: entry('unavailable', -32603, 'InternalError', 'Service temporarily unavailable'),
  unauthenticated: entry('unauthenticated', -32603, 'InternalError', 'Authentication required'),
  forbidden: entry('forbidden', -32603, 'InternalError', 'Forbidden'),
  taskNotFound: entry('taskNotFound', -32001, 'TaskNotFoundError', 'Task not found'),
  pushConfigNotFound: entry('pushConfigNotFound', -32001, 'TaskNotFoundError', 'Push notification config not found'),
  pushConfigLimit: entry('pushConfigLimit', -32602, 'InvalidParamsError', 'Too many push notification configs for this task'),
  jsonTooDeep: entry('jsonTooDeep', -32602, 'InvalidParamsError', 'JSON nested too deeply'),
  /** A message, artifact or task past its documented size limit (README "Limits and quotas"). */
  contentTooLarge: entry('contentTooLarge', -32602, 'InvalidParamsError', 'Content exceeds a size limit'),
  /** A caller over a quota (README "Limits and quotas"); sent with Retry-After. v0.3 names no type for it. */
  tooManyRequests: entry('tooManyRequests', -32603, 'InternalError', 'Too many requests'),
  taskNotCancelable: entry('taskNotCancelable', -32002, 'TaskNotCancelableError', 'Task cannot be canceled'),
  pushNotSupported: entry('pushNotSupported', -32003, 'PushNotificationNotSupportedError', 'Push Notification is not supported'),
  streamingNotSupported: entry('streamingNotSupported', -32004, 'UnsupportedOperationError', 'This operation is not supported: streaming is not enabled'),
  taskTerminal: entry('taskTerminal', -32004, 'UnsupportedOperationError', 'This operation is not supported: the task is in a terminal state'),
  subscribeTerminal: entry('subscribeTerminal', -32004, 'UnsupportedOperationError', 'This operation is not supported: cannot subscribe to a task in a terminal state'),
  extendedCardNotConfigured: entry('extendedCardNotConfigured', -32007, 'AuthenticatedExtendedCardNotConfiguredError', 'Authenticated Extended Card is not configured'),
  /** A2A 1.0's code (wire reference §2.4); v0.3 names no code for a required extension left out. */
  extensionRequired: entry('extensionRequired', -32008, 'ExtensionSupportRequiredError', 'Extension support required'),
  versionNotSupported: entry('versionNotSupported', -32009, 'VersionNotSupportedError', 'Protocol version not supported'),
} as const satisfies Record<string, ErrorEntry>;

export type ErrorName = keyof typeof ERRORS;

/**
 * Marks our errors across copies of this library: an agent built against one copy (say, the
 * CLI's) throws `unauthenticated()` from another, where `instanceof` would say no.
 */
const A2A_ERROR = Symbol.for('a2actor.A2AError');

/** A client-visible failure: always one entry of the table, optionally with detail. */
export class A2AError extends Error {
  /** Marks the error as ours across copies of the library (see `isA2AError`). */
  readonly [A2A_ERROR] = true;
  /** The table entry: code, type name, message. */
  readonly entry: ErrorEntry;
  /** Sent as the error's `data`. */
  readonly data: unknown;
  /** Extra response headers (e.g. WWW-Authenticate on 401). */
  readonly headers: Readonly<Record<string, string>>;

  /** An error of `entry`, its message followed by `detail` when given. */
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

export const a2aError = (name: ErrorName, detail?: string, data?: unknown): A2AError => new A2AError(ERRORS[name], detail, data);

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
