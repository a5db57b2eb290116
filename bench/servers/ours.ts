/**
 * a2actor serving the bench echo agent, in its own process: `ours.ts <store>` with `memory` or
 * `sqlite:<path>`. Logging is off (as in production at high load, and as the peer does), and
 * webhooks may go to http://127.0.0.1 so W7 can deliver to the generator's local receiver.
 */
import { createServer } from '../../src/index.js';
import echoAgent from '../agents/echo-agent.js';
import { serve } from './child.js';

const store = process.argv[2] ?? 'memory';

await serve(async () => {
  const server = await createServer({
    agent: echoAgent,
    host: '127.0.0.1',
    port: 0,
    store,
    logLevel: 'silent',
    env: {},
    pushAllowHttp: true,
    pushAllowedHosts: ['127.0.0.1'],
  });
  return { url: server.url, description: `a2actor, ${server.store.description}, uWS ${server.native ? 'native' : 'fallback'}`, close: () => server.close() };
});
