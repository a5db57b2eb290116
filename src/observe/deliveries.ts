/**
 * One webhook attempt as a CLIENT span, child of the turn that produced the notification, and
 * the `traceparent` that lets the receiver's trace join the task's. Untraced tasks (no link)
 * send no trace headers at all.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { traceHeaders, tracer, type TraceLink } from './tracing.js';

export interface DeliveryFacts {
  taskId: string;
  configId: string;
  state: string;
  request: { url: string };
}

/** The result of an attempt, as the webhook client reports it. */
export interface AttemptResult {
  kind: string;
  status?: number;
}

/** The URL without path, query or user info: those can carry secrets. */
function originOf(url: string): { origin: string; host: string; port: number | undefined } | undefined {
  try {
    const u = new URL(url);
    return { origin: u.origin, host: u.hostname, port: u.port ? Number(u.port) : undefined };
  } catch {
    return undefined;
  }
}

/** Runs one attempt; `run` gets the trace headers to add (none when untraced). */
export function traceDelivery<R extends AttemptResult>(
  link: TraceLink | undefined,
  job: DeliveryFacts,
  attempt: number,
  run: (headers?: Record<string, string>) => Promise<R>,
): Promise<R> {
  if (!link) return run();
  const span = tracer.startSpan('a2a.push', { kind: SpanKind.CLIENT }, link);
  if (!span.isRecording()) return run();
  const where = originOf(job.request.url);
  span.setAttributes({
    'http.request.method': 'POST',
    'a2a.task_id': job.taskId,
    'a2a.push.config_id': job.configId,
    'a2a.task.state': job.state,
    'a2a.push.attempt': attempt,
  });
  if (where) {
    span.setAttributes({ 'url.full': where.origin, 'server.address': where.host });
    if (where.port !== undefined) span.setAttribute('server.port', where.port);
  }
  return run(traceHeaders(link, span)).then(
    (result) => {
      span.setAttribute('a2a.push.outcome', result.kind);
      if (result.status !== undefined) span.setAttribute('http.response.status_code', result.status);
      if (result.kind !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR, message: result.kind });
      span.end();
      return result;
    },
    (err: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'failed' });
      span.end();
      throw err;
    },
  );
}
