/** A real Logger that keeps its lines, so tests can read what the server logged (and what it did not). */
import { createLogger, type Logger, type LogLevel } from '../../src/log.js';
import type { Json } from './a2a.js';

export interface CapturedLogs {
  logger: Logger;
  /** Every raw line written, in order. */
  readonly lines: string[];
  /** Parsed entries of one event name. */
  events(name: string): Json[];
}

export function captureLogs(level: LogLevel = 'debug'): CapturedLogs {
  const lines: string[] = [];
  const logger = createLogger(level, (line) => void lines.push(line));
  return {
    logger,
    lines,
    events: (name) => lines.map((l) => JSON.parse(l)).filter((e) => e.event === name),
  };
}
