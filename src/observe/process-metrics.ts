/**
 * The process's own metrics (prom-client's defaults: `process_cpu_seconds_total`, memory,
 * `nodejs_eventloop_lag_seconds`, heap spaces, GC), in one registry per process, not per
 * server: they describe the process, which two servers in it share, and prom-client's
 * collectors (an event-loop delay monitor, a GC observer) are never stopped once started, so a
 * registry per server would leave one running per server ever created. It is not prom-client's
 * global registry either, which an application embedding us may use for its own metrics.
 * Started at the first scrape: a server nobody scrapes starts no monitors.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

let registry: Registry | undefined;

export function processMetricsText(): Promise<string> {
  if (!registry) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
  }
  return registry.metrics();
}

/** The content type of the exposition (Prometheus text format 0.0.4). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;
