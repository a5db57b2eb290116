/**
 * Structured logs: one JSON line per event on stderr, written by pino. The event name is the
 * message key (`event`), the level is its name (`"info"`), the time ISO 8601. Lines written inside
 * an observed request or turn carry its `taskId`, `contextId` and `traceId` (read from the scope
 * by a mixin, so no child logger is made per request). Callers pass facts, never secrets; the
 * redact list below is the second line of defence for the names secrets travel under.
 */
import { context, trace } from '@opentelemetry/api';
import { pino, stdTimeFunctions, destination, type Logger as PinoLogger } from 'pino';
import { currentScope } from './scope.js';

/** The lowest level written; `silent` writes nothing. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Writes one JSON line per event: `event` is its dotted name, `fields` its facts. */
export interface Logger {
  /** Per request and per transition: off unless asked for. */
  debug(event: string, fields?: Record<string, unknown>): void;
  /** Start, stop and refused requests. */
  info(event: string, fields?: Record<string, unknown>): void;
  /** Something an operator should look at; the server goes on. */
  warn(event: string, fields?: Record<string, unknown>): void;
  /** A failure, with its stack in `fields`. */
  error(event: string, fields?: Record<string, unknown>): void;
  /** The level this logger writes from. */
  readonly level: LogLevel;
}

/**
 * Where secrets would sit if a caller ever handed one over: request headers, push configs (their
 * token and authentication credentials), API keys. Each is replaced by `[redacted]`.
 */
const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'headers["x-a2a-notification-token"]',
  '*.authorization',
  'token',
  '*.token',
  'credentials',
  '*.credentials',
  '*.*.credentials',
  'apiKey',
  '*.apiKey',
  'password',
  '*.password',
];

/** The scope's task, context and trace for a line being written (a fresh object: pino merges into it). */
function scopeFields(): Record<string, string> {
  const out: Record<string, string> = {};
  const scope = currentScope();
  if (scope) {
    if (scope.taskId !== undefined) out.taskId = scope.taskId;
    if (scope.contextId !== undefined) out.contextId = scope.contextId;
    if (scope.traceId !== undefined) out.traceId = scope.traceId;
    return out;
  }
  // An embedder's own active span (a context manager registered by its SDK).
  const span = trace.getSpan(context.active());
  if (span?.isRecording()) out.traceId = span.spanContext().traceId;
  return out;
}

/** A logger writing JSON lines to stderr (or to `write`, one line per call) from `level` up. */
export function createLogger(level: LogLevel = 'info', write?: (line: string) => void): Logger {
  const p: PinoLogger = pino(
    {
      level,
      messageKey: 'event',
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      mixin: scopeFields,
    },
    // Synchronous: a line written just before a crash is not lost in a buffer.
    write ? { write } : destination({ dest: 2, sync: true }),
  );
  return {
    debug: (event, fields) => (fields ? p.debug(fields, event) : p.debug(event)),
    info: (event, fields) => (fields ? p.info(fields, event) : p.info(event)),
    warn: (event, fields) => (fields ? p.warn(fields, event) : p.warn(event)),
    error: (event, fields) => (fields ? p.error(fields, event) : p.error(event)),
    level,
  };
}

export const silentLogger: Logger = createLogger('silent');

/** The stack of an error for the log (never for a client). */
export const errorFields = (err: unknown): Record<string, unknown> =>
  err instanceof Error ? { error: err.message, stack: err.stack } : { error: String(err) };
