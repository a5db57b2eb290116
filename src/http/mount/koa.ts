/**
 * Koa: a middleware serving the mount path and everything under it,
 * `app.use(a2aKoa(server, { mountPath: '/a2a' }))`, answering on the node objects (`ctx.respond`
 * is turned off so Koa writes nothing). A body a Koa body parser already read is handed over
 * (`ctx.request.rawBody`, else `ctx.request.body`); mounted before one, the body is read here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { offerReadBody } from '../parsed-body.js';
import { isUnder, normalMountPath, type Mountable, type MountOptions } from './mountable.js';

/** The part of a Koa context the middleware uses (koa is not a dependency of this package). */
export interface KoaNodeContext {
  /** The node request. */
  readonly req: IncomingMessage;
  /** The node response. */
  readonly res: ServerResponse;
  /** Koa's request, where body parsers leave `body` and `rawBody`. */
  readonly request: object;
  /** Turned off: the answer is written on `res`, not by Koa. */
  respond?: boolean;
}

/** A Koa middleware (`app.use(...)`); it calls `next` for requests outside the mount path. */
export type KoaA2AMiddleware = (ctx: KoaNodeContext, next: () => Promise<unknown>) => Promise<unknown>;

/**
 * A Koa middleware serving `server` at `mountPath` (from the root) and everything under it:
 * `app.use(a2aKoa(server, { mountPath: '/a2a' }))`.
 */
export function a2aKoa(server: Mountable, opts: MountOptions): KoaA2AMiddleware {
  const mountPath = normalMountPath(opts.mountPath);
  const handler = server.nodeHandler({ mountPath });
  return async (ctx, next) => {
    if (!isUnder(ctx.req.url ?? '/', mountPath)) return next();
    const { body, rawBody } = ctx.request as { body?: unknown; rawBody?: unknown };
    if (body !== undefined || rawBody !== undefined) offerReadBody(ctx.req, { raw: rawBody, parsed: body });
    ctx.respond = false;
    handler(ctx.req, ctx.res);
    return undefined;
  };
}
