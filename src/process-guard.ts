/**
 * What the process does with an error nobody caught (the CLI installs this; embedders may too).
 *
 * - A promise rejected with no handler is logged and the server keeps serving: the runtime
 *   handles its own failures, so such a rejection comes from a handler's stray promise, and one
 *   agent bug must not end every other task.
 * - An exception nobody caught leaves the process in a state Node cannot vouch for: it is logged
 *   with its stack, `onFatal` gets a bounded moment to close the server (stores flush; running
 *   tasks fail on the next start, as after a crash), and the process exits 1 for its
 *   supervisor to restart it.
 */
import { errorFields, type Logger } from './log.js';

/** What `guardProcess` needs: where to log and how to close the server. */
export interface ProcessGuardOptions {
  /** Where the unhandled errors are logged. */
  logger: Logger;
  /** Closes the server before the process exits after an uncaught exception. */
  onFatal: () => Promise<void>;
  /** How long `onFatal` may take. */
  fatalGraceMs?: number;
  /** Ends the process (tests replace it). */
  exit?: (code: number) => void;
}

/** Installs the policy; returns the function that removes it. */
export function guardProcess(opts: ProcessGuardOptions): () => void {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let dying = false;
  const onRejection = (reason: unknown): void => {
    opts.logger.error('process.unhandled_rejection', { ...errorFields(reason), action: 'ignored; the server keeps serving' });
  };
  const onException = (err: unknown, origin: string): void => {
    opts.logger.error('process.uncaught_exception', { origin, ...errorFields(err), action: 'closing the server and exiting' });
    if (dying) return;
    dying = true;
    const grace = new Promise<void>((resolve) => setTimeout(resolve, opts.fatalGraceMs ?? 5000).unref());
    void Promise.race([opts.onFatal().catch(() => undefined), grace]).finally(() => exit(1));
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
