/**
 * One A2A request, observed: a SERVER span continuing the caller's trace, named after the
 * operation (`message/send`, `tasks/get`), a debug line with method, path, status and duration,
 * and an info line for each refused request with its A2A error code and HTTP status.
 *
 * The span is started for every request (the API's no-op costs next to nothing); a scope (and
 * everything else) only exists when the span records or the level is debug. A refusal is logged
 * either way: operators need it at the default level.
 */
import { performance } from 'node:perf_hooks';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { Logger } from './logger.js';
import { currentScope, runInScope, type Scope } from './scope.js';
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

function logRefusal(logger: Logger, req: ObservedRequest, reply: ObservedReply, scope: Scope | undefined): void {
  const refused = reply.refused;
  if (!refused) return;
  logger.info('request.refused', {
    method: req.method,
    path: pathForLog(req.path),
    ...(scope?.operation ? { operation: scope.operation } : {}),
    code: refused.code,
    error: refused.type,
    status: statusOf(reply),
  });
}

function endSpan(span: Span, req: ObservedRequest, scope: Scope, reply: ObservedReply | undefined): void {
  if (scope.operation) span.updateName(scope.operation);
  const status = reply ? statusOf(reply) : 500;
  span.setAttributes({
    'http.request.method': req.method,
    'url.path': req.path,
    'http.response.status_code': status,
    'a2a.outcome': reply?.refused ? reply.refused.type : reply ? 'ok' : 'exception',
  });
  if (scope.operation) span.setAttributes({ 'rpc.method': scope.operation, 'a2a.method': scope.operation });
  if (scope.transport) span.setAttribute('a2a.transport', scope.transport);
  if (scope.transport === 'jsonrpc') span.setAttribute('rpc.system', 'jsonrpc');
  if (scope.taskId) span.setAttribute('a2a.task_id', scope.taskId);
  if (scope.contextId) span.setAttribute('a2a.context_id', scope.contextId);
  if (reply?.refused) span.setAttributes({ 'a2a.error.code': reply.refused.code, 'rpc.jsonrpc.error_code': reply.refused.code });
  // A server span is an error only when the server failed (OpenTelemetry HTTP conventions).
  if (!reply || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** `route`, observed. Wraps the protocol router once, at start-up. */
export function observeRoutes<Q extends ObservedRequest, R extends ObservedReply>(
  route: (req: Q) => Promise<R>,
  logger: Logger,
): (req: Q) => Promise<R> {
  return (req) => {
    const parent = parentFromHeaders(req.headers);
    // Named by its method until the protocol layer names the operation.
    const span = tracer.startSpan(req.method, { kind: SpanKind.SERVER }, parent);
    const recording = span.isRecording();
    if (!recording && logger.level !== 'debug') {
      return route(req).then((reply) => {
        if (reply.refused) logRefusal(logger, req, reply, undefined);
        return reply;
      });
    }
    const scope: Scope = recording ? { span, traceId: span.spanContext().traceId } : {};
    const started = performance.now();
    const finish = (reply: R | undefined): void => {
      if (recording) endSpan(span, req, scope, reply);
      if (reply) logRefusal(logger, req, reply, scope);
      if (logger.level === 'debug') {
        logger.debug('http.request', {
          method: req.method,
          path: pathForLog(req.path),
          status: reply ? statusOf(reply) : 500,
          durationMs: Math.round((performance.now() - started) * 1000) / 1000,
          ...(scope.operation ? { operation: scope.operation, transport: scope.transport } : {}),
        });
      }
    };
    const run = () => runInScope(scope, () => route(req));
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

/**
 * The protocol layer names the request's operation (only names it knows: a client's method
 * string never becomes a span name) and, when the request names one, its task.
 */
export function noteOperation(operation: string, transport: 'jsonrpc' | 'rest', taskId?: string): void {
  const scope = currentScope();
  if (!scope) return;
  scope.operation = operation;
  scope.transport = transport;
  if (taskId) scope.taskId ??= taskId;
}

/** The task id a JSON-RPC request's params name (`id` or `taskId`), for the request's scope. */
export function taskIdParam(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const p = params as { id?: unknown; taskId?: unknown };
  const id = typeof p.id === 'string' ? p.id : p.taskId;
  return typeof id === 'string' ? id : undefined;
}
