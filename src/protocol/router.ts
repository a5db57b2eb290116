/**
 * Every request, transport-neutral: the version check (spec "Versioning"), then the discovery
 * card, JSON-RPC at `POST /`, or the REST routes under /v1.
 */
import type { IncomingRequest } from '../agent.js';
import type { AuthGate } from '../auth/gate.js';
import type { Caller } from '../auth/types.js';
import type { Logger } from '../log.js';
import { isUtf8 } from 'node:buffer';
import { a2aError, isA2AError, shown, type A2AError } from '../a2a/errors.js';
import { bodyTooDeep, ENVELOPE_LEVELS } from './json-depth.js';
import { withActivatedExtensions } from './extensions.js';
import { createJsonRpcHandler, jsonRpcErrorReply } from './jsonrpc.js';
import type { CardEntry, Operations } from './operations.js';
import { restError, toA2AError, type Reply } from './reply.js';
import { createRestHandler, PUBLIC_REST_PATHS, resolveRestRoute, segmentsOf, type RestTarget } from './rest.js';
import type { RequestFacts } from '../observe/scope.js';
import { isObject } from './params.js';
import type { RestDialectName } from './rest-dialect.js';
import { versionError } from './version.js';

export interface ProtocolRequest {
  method: string;
  path: string;
  /** Raw query string without `?`. */
  query: string;
  /** Lower-cased header names. */
  headers: Readonly<Record<string, string>>;
  body: Buffer;
  /** Only the cards read it: a front end may work it out when it is read (exchange.ts does). */
  readonly baseUrl: string;
}

const CARD_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json']);

