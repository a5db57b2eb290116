/**
 * `GET /metrics`: the Prometheus exposition, on the server's own listener (a raw route, public
 * like the health check: scrapers carry no A2A credentials) or on a listener of its own
 * (SERVICE_METRICS_PORT), so operators can keep it off the public port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { METRICS_CONTENT_TYPE } from '../observe/process-metrics.js';
import type { RawAnswer, RawRoute } from './exchange.js';

export const METRICS_PATH = '/metrics';

const answer = async (render: () => Promise<string>): Promise<RawAnswer> => ({
  status: 200,
  contentType: METRICS_CONTENT_TYPE,
  body: await render(),
  // A scrape must never be served from a cache.
  headers: { 'Cache-Control': 'no-store' },
});

/** The route on the server's listener. */
export const metricsRoute =
  (render: () => Promise<string>): RawRoute =>
  (req) =>
    req.method === 'GET' && req.path === METRICS_PATH ? answer(render) : undefined;

export interface MetricsListener {
  readonly port: number;
  close(): Promise<void>;
}

/** A plain node:http listener serving only /metrics (404 for anything else). */
export async function startMetricsListener(host: string, port: number, render: () => Promise<string>): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if ((req.method !== 'GET' && req.method !== 'HEAD') || path !== METRICS_PATH) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    answer(render).then(
      (out) => {
        res.writeHead(out.status, { 'Content-Type': out.contentType, ...out.headers });
        res.end(req.method === 'HEAD' ? undefined : out.body);
      },
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('internal error\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(new Error(`cannot serve metrics on ${host}:${port} (SERVICE_METRICS_PORT): ${err.message}`, { cause: err })),
    );
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
