/**
 * A request body a host app read before handing the request over (Express's `express.json()`,
 * a Koa body parser, Fastify's own parsers): the stream has nothing left, so reading it would
 * wait for ever. What the app kept is used instead (its raw bytes, or its parsed value written
 * back as JSON once, under the same byte limit); when it kept nothing usable, the request is
 * answered at once with an error saying what to change, and one log line says it too.
 */
import type { IncomingMessage } from 'node:http';
import { a2aError, type A2AError } from '../a2a/errors.js';
import type { Logger } from '../log.js';
import type { WireRequest } from './wire.js';

/** What an app can hand over with a request it read (a raw body wins over a parsed one). */
export interface ReadBody {
  /** The bytes as they came (Koa body parsers' `rawBody`, a `verify` hook's copy). */
  raw?: unknown;
  /** The value an app's JSON parser made of them (`req.body`). */
  parsed?: unknown;
}

/** Bodies handed over by this package's own adapters (src/http/mount/), beside the request. */
const offered = new WeakMap<IncomingMessage, ReadBody>();

/** Hands over the body an app read from `req` (the Koa adapter's `ctx.request.body`). */
export function offerReadBody(req: IncomingMessage, body: ReadBody): void {
  offered.set(req, body);
}

/** Someone read the stream before us: `data` was emitted, or its end was. */
const alreadyRead = (req: IncomingMessage): boolean => req.readableEnded || req.readableDidRead;

const HINT =
  'mount the A2A handler before any body parser (Express: app.use(path, handler) before app.use(express.json())), ' +
  'or keep the body the parser read on req.body or req.rawBody';

const consumed = (): A2AError => a2aError('internal', `the host app read the request body before the A2A handler: ${HINT}`);

type Found = { bytes: Buffer } | { error: A2AError };

/** The body as bytes, from what the app kept; undefined when it kept nothing. */
function keptBody(kept: ReadBody): Found | undefined {
  for (const value of [kept.raw, kept.parsed]) {
    if (Buffer.isBuffer(value)) return { bytes: value };
    if (typeof value === 'string') return { bytes: Buffer.from(value, 'utf8') };
  }
  const { parsed } = kept;
  if (parsed === undefined || parsed === null || typeof parsed !== 'object') return undefined;
  try {
    return { bytes: Buffer.from(JSON.stringify(parsed), 'utf8') };
  } catch (err) {
    // Nesting past the stack's depth (the router's own depth limit is far below it), or a
    // value an app built that is not JSON at all (a cycle).
    return err instanceof RangeError
      ? { error: a2aError('jsonTooDeep', 'the body the host app parsed nests too deeply to pass on') }
      : { error: a2aError('invalidRequest', 'the body the host app parsed is not JSON') };
  }
}

/**
 * `wire` itself when its body is still to be read (the common case: one check); otherwise a
 * request whose body comes from what the app kept, or is refused at once.
 */
export function withReadBody(wire: WireRequest, req: IncomingMessage, logger: Logger): WireRequest {
  if (!alreadyRead(req)) return wire;
  const own = req as IncomingMessage & { body?: unknown; rawBody?: unknown };
  const found = keptBody(offered.get(req) ?? { raw: own.rawBody, parsed: own.body });
  const readBody: WireRequest['readBody'] = (max, done, over) => {
    if (!found) {
      logger.error('http.body_already_read', { method: wire.method, path: wire.path, fix: HINT });
      over(consumed());
    } else if ('error' in found) over(found.error);
    else if (found.bytes.byteLength > max) over();
    else done(found.bytes);
  };
  // Nothing is left on the socket to hold back.
  return { ...wire, readBody, holdBody() {} };
}
