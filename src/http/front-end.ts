/**
 * Which front end serves: a native uWebSockets.js build when one loads on this Node and
 * platform (the fast path), else our HTTP/1.1 on node:net (h1/server.ts). SERVICE_FRONT_END=
 * uws|node forces one, and `node-http` serves with node:http's server instead; forcing uws where
 * no native build loads is an error rather than a silent fallback.
 */
import { startNodeH1 } from './h1/server.js';
import { startNodeHttp } from './node-server.js';
import type { HttpOptions, HttpServer } from './exchange.js';
import { IDLE_BODY_BUDGET } from './body-budget.js';
import { loadNativeUws, startUwsHttp } from './uws-server.js';

export type FrontEndChoice = 'auto' | 'uws' | 'node' | 'node-http' | 'none';

export interface StartedFrontEnd {
  http: HttpServer;
  /** For the start-up line: which front end, and which uWS build when it is uWS. */
  description: string;
}

/** No listener of its own: the server is reached only through `server.nodeHandler()` mounted in an app. */
const NO_LISTENER: HttpServer = {
  port: 0,
  host: '',
  frontEnd: 'none',
  openStreams: () => 0,
  bodyBudget: () => IDLE_BODY_BUDGET,
  stopListening: () => {},
  close: () => {},
};

export async function startFrontEnd(choice: FrontEndChoice, opts: HttpOptions): Promise<StartedFrontEnd> {
  if (choice === 'none') return { http: NO_LISTENER, description: 'none (mounted in a host app)' };
  if (choice === 'node-http') return { http: await startNodeHttp(opts), description: 'node-http (node:http)' };
  if (choice !== 'node') {
    const native = await loadNativeUws();
    if (native) return { http: await startUwsHttp(native.uws, opts), description: `uws (${native.build}, native)` };
    if (choice === 'uws') {
      throw new Error(
        `SERVICE_FRONT_END=uws, but no native uWebSockets.js build loads on Node ${process.versions.node} (${process.platform}-${process.arch}); ` +
          'unset it to serve with the node front end',
      );
    }
  }
  return { http: await startNodeH1(opts), description: 'node (HTTP/1.1 on node:net)' };
}
