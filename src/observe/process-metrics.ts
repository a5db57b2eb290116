/**
 * The process's own metrics (prom-client's defaults: `process_cpu_seconds_total`, memory,
 * `nodejs_eventloop_lag_seconds`, heap spaces, GC), in one registry per process, not per
 * server: they describe the process, which two servers in it share, and prom-client's
 * collectors (an event-loop delay monitor, a GC observer) are never stopped once started, so a
 * registry per server would leave one running per server ever created. It is not prom-client's
 * global registry either, which an application embedding us may use for its own metrics.
 * Started at the first scrape: a server nobody scrapes starts no monitors, and loads no
 * prom-client.
 */
import type { Registry } from 'prom-client';

let registry: Promise<Registry> | undefined;

async function createRegistry(): Promise<Registry> {
  const { collectDefaultMetrics, Registry } = await import('prom-client');
  const created = new Registry();
  collectDefaultMetrics({ register: created });
  return created;
}

export async function processMetricsText(): Promise<string> {
  registry ??= createRegistry();
  return (await registry).metrics();
}

/** The content type of the exposition (Prometheus text format 0.0.4, prom-client's PROMETHEUS_CONTENT_TYPE). */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
