/** What a transport answers, before any socket is involved. */
import type { TaskFeed } from '../runtime/task-feed.js';
import type { StreamEvent } from '../a2a/schemas.js';
import { A2AError, errorBody, ERRORS, isA2AError } from '../a2a/errors.js';
import type { Logger } from '../log.js';
import { toJsonText } from './json-text.js';
import { restStatus } from './error-status.js';
import { errorFields } from '../log.js';

export type Reply =
  /** `errorCode`: the A2A/JSON-RPC code when the body is an error (what metrics count it as). */
  | { kind: 'json'; status: number; body: string; headers?: Readonly<Record<string, string>>; errorCode?: number }
  | { kind: 'empty'; status: number }
  | {
      kind: 'stream';
      feed: TaskFeed;
      /** Turns one event into the SSE `data:` JSON (bare object, or a JSON-RPC envelope). */
      frame: (event: StreamEvent) => string;
    }
  /** An error found after a streaming method was known: one SSE event, then the end. */
  | { kind: 'stream-error'; data: string; errorCode?: number };

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
  return {
    kind: 'json',
    status: restStatus(err),
    body: toJsonText({ ...errorBody(err), error: err.entry.type }),
    headers: { ...err.headers },
    errorCode: err.entry.code,
  };
}
