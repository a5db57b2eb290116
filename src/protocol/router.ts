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
import { createJsonRpcHandler, jsonRpcErrorReply, type JsonRpcHandler, type RpcId } from './jsonrpc.js';
import type { CardEntry, Operations } from './operations.js';
import { restError, toA2AError, type Reply } from './reply.js';
import { createRestHandler, PUBLIC_REST_PATHS, resolveRestRoute, segmentsOf, type RestTarget } from './rest.js';
import type { RequestFacts } from '../observe/scope.js';
import { isObject } from './params.js';
import type { RestDialectName } from './rest-dialect.js';
import { requestedVersion } from './version.js';
import { V1_RPC } from './v1/jsonrpc.js';
import { restErrorV1 } from './v1/errors.js';
import { createV1RestHandler, isV1RestPath, resolveV1RestRoute, type V1RestTarget } from './v1/rest.js';

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
  if (isJsonRpcRequest(method, path)) return jsonRpcErrorReply(null, err);
  if (path.startsWith('/v1/')) return restError(err);
  const segments = segmentsOf(path.slice(1));
  return segments && isV1RestPath(segments) ? restErrorV1(err) : restError(err);
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
  const v1Rpc = createJsonRpcHandler(ops, logger, gate, V1_RPC);
  const rest = createRestHandler(ops, logger, gate, limits.restDialect);
  const v1Rest = createV1RestHandler(ops, logger, gate);

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

  const rpcCall = (
    handler: JsonRpcHandler,
    req: ProtocolRequest,
    incoming: IncomingRequest,
    body: unknown,
    caller: Caller | undefined,
  ): Promise<Reply> => {
    const extensions = ops.activateExtensions(req.headers);
    const reply = handler.handle(body, { request: incoming, caller, location: req, lastEventId: req.headers['last-event-id'], extensions });
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

  const v1RestCall = (
    req: ProtocolRequest,
    incoming: IncomingRequest,
    parsed: ParsedBody,
    target: V1RestTarget,
    caller: Caller | undefined,
  ): Reply | Promise<Reply> => {
    if (!parsed.ok) return restErrorV1(parsed.error);
    const extensions = ops.activateExtensions(req.headers);
    const reply = v1Rest.handle(
      {
        method: req.method,
        query: req.query,
        body: parsed.value,
        request: incoming,
        caller,
        location: req,
        lastEventId: req.headers['last-event-id'],
        extensions,
      },
      req.path,
      target,
    );
    return withExtensions(reply, extensions, req.headers);
  };

  /**
   * Answers one request, noting in `facts` what it turned out to be (transport, operation, task)
   * for whoever observes it: metrics, the request's span and its log lines. Not async: a request
   * that needs no waiting of its own hands back the handler's promise (one async frame and its
   * await fewer per request); what waits (a signed card, an asynchronous auth gate) chains on.
   *
   * The version: `A2A-Version` when the request sends one; without it, v1.0 method names and
   * v1.0 REST paths are v1.0 (they cannot be v0.3, and clients such as the conformance kit send
   * no header), everything else v0.3 exactly as before v1.0 was served.
   */
  function routeNow(req: ProtocolRequest, facts: RequestFacts): Reply | Promise<Reply> {
    const incoming: IncomingRequest = { method: req.method, path: req.path, headers: req.headers };
    const asked = requestedVersion(req.headers['a2a-version']);
    const badVersion = isA2AError(asked) ? asked : undefined;
    const isRpc = isJsonRpcRequest(req.method, req.path);
    const isV03Rest = !isRpc && req.path.startsWith('/v1/') && (asked === undefined || asked === '0.3' || badVersion !== undefined);
    let v1Target: V1RestTarget | undefined;
    if (!isRpc && !isV03Rest && asked !== '0.3') {
      const segments = segmentsOf(req.path.slice(1));
      const target = segments ? resolveV1RestRoute(req.method, segments) : undefined;
      // Without a header, only a path v1.0 serves is v1.0; with `1.x` every path is.
      if (asked === '1.0' || (target && (target.route || target.wrongMethod))) v1Target = target ?? NO_V1_ROUTE;
    }
    const segments = isV03Rest ? segmentsOf(req.path.slice('/v1/'.length)) : undefined;
    let target: RestTarget | undefined;
    if (isRpc) facts.transport = 'jsonrpc';
    else if (v1Target) {
      facts.operation = v1Target.operation;
      facts.taskId = v1Target.taskId;
    } else if (segments) {
      target = resolveRestRoute(req.method, segments);
      facts.operation = target.operation;
      facts.taskId = target.taskId;
    }
    const hasBody = req.method === 'POST' || req.method === 'PUT';
    const isA2ABody = hasBody && (isRpc || isV03Rest || v1Target !== undefined);
    const parsed: ParsedBody = hasBody ? parseBody(req.body, limits) : { ok: true, value: {} };
    // A refused header is answered in the shape the request has without it (as on REST).
    const versionFromBody = asked === undefined || badVersion !== undefined;
    const isV1Rpc = isRpc && (asked === '1.0' || (versionFromBody && parsed.ok && v1Rpc.isMethod(parsed.value)));
    const rpcHandler = isV1Rpc ? v1Rpc : rpc;
    const rpcRefusal = (id: RpcId, err: A2AError) => jsonRpcErrorReply(id, err, isV1Rpc ? V1_RPC : undefined);
    const badType = isA2ABody ? mediaTypeError(req) : undefined;
    if (badType) return isRpc ? rpcRefusal(null, badType) : v1Target ? restErrorV1(badType) : restError(badType);
    if (isRpc && parsed.ok) {
      facts.operation = rpcHandler.operationOf(parsed.value);
      facts.taskId = rpcTaskIdOf(parsed.value);
    }

    // The discovery card is how a client learns which version we speak, so it is served whatever
    // `A2A-Version` asks for (A2A 1.0 requires the well-known card to always answer, and the
    // official 1.x SDK sends `A2A-Version: 1.0` there even in its v0.3 compatibility mode).
    // Only its `securitySchemes` differ by version (v1/card.ts). Every other endpoint keeps the
    // spec's check. `GET {card.url}` (our `/`) answers the card too (wire reference §4.1).
    if (req.method === 'GET' && isCardPath(req.path)) {
      facts.transport = 'card';
      facts.operation = 'agent/card';
      // A cached card answers at once; one that has to be signed first, after the signing.
      const card = ops.card(req.baseUrl, asked === '1.0' ? '1.0' : '0.3');
      return card instanceof Promise ? card.then(cardReply) : cardReply(card);
    }

    if (badVersion) {
      if (isRpc) return rpcRefusal(parsed.ok ? rpcHandler.idOf(parsed.value) : null, badVersion);
      return v1Target ? restErrorV1(badVersion) : restError(badVersion);
    }

    if (isRpc) {
      if (!parsed.ok) return rpcRefusal(null, parsed.error);
      const body = parsed.value;
      if (!gate) return rpcCall(rpcHandler, req, incoming, body, undefined);
      return withCaller(
        gate,
        incoming,
        (err) => rpcRefusal(rpcHandler.idOf(body), err),
        (caller) => rpcCall(rpcHandler, req, incoming, body, caller),
      );
    }
    if (v1Target) {
      if (!gate) return v1RestCall(req, incoming, parsed, v1Target, undefined);
      return withCaller(gate, incoming, restErrorV1, (caller) => v1RestCall(req, incoming, parsed, v1Target, caller));
    }
    if (isV03Rest) {
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

/**
 * The discovery card's paths; a base URL written with a trailing slash (`http://host/`) makes
 * clients ask for `//.well-known/agent-card.json`, which is the same card.
 */
const isCardPath = (path: string): boolean =>
  path === '/' || CARD_PATHS.has(path) || (path.startsWith('//') && CARD_PATHS.has(path.replace(/^\/+/, '/')));

/** The card's reply: it differs by `A2A-Version`, which caches must key on. */
const cardReply = (card: CardEntry): Reply => ({ kind: 'json', status: 200, body: card.json, headers: VARY_VERSION });
const VARY_VERSION: Readonly<Record<string, string>> = { Vary: 'A2A-Version' };

/** A path v1.0 has no route for: answered v1.0's 404. */
const NO_V1_ROUTE: V1RestTarget = { route: undefined, operation: 'unknown', taskId: undefined, wrongMethod: false };

/** Answers one transport-neutral request; `facts` receives what it turned out to be. */
export type Router = (req: ProtocolRequest, facts?: RequestFacts) => Promise<Reply>;

/** Facts nobody reads (a router called without an observer). */
const unobserved = (): RequestFacts => ({ transport: 'rest', operation: 'unknown', taskId: undefined });
