/**
 * Structured logs: one JSON line per event on stderr. Callers pass facts, never secrets
 * (tokens, credentials, Authorization headers are not logged anywhere in this code base).
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
  readonly level: LogLevel;
}

export function createLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const min = rank[level];
  const emit = (lvl: Exclude<LogLevel, 'silent'>) => (event: string, fields?: Record<string, unknown>) => {
    if (rank[lvl] < min) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, event, ...fields })}\n`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error'), level };
}

export const silentLogger: Logger = createLogger('silent');

/** The stack of an error for the log (never for a client). */
export const errorFields = (err: unknown): Record<string, unknown> =>
  err instanceof Error ? { error: err.message, stack: err.stack } : { error: String(err) };