/** `application/json` or any `application/*+json`, parameters (charset) ignored. */
const JSON_MEDIA_TYPE = /^\s*application\/(?:[\w.!#$&^-]+\+)?json\s*(?:;|$)/i;

export interface RouterLimits {
  /** Levels free-form JSON (metadata, data parts) may nest (SERVICE_MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  /** The shapes REST answers in (SERVICE_REST_DIALECT); default `a2a`. */
  restDialect?: RestDialectName;
}

type ParsedBody = { ok: true; value: unknown } | { ok: false; error: A2AError };

/**
 * Parses a JSON body; an empty body is `{}` (clients send Content-Type on bodyless POSTs).
 * Bytes that are not UTF-8 are refused rather than silently replaced, and a body nesting deeper
 * than any valid request could is refused before it is parsed (see json-depth.ts).
 */
function parseBody(body: Buffer, limits: RouterLimits): ParsedBody {
  if (body.length === 0) return { ok: true, value: {} };
  if (!isUtf8(body)) return { ok: false, error: a2aError('parseError', 'the body is not valid UTF-8') };
  const text = body.toString('utf8');
  const maxLevels = limits.maxJsonDepth + ENVELOPE_LEVELS;
  const deepAt = bodyTooDeep(text, maxLevels);
  if (deepAt !== undefined) {
    return {
      ok: false,
      error: a2aError(
        'jsonTooDeep',
        `${deepAt} nests deeper than ${maxLevels} levels in all (free-form fields such as metadata and data parts may nest ${limits.maxJsonDepth}: SERVICE_MAX_JSON_DEPTH)`,
      ),
    };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, error: a2aError('parseError') };
  }
}

/**
 * A2A bodies must be JSON (415 otherwise). A bodyless POST (`curl -X POST …:cancel`) may omit
 * the header; one with a body may not, since a body without a JSON type is what a cross-site
 * form or `no-cors` fetch can send without a CORS preflight.
 */
function mediaTypeError(req: ProtocolRequest): A2AError | undefined {
  const type = req.headers['content-type'];
  if (type === undefined ? req.body.length === 0 : JSON_MEDIA_TYPE.test(type)) return undefined;
  return a2aError('unsupportedMediaType', `the body must be application/json${type === undefined ? '' : `, not ${shown(type)}`}`);
}

/** Whether a request is for the JSON-RPC endpoint (errors then take the JSON-RPC envelope). */
export const isJsonRpcRequest = (method: string, path: string): boolean => path === '/' && method === 'POST';

/**
 * An error found before routing (framing, body size) in the shape of the transport the request
 * was for: a JSON-RPC envelope with a null id at `POST /`, the REST body elsewhere.
 */
export function earlyErrorReply(method: string, path: string, err: A2AError): Reply {
  return isJsonRpcRequest(method, path) ? jsonRpcErrorReply(null, err) : restError(err);
}

/** The task id a JSON-RPC request's params name (`id`, or `taskId` on push config methods). */
function rpcTaskIdOf(body: unknown): string | undefined {
  const params = isObject(body) ? body.params : undefined;
  if (!isObject(params)) return undefined;
  const id = typeof params.id === 'string' ? params.id : params.taskId;
  return typeof id === 'string' ? id : undefined;
}

export function createRouter(ops: Operations, logger: Logger, limits: RouterLimits = { maxJsonDepth: 64 }, gate?: AuthGate): Router {
  const rpc = createJsonRpcHandler(ops, logger, gate);
  const rest = createRestHandler(ops, logger, gate, limits.restDialect);

  /** With auth on: the caller of an A2A request, or the 401/503 it is answered with. */
  const authenticate = (gate: AuthGate, incoming: IncomingRequest): Caller | A2AError | Promise<Caller | A2AError> => {
    const refused = (err: unknown) => toA2AError(err, logger, 'authenticate');
    try {
      const caller = gate.authenticate(incoming);
      return caller instanceof Promise ? caller.catch(refused) : caller;
    } catch (err) {
      return refused(err);
    }
  };

  /**
   * With auth on: `then` with the authenticated caller, or `refuse` with the 401/503. At once
   * when the gate answers at once.
   */
  const withCaller = (
    gate: AuthGate,
    incoming: IncomingRequest,
    refuse: (err: A2AError) => Reply,
    then: (caller: Caller) => Reply | Promise<Reply>,
  ): Reply | Promise<Reply> => {
    const auth = authenticate(gate, incoming);
    const go = (answer: Caller | A2AError) => (isA2AError(answer) ? refuse(answer) : then(answer));
    return auth instanceof Promise ? auth.then(go) : go(auth);
  };

  /** The reply named with the activated extensions; the handler's own promise when there are none. */
  const withExtensions = (reply: Promise<Reply>, extensions: readonly string[], headers: ProtocolRequest['headers']): Promise<Reply> =>
    extensions.length === 0 ? reply : reply.then((r) => withActivatedExtensions(r, extensions, headers));

  const rpcCall = (req: ProtocolRequest, incoming: IncomingRequest, body: unknown, caller: Caller | undefined): Promise<Reply> => {
    const extensions = ops.activateExtensions(req.headers);
    const reply = rpc.handle(body, { request: incoming, caller, location: req, lastEventId: req.headers['last-event-id'], extensions });
    return withExtensions(reply, extensions, req.headers);
  };

  const restCall = (
    req: ProtocolRequest,
    incoming: IncomingRequest,
    parsed: ParsedBody,
    target: RestTarget | undefined,
    caller: Caller | undefined,
  ): Reply | Promise<Reply> => {
    if (!parsed.ok) return restError(parsed.error);
    if (!target) return restError(a2aError('invalidRequest', 'the path is not valid percent-encoding'));
    const extensions = ops.activateExtensions(req.headers);
    const reply = rest.handle(
      {
        method: req.method,
        path: req.path,
        query: req.query,
        body: parsed.value,
        request: incoming,
        caller,
        location: req,
        lastEventId: req.headers['last-event-id'],
        extensions,
      },
      target,
    );
    return withExtensions(reply, extensions, req.headers);
  };

  /**
   * Answers one request, noting in `facts` what it turned out to be (transport, operation, task)
   * for whoever observes it: metrics, the request's span and its log lines. Not async: a request
   * that needs no waiting of its own hands back the handler's promise (one async frame and its
   * await fewer per request); what waits (a signed card, an asynchronous auth gate) chains on.
   */
  function routeNow(req: ProtocolRequest, facts: RequestFacts): Reply | Promise<Reply> {
    const incoming: IncomingRequest = { method: req.method, path: req.path, headers: req.headers };
    const isRpc = isJsonRpcRequest(req.method, req.path);
    const isRest = !isRpc && req.path.startsWith('/v1/');
    const segments = isRest ? segmentsOf(req.path.slice('/v1/'.length)) : undefined;
    let target: RestTarget | undefined;
    if (isRpc) facts.transport = 'jsonrpc';
    else if (segments) {
      target = resolveRestRoute(req.method, segments);
      facts.operation = target.operation;
      facts.taskId = target.taskId;
    }
    const hasBody = req.method === 'POST' || req.method === 'PUT';
    const isA2ABody = hasBody && (isRpc || req.path.startsWith('/v1/'));
    const badType = isA2ABody ? mediaTypeError(req) : undefined;
    if (badType) return isRpc ? jsonRpcErrorReply(null, badType) : restError(badType);
    const parsed: ParsedBody = hasBody ? parseBody(req.body, limits) : { ok: true, value: {} };
    if (isRpc && parsed.ok) {
      facts.operation = rpc.operationOf(parsed.value);
      facts.taskId = rpcTaskIdOf(parsed.value);
    }

    // The discovery card is how a client learns which version we speak, so it is served whatever
    // `A2A-Version` asks for (A2A 1.0 requires the well-known card to always answer, and the
    // official 1.x SDK sends `A2A-Version: 1.0` there even in its v0.3 compatibility mode).
    // Every other endpoint keeps the spec's check. `GET {card.url}` (our `/`) answers the card
    // too (wire reference §4.1).
    if (req.method === 'GET' && (CARD_PATHS.has(req.path) || req.path === '/')) {
      facts.transport = 'card';
      facts.operation = 'agent/card';
      // A cached card answers at once; one that has to be signed first, after the signing.
      const card = ops.card(req.baseUrl);
      return card instanceof Promise ? card.then(cardReply) : cardReply(card);
    }

    const badVersion = versionError(req.headers['a2a-version']);
    if (badVersion) {
      return isRpc ? jsonRpcErrorReply(parsed.ok ? rpc.idOf(parsed.value) : null, badVersion) : restError(badVersion);
    }

    if (isRpc) {
      if (!parsed.ok) return jsonRpcErrorReply(null, parsed.error);
      const body = parsed.value;
      if (!gate) return rpcCall(req, incoming, body, undefined);
      return withCaller(
        gate,
        incoming,
        (err) => jsonRpcErrorReply(rpc.idOf(body), err),
        (caller) => rpcCall(req, incoming, body, caller),
      );
    }
    if (isRest) {
      if (!gate || PUBLIC_REST_PATHS.has(req.path)) return restCall(req, incoming, parsed, target, undefined);
      return withCaller(gate, incoming, restError, (caller) => restCall(req, incoming, parsed, target, caller));
    }
    return restError(a2aError('methodNotFound', `no route ${req.method} ${shown(req.path)}`));
  }

  return function route(req: ProtocolRequest, facts: RequestFacts = unobserved()): Promise<Reply> {
    try {
      const reply = routeNow(req, facts);
      return reply instanceof Promise ? reply : Promise.resolve(reply);
    } catch (err) {
      // As from the async function this was: a failure is a rejected promise, never a throw.
      return Promise.reject(err);
    }
  };
}

/** The card's reply. */
const cardReply = (card: CardEntry): Reply => ({ kind: 'json', status: 200, body: card.json });

/** Answers one transport-neutral request; `facts` receives what it turned out to be. */
export type Router = (req: ProtocolRequest, facts?: RequestFacts) => Promise<Reply>;

/** Facts nobody reads (a router called without an observer). */
const unobserved = (): RequestFacts => ({ transport: 'rest', operation: 'unknown', taskId: undefined });
