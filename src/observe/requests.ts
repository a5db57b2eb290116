/**
 * One A2A request, observed once for every consumer: a SERVER span continuing the caller's
 * trace, named after the operation (`message/send`, `tasks/get`); the request counted and timed
 * in the metrics; a debug line with method, path, status and duration; and an info line for each
 * refused request with its A2A error code and HTTP status.
 *
 * The protocol layer matches the request first and hands back what it turned out to be (a target
 * carrying its `RequestFacts`); everything here reads those facts, then has the target answered.
 * The span is started for every request (the API's no-op costs next to nothing); a scope only
 * exists when the span records or the level is debug. A refusal is logged either way: operators
 * need it at the default level.
 */
import { performance } from 'node:perf_hooks';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { Logger } from './logger.js';
import { NO_METRICS, type Metrics } from './metrics.js';
import { runInScope, type RequestFacts, type Scope } from './scope.js';
import { parentFromHeaders, tracer } from './tracing.js';

export interface ObservedRequest {
  method: string;
  path: string;
  headers: Readonly<Record<string, string>>;
}

/** What the answer says about the outcome (the protocol layer's Reply fits this shape). */
export interface ObservedReply {
  kind: string;
  status?: number;
  /** The A2A error the request was refused with, if it was. */
  refused?: { readonly code: number; readonly type: string } | undefined;
}

/** Paths come from the client: long ones are cut so a log line stays a line. */
const pathForLog = (path: string): string => (path.length > 200 ? `${path.slice(0, 200)}…` : path);

const statusOf = (reply: ObservedReply): number => reply.status ?? 200;

function logRefusal(logger: Logger, req: ObservedRequest, reply: ObservedReply, facts: RequestFacts): void {
  const refused = reply.refused;
  if (!refused) return;
  logger.info('request.refused', {
    method: req.method,
    path: pathForLog(req.path),
    operation: facts.operation,
    code: refused.code,
    error: refused.type,
    status: statusOf(reply),
  });
}

function endSpan(span: Span, req: ObservedRequest, facts: Scope & RequestFacts, reply: ObservedReply | undefined): void {
  span.updateName(facts.operation);
  const status = reply ? statusOf(reply) : 500;
  span.setAttributes({
    'http.request.method': req.method,
    'url.path': req.path,
    'http.response.status_code': status,
    'a2a.outcome': reply?.refused ? reply.refused.type : reply ? 'ok' : 'exception',
    'rpc.method': facts.operation,
    'a2a.method': facts.operation,
    'a2a.transport': facts.transport,
  });
  if (facts.transport === 'jsonrpc' || facts.transport === 'grpc') span.setAttribute('rpc.system', facts.transport);
  if (facts.taskId) span.setAttribute('a2a.task_id', facts.taskId);
  if (facts.contextId) span.setAttribute('a2a.context_id', facts.contextId);
  if (reply?.refused) span.setAttributes({ 'a2a.error.code': reply.refused.code, 'rpc.jsonrpc.error_code': reply.refused.code });
  // A server span is an error only when the server failed (OpenTelemetry HTTP conventions).
  if (!reply || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** A router as the observer drives it: match first, so the request is named before it runs. */
export interface ObservedRouter<Q, T extends RequestFacts, R> {
  resolve(req: Q): T;
  dispatch(target: T): Promise<R>;
}

/**
 * The router's requests, observed. Wraps the router once, at start-up: each request is matched,
 * named from its target (the target itself is the facts when nothing records), then dispatched
 * inside its scope when there is one, so lines logged inside carry the task.
 */
export function observeRoutes<Q extends ObservedRequest, T extends RequestFacts, R extends ObservedReply>(
  router: ObservedRouter<Q, T, R>,
  logger: Logger,
  metrics: Metrics = NO_METRICS,
): (req: Q) => Promise<R> {
  const counted = metrics !== NO_METRICS;
  return (req) => {
    const parent = parentFromHeaders(req.headers);
    // Named by its method until the target is known.
    const span = tracer.startSpan(req.method, { kind: SpanKind.SERVER }, parent);
    const recording = span.isRecording();
    const debug = logger.level === 'debug';
    const started = counted || debug ? performance.now() : 0;
    const target = router.resolve(req);
    if (!recording && !debug) {
      return router.dispatch(target).then((reply) => {
        if (counted) metrics.requestDone(target.transport, target.operation, reply.refused?.code, (performance.now() - started) / 1000);
        if (reply.refused) logRefusal(logger, req, reply, target);
        return reply;
      });
    }
    const scope: Scope & RequestFacts = {
      transport: target.transport,
      operation: target.operation,
      taskId: target.taskId,
      ...(recording ? { span, traceId: span.spanContext().traceId } : {}),
    };
    const finish = (reply: R | undefined): void => {
      const seconds = (performance.now() - started) / 1000;
      if (counted && reply) metrics.requestDone(scope.transport, scope.operation, reply.refused?.code, seconds);
      if (recording) endSpan(span, req, scope, reply);
      if (reply) logRefusal(logger, req, reply, scope);
      if (debug) {
        logger.debug('http.request', {
          method: req.method,
          path: pathForLog(req.path),
          status: reply ? statusOf(reply) : 500,
          durationMs: Math.round(seconds * 1_000_000) / 1000,
          operation: scope.operation,
          transport: scope.transport,
        });
      }
    };
    const run = () => runInScope(scope, () => router.dispatch(target));
    return (recording ? context.with(trace.setSpan(parent, span), run) : run()).then(
      (reply) => {
        runInScope(scope, () => finish(reply));
        return reply;
      },
      (err: unknown) => {
        runInScope(scope, () => finish(undefined));
        throw err;
      },
    );
  };
}
