/**
 * Fastify: a plugin serving the mount root and everything under it,
 * `app.register(a2aFastify(server), { prefix: '/a2a' })`. Each request is taken over in its
 * route's `onRequest` hook, before Fastify reads or parses the body (the app's own hooks, such as
 * its authentication, have run by then), so the body reaches the A2A server unread and its limits
 * and errors apply. Streams are written straight to the socket.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Mountable } from './mountable.js';

/** The request Fastify hands a hook, as the plugin uses it. */
export interface FastifyRawRequest {
  /** The node request beneath it. */
  readonly raw: IncomingMessage;
}

/** The reply Fastify hands a hook, as the plugin uses it. */
export interface FastifyRawReply {
  /** The node response beneath it. */
  readonly raw: ServerResponse;
  /** Tells Fastify the answer is written elsewhere: it does nothing more for the request. */
  hijack(): unknown;
}

/** The little of a Fastify instance the plugin uses (fastify is not a dependency of this package). */
export interface FastifyScope {
  /** The prefix the plugin was registered with, from the root (`/a2a`). */
  readonly prefix: string;
  /** Declares a route for every method. */
  all(
    url: string,
    options: { onRequest(request: FastifyRawRequest, reply: FastifyRawReply, done: () => void): void },
    handler: () => void,
  ): unknown;
}

/** A Fastify plugin: register it with the prefix to serve under. */
export type FastifyA2APlugin = (instance: FastifyScope) => Promise<void>;

/**
 * A Fastify plugin serving `server` at the prefix it is registered with and everything under it:
 * `app.register(a2aFastify(server), { prefix: '/a2a' })`.
 */
export function a2aFastify(server: Mountable): FastifyA2APlugin {
  return async (instance) => {
    const handler = server.nodeHandler({ mountPath: instance.prefix });
    const options = {
      onRequest(request: FastifyRawRequest, reply: FastifyRawReply, done: () => void): void {
        // Hijacked, the request goes no further through Fastify: no body parsing, no handler.
        reply.hijack();
        handler(request.raw, reply.raw);
        done();
      },
    };
    // Never reached: the hook above has answered.
    const unreachable = (): void => {};
    // With a prefix, `/` is the prefix itself (and with a trailing slash); `/*` is all below it.
    instance.all('/', options, unreachable);
    instance.all('/*', options, unreachable);
  };
}
