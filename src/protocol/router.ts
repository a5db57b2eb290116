/**
 * Every request, transport-neutral: the version check (spec "Versioning"), then the discovery
 * card, JSON-RPC at `POST /`, or the REST routes under /v1.
 */
import type { IncomingRequest } from '../agent.js';
import type { Logger } from '../log.js';
import { a2aError } from './errors.js';
import { createJsonRpcHandler } from './jsonrpc.js';
import type { Operations } from './operations.js';
import { json, restError, type Reply } from './reply.js';
import { createRestHandler, segmentsOf } from './rest.js';
import { versionError } from './version.js';

export interface ProtocolRequest {
  method: string;
  path: string;
  /** Raw query string without `?`. */
  query: string;
  /** Lower-cased header names. */
  headers: Readonly<Record<string, string>>;
  body: Buffer;
  baseUrl: string;
}

const CARD_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json']);

/** Parses a JSON body; an empty body is `{}` (clients send Content-Type on bodyless POSTs). */
function parseBody(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  if (body.length === 0) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

export function createRouter(ops: Operations, logger: Logger) {
  const rpc = createJsonRpcHandler(ops, logger);
  const rest = createRestHandler(ops, logger);

  return async function route(req: ProtocolRequest): Promise<Reply> {
    const incoming: IncomingRequest = { method: req.method, path: req.path, headers: req.headers };
    const isRpc = req.path === '/' && req.method === 'POST';
    const parsed = req.method === 'POST' || req.method === 'PUT' ? parseBody(req.body) : { ok: true as const, value: {} };

    const badVersion = versionError(req.headers['a2a-version']);
    if (badVersion) {
      return isRpc ? rpc.errorReply(parsed.ok ? rpc.idOf(parsed.value) : null, badVersion) : restError(badVersion);
    }

    if (isRpc) {
      if (!parsed.ok) return rpc.errorReply(null, a2aError('parseError'));
      return rpc.handle(parsed.value, { request: incoming, baseUrl: req.baseUrl, lastEventId: req.headers['last-event-id'] });
    }
    if (req.method === 'GET' && (CARD_PATHS.has(req.path) || req.path === '/')) {
      // `GET {card.url}` (our `/`) also answers the card (wire reference §4.1).
      return { kind: 'json', status: 200, body: ops.card(req.baseUrl).json };
    }
    if (req.path.startsWith('/v1/')) {
      if (!parsed.ok) return restError(a2aError('parseError'));
      const segments = segmentsOf(req.path.slice('/v1/'.length));
      if (!segments) return restError(a2aError('invalidRequest', 'the path is not valid percent-encoding'));
      return rest.handle(
        {
          method: req.method,
          path: req.path,
          query: new URLSearchParams(req.query),
          body: parsed.value,
          request: incoming,
          baseUrl: req.baseUrl,
          lastEventId: req.headers['last-event-id'],
        },
        segments,
      );
    }
    return restError(a2aError('methodNotFound', `no route ${req.method} ${req.path}`));
  };
}

export type Router = ReturnType<typeof createRouter>;
export { json };
