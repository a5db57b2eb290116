/** W3C Trace Context headers in and out (src/observe/trace-context.ts). */
import { ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { extractTraceContext, injectTraceContext, parseTraceparent } from '../../src/observe/trace-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('W3C traceparent', () => {
  it('a valid header names the remote parent, sampled or not, with its tracestate', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, 'vendor=1,other=x')).toMatchObject({
      traceId: TRACE,
      spanId: SPAN,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, 'vendor=1,other=x')?.traceState?.get('other')).toBe('x');
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)?.traceFlags).toBe(TraceFlags.NONE);
    // Unknown flag bits are ignored; a later version may carry more fields.
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-03`)?.traceFlags).toBe(TraceFlags.SAMPLED);
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01-future`)?.spanId).toBe(SPAN);
  });

  it.each([
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with an extra field', `00-${TRACE}-${SPAN}-01-extra`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['garbage', 'not a traceparent'],
  ])('%s is no parent: the request starts its own trace', (_what, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
    expect(extractTraceContext(ROOT_CONTEXT, { traceparent: header })).toBe(ROOT_CONTEXT);
  });

  it('what goes out is what came in: the span context round-trips through the headers', () => {
    const incoming = extractTraceContext(ROOT_CONTEXT, { traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'vendor=1' });
    const out: Record<string, string> = {};
    injectTraceContext(incoming, out);
    expect(out).toEqual({ traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'vendor=1' });
    const none: Record<string, string> = {};
    injectTraceContext(trace.setSpanContext(ROOT_CONTEXT, { traceId: '0'.repeat(32), spanId: SPAN, traceFlags: 0 }), none);
    expect(none).toEqual({});
  });
});
