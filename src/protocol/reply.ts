/** What a transport answers, before any socket is involved. */
import type { TaskFeed } from '../runtime/task-feed.js';
import type { StreamEvent } from '../a2a/schemas.js';
import { A2AError, errorBody, ERRORS, isA2AError, type ErrorEntry } from '../a2a/errors.js';
import type { Logger } from '../log.js';
import { toJsonText } from './json-text.js';
import { restStatus } from './error-status.js';
import { errorFields } from '../log.js';

/** Response headers beyond the ones each kind implies (WWW-Authenticate, X-A2A-Extensions). */
type ReplyHeaders = { headers?: Readonly<Record<string, string>> };

export type Reply = ReplyHeaders &
  (
    | {
        kind: 'json';
        status: number;
        body: string;
        /** Absent: `application/json`. A2A v1.0 answers in `application/a2a+json`. */
        contentType?: string;
        /** The error the request was refused with (for the log and the request's span). */
        refused?: ErrorEntry;
      }
    | { kind: 'empty'; status: number }
    | {
        kind: 'stream';
        feed: TaskFeed;
        /**
         * Turns one event into the SSE `data:` JSON (bare object, or a JSON-RPC envelope);
         * `json`: the event's own JSON text when the event log already made it.
         */
        frame: (event: StreamEvent, json: string | undefined) => string;
      }
    /** An error found after a streaming method was known: one SSE event, then the end. */
    | { kind: 'stream-error'; data: string; refused?: ErrorEntry }
  );

export const json = (status: number, value: unknown, headers?: Record<string, string>): Reply => ({
  kind: 'json',
  status,
  body: toJsonText(value),
  ...(headers ? { headers } : {}),
});

/** Any thrown value as an A2AError: unknown failures become -32603 and their stack goes to the log. */
export function toA2AError(err: unknown, logger: Logger, where: string): A2AError {
  if (isA2AError(err)) return err;
  logger.error('request.failed', { where, ...errorFields(err) });
  return new A2AError(ERRORS.internal);
}

/** REST error body: `{code, message, error, data?}` (wire reference §3.5). */
export function restError(err: A2AError): Reply {
  const body = toJsonText({ ...errorBody(err), error: err.entry.type });
  return { kind: 'json', status: restStatus(err), body, headers: { ...err.headers }, refused: err.entry };
}
