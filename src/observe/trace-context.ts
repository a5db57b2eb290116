/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): `traceparent` and `tracestate` in
 * and out, on the OpenTelemetry API alone, so the one tracing package a server installs is the
 * small API (the SDK's propagator package brings the semantic-conventions tables with it).
 */
import { createTraceState, isSpanContextValid, trace, type Context, type SpanContext } from '@opentelemetry/api';

/** version-traceid-parentid-flags, lower-case hex (§3.2.2); later versions may append fields. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The span context a `traceparent` header names, or undefined when it is not a valid one. */
export function parseTraceparent(header: string, tracestate?: string): SpanContext | undefined {
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  // Version ff is forbidden (§3.2.2.1); version 00 has exactly four fields (§3.2.2.1).
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const context: SpanContext = {
    traceId,
    spanId,
    // Only the sampled bit is defined (§3.2.2.5).
    traceFlags: parseInt(flags, 16) & 1,
    isRemote: true,
    ...(tracestate ? { traceState: createTraceState(tracestate) } : {}),
  };
  // All-zero trace and parent ids are invalid (§3.2.2.3, §3.2.2.4).
  return isSpanContextValid(context) ? context : undefined;
}

/** `active` continued from the caller's headers, or `active` itself when they name no valid parent. */
export function extractTraceContext(active: Context, headers: Readonly<Record<string, string>>): Context {
  const traceparent = headers.traceparent;
  if (traceparent === undefined) return active;
  const parent = parseTraceparent(traceparent, headers.tracestate);
  return parent ? trace.setSpanContext(active, parent) : active;
}

/** The `traceparent` (and `tracestate`) headers for the span in `ctx`; none without a valid span. */
export function injectTraceContext(ctx: Context, out: Record<string, string>): void {
  const span = trace.getSpanContext(ctx);
  if (!span || !isSpanContextValid(span)) return;
  out.traceparent = `00-${span.traceId}-${span.spanId}-0${(span.traceFlags & 1).toString(16)}`;
  const state = span.traceState?.serialize();
  if (state) out.tracestate = state;
}
