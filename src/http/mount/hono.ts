/**
 * Hono on @hono/node-server: a middleware serving the mount path and everything under it,
 * `app.use(a2aHono(server, { mountPath: '/a2a' }))`. It answers on the node objects
 * @hono/node-server puts in `c.env` and tells it the answer is already sent, so a stream goes
 * straight to the socket and the body is read by the A2A server (Hono reads it only when asked).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isUnder, normalMountPath, type Mountable, type MountOptions } from './mountable.js';

/**
 * The part of a Hono context the middleware uses: `env`, where @hono/node-server puts its
 * `HttpBindings` (typed `unknown` by an app that declares no bindings, so it is checked here).
 */
export interface HonoNodeContext {
  /** @hono/node-server's bindings: `incoming` and `outgoing`. */
  readonly env: unknown;
}

interface HttpBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

const isHttpBindings = (env: unknown): env is HttpBindings =>
  typeof env === 'object' && env !== null && 'incoming' in env && 'outgoing' in env;

/** A Hono middleware (`app.use(...)`); it calls `next` for requests outside the mount path. */
export type HonoA2AMiddleware = (c: HonoNodeContext, next: () => Promise<void>) => Promise<Response | void>;

/** @hono/node-server's mark for "the handler wrote the answer itself" (its RESPONSE_ALREADY_SENT). */
const ALREADY_SENT_HEADER = 'x-hono-already-sent';

/**
 * The platform's own Response class. @hono/node-server replaces the global one with a lighter
 * subclass (whose prototype chain leads back to the platform's) and writes that kind of answer
 * itself without looking for its already-sent mark: the mark must be on a platform Response.
 */
function platformResponse(): typeof Response {
  let found = globalThis.Response;
  for (
    let up: unknown = Object.getPrototypeOf(found);
    typeof up === 'function' && up !== Function.prototype;
    up = Object.getPrototypeOf(up)
  ) {
    found = up as typeof Response;
  }
  return found;
}

/**
 * A Hono middleware serving `server` at `mountPath` (from the root) and everything under it, for
 * apps served by @hono/node-server: `app.use(a2aHono(server, { mountPath: '/a2a' }))`.
 */
export function a2aHono(server: Mountable, opts: MountOptions): HonoA2AMiddleware {
  const mountPath = normalMountPath(opts.mountPath);
  const handler = server.nodeHandler({ mountPath });
  const AlreadySent = platformResponse();
  return async (c, next) => {
    if (!isHttpBindings(c.env)) throw new Error('a2aHono serves only under @hono/node-server (c.env.incoming and c.env.outgoing)');
    const { incoming, outgoing } = c.env;
    if (!isUnder(incoming.url ?? '/', mountPath)) return next();
    handler(incoming, outgoing);
    return new AlreadySent(null, { headers: { [ALREADY_SENT_HEADER]: 'true' } });
  };
}
