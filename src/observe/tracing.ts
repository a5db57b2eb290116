/**
 * The tracer and the W3C propagator every span of ours goes through. Only the OpenTelemetry API
 * is used here: with no tracer provider registered every span is the API's non-recording no-op,
 * and an embedder that registers its own provider gets our spans unchanged. `a2actor serve`
 * registers one from the OTEL_* environment (otel-setup.ts).
 */
import { createRequire } from 'node:module';
import { context, trace, type Context, type Span } from '@opentelemetry/api';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';

/** Resolved through the global provider at each span, so one registered later is still used. */
export const tracer = trace.getTracer('a2actor');

/**
 * W3C TraceContext in (request headers) and out (webhooks), used directly rather than through
 * the global propagator: it is what A2A clients and receivers speak, whatever else is set up.
 * Loaded at the first `traceparent` seen or sent, not at start: @opentelemetry/core is large.
 */
let w3c: W3CTraceContextPropagator | undefined;
function propagator(): W3CTraceContextPropagator {
  if (w3c) return w3c;
  const core = createRequire(import.meta.url)('@opentelemetry/core') as typeof import('@opentelemetry/core');
  w3c = new core.W3CTraceContextPropagator();
  return w3c;
}

/** A header bag for the propagator: lower-cased names, one string each. */
type Headers = Readonly<Record<string, string>>;
const getter = {
  get: (carrier: Headers, key: string) => carrier[key],
  keys: (carrier: Headers) => Object.keys(carrier),
};

/** The context a request's span continues: the caller's `traceparent`/`tracestate`, if any. */
export function parentFromHeaders(headers: Headers): Context {
  const active = context.active();
  return headers.traceparent === undefined ? active : propagator().extract(active, headers, getter);
}

/** `traceparent` (and `tracestate`) naming `span` as the parent, for an outgoing request. */
export function traceHeaders(parent: Context, span: Span): Record<string, string> {
  const out: Record<string, string> = {};
  propagator().inject(trace.setSpan(parent, span), out, {
    set: (carrier, key, value) => {
      carrier[key] = value;
    },
  });
  return out;
}

/** An opaque link to a task's trace (its turn span's context), kept with what the turn produced. */
export type TraceLink = Context;
