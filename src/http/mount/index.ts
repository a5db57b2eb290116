/** Adapters that mount the server in a host framework's app (Express needs none: `app.use(path, server.nodeHandler())`). */
export { a2aFastify, type FastifyA2APlugin, type FastifyScope, type FastifyRawReply, type FastifyRawRequest } from './fastify.js';
export { a2aHono, type HonoA2AMiddleware, type HonoNodeContext } from './hono.js';
export { a2aKoa, type KoaA2AMiddleware, type KoaNodeContext } from './koa.js';
export type { Mountable, MountOptions } from './mountable.js';
