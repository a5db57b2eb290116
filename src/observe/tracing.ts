/**
 * The tracer and the W3C propagator every span of ours goes through. Only the OpenTelemetry API
 * is used here: with no tracer provider registered every span is the API's non-recording no-op,
 * and an embedder that registers its own provider gets our spans unchanged. `a2actor serve`
 * registers one from the OTEL_* environment (otel-setup.ts).
 */
import { context, trace, type Context, type Span } from '@opentelemetry/api';
import { extractTraceContext, injectTraceContext } from './trace-context.js';

/** Resolved through the global provider at each span, so one registered later is still used. */
export const tracer = trace.getTracer('a2actor');

/** A header bag: lower-cased names, one string each. */
type Headers = Readonly<Record<string, string>>;

/**
 * The context a request's span continues: the caller's `traceparent`/`tracestate`, if any. W3C
 * TraceContext is used directly rather than through the global propagator: it is what A2A
 * clients and receivers speak, whatever else is set up.
 */
export function parentFromHeaders(headers: Headers): Context {
  return extractTraceContext(context.active(), headers);
}

/** `traceparent` (and `tracestate`) naming `span` as the parent, for an outgoing request. */
export function traceHeaders(parent: Context, span: Span): Record<string, string> {
  const out: Record<string, string> = {};
  injectTraceContext(trace.setSpan(parent, span), out);
  return out;
}

/** An opaque link to a task's trace (its turn span's context), kept with what the turn produced. */
export type TraceLink = Context;
