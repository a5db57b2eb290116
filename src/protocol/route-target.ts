/**
 * Matching a request, apart from answering it: which version and transport it speaks, which
 * operation and task it names, its parsed body, or the refusal found before anything runs (media
 * type, version check, JSON-RPC parse error). The router's dispatch answers the target; the
 * observer names the request's span, metrics and logs from it first.
 */
import { isUtf8 } from 'node:buffer';
import { a2aError, isA2AError, shown, type A2AError } from '../a2a/errors.js';
import type { ProtocolVersion } from '../a2a/versions.js';
import type { Caller } from '../auth/types.js';
import type { RequestFacts } from '../observe/scope.js';
import { bodyTooDeep, ENVELOPE_LEVELS } from './json-depth.js';
import { jsonRpcErrorReply, type JsonRpcHandler, type RpcBinding, type RpcId } from './jsonrpc.js';
import { isObject } from './params.js';
import { restError, type Reply } from './reply.js';
import { resolveRestRoute, segmentsOf, type RestTarget } from './rest.js';
import type { RestDialectName } from './rest-dialect.js';
import { requestedVersion } from './version.js';
import { restErrorV1 } from './v1/errors.js';
import { V1_RPC } from './v1/jsonrpc.js';
import { isV1RestPath, resolveV1RestRoute, type V1RestTarget } from './v1/rest.js';

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
  /** What the headers decided before the body was read (router's `admitHead`), if it was asked. */
  readonly verdict?: HeadVerdict | undefined;
  /** Lower-cased names of the headers the request sent more than once. */
  readonly repeatedHeaders?: readonly string[] | undefined;
}

/**
 * What the headers alone decided, before the body was read: the authenticated caller (not
 * authenticated again), or the refusal answered with the body left unread.
 */
export type HeadVerdict =
  { readonly caller: Caller; readonly refusal?: undefined } | { readonly refusal: A2AError; readonly caller?: undefined };

export interface RouterLimits {
  /** Levels free-form JSON (metadata, data parts) may nest (SERVICE_MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  /** The shapes REST answers in (SERVICE_REST_DIALECT); default `a2a`. */
  restDialect?: RestDialectName;
  /** Characters of a JSON-RPC string id (SERVICE_MAX_RPC_ID_LENGTH); default 256. */
  maxRpcIdLength?: number;
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false; error: A2AError };

/**
 * What a request turned out to be (the facts the observer reads) and all dispatch needs to
 * answer it. One object per request, always of the same shape.
 */
export interface RouteTarget extends RequestFacts {
  /** How it is answered: the refusal found while matching, the card, or a transport's handler. */
  readonly kind: 'refused' | 'card' | 'jsonrpc' | 'rest' | 'v1-rest' | 'failed';
  /** The protocol version it is answered in (the card's `securitySchemes` differ by it). */
  readonly version: ProtocolVersion;
  readonly req: ProtocolRequest;
  /** `refused`: the answer. */
  readonly refusal: Reply | undefined;
  /** The parsed body (`{}` for none); a REST parse error is answered only after authentication. */
  readonly body: ParsedBody;
  /** `rest`: the v0.3 route; undefined when the path is not valid percent-encoding. */
  readonly rest: RestTarget | undefined;
  /** `v1-rest`: the v1.0 route, or none (v1.0's 404/405). */
  readonly v1Rest: V1RestTarget | undefined;
  /** `failed`: what matching threw, rejected by dispatch as any failure of the request is. */
  readonly failure: unknown;
}

const CARD_PATHS = new Set(['/.well-known/agent-card.json', '/.well-known/agent.json']);

/** `application/json` or any `application/*+json`, parameters (charset) ignored. */
const JSON_MEDIA_TYPE = /^\s*application\/(?:[\w.!#$&^-]+\+)?json\s*(?:;|$)/i;

const EMPTY_BODY: ParsedBody = { ok: true, value: {} };

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

/**
 * The discovery card's paths; a base URL written with a trailing slash (`http://host/`) makes
 * clients ask for `//.well-known/agent-card.json`, which is the same card.
 */
const isCardPath = (path: string): boolean =>
  path === '/' || CARD_PATHS.has(path) || (path.startsWith('//') && CARD_PATHS.has(path.replace(/^\/+/, '/')));

/** A path v1.0 has no route for: answered v1.0's 404. */
const NO_V1_ROUTE: V1RestTarget = { route: undefined, operation: 'unknown', taskId: undefined, wrongMethod: false };

/** Every target is built here, so all have one shape. */
const targetOf = (
  kind: RouteTarget['kind'],
  transport: RouteTarget['transport'],
  operation: string,
  taskId: string | undefined,
  version: ProtocolVersion,
  req: ProtocolRequest,
  refusal: Reply | undefined,
  body: ParsedBody,
  rest: RestTarget | undefined,
  v1Rest: V1RestTarget | undefined,
  failure?: unknown,
): RouteTarget => ({ transport, operation, taskId, kind, version, req, refusal, body, rest, v1Rest, failure });

/** A request refused before anything runs. */
const refused = (
  transport: RouteTarget['transport'],
  operation: string,
  taskId: string | undefined,
  version: ProtocolVersion,
  req: ProtocolRequest,
  body: ParsedBody,
  refusal: Reply,
): RouteTarget => targetOf('refused', transport, operation, taskId, version, req, refusal, body, undefined, undefined);

/** An error in the shape of the transport and version the request was for. */
const refusalOf = (err: A2AError, isRpc: boolean, id: RpcId, binding: RpcBinding | undefined, v1Target: V1RestTarget | undefined): Reply =>
  isRpc ? jsonRpcErrorReply(id, err, binding) : v1Target ? restErrorV1(err) : restError(err);

/**
 * The matcher of one server: `rpc` and `v1Rpc` are its JSON-RPC handlers, asked which methods
 * they serve.
 *
 * The version: `A2A-Version` when the request sends one; without it, v1.0 method names and
 * v1.0 REST paths are v1.0 (they cannot be v0.3, and clients such as the conformance kit send
 * no header), everything else v0.3 exactly as before v1.0 was served.
 */
export function createMatcher(
  limits: RouterLimits,
  rpc: JsonRpcHandler,
  v1Rpc: JsonRpcHandler,
): (req: ProtocolRequest, early?: A2AError) => RouteTarget {
  // Matching never throws: the observer names the request from what it returns, at once.
  return function resolve(req, early) {
    try {
      return match(req, early);
    } catch (err) {
      return targetOf('failed', 'rest', 'unknown', undefined, '0.3', req, undefined, EMPTY_BODY, undefined, undefined, err);
    }
  };

  /** `early`: a refusal decided from the headers (401, a repeated credential): the body is not read. */
  function match(req: ProtocolRequest, early: A2AError | undefined): RouteTarget {
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
    const restTarget = segments ? resolveRestRoute(req.method, segments) : undefined;
    const transport = isRpc ? 'jsonrpc' : 'rest';
    const named = v1Target ?? restTarget;
    let operation = named ? named.operation : 'unknown';
    let taskId = named?.taskId;
    const hasBody = req.method === 'POST' || req.method === 'PUT';
    const isA2ABody = hasBody && (isRpc || isV03Rest || v1Target !== undefined);
    const parsed: ParsedBody = hasBody ? parseBody(req.body, limits) : EMPTY_BODY;
    // A v1.0 method name under a version we do not speak is refused in v1.0's shape, as a v1.0 REST path is.
    const byName = asked === undefined || badVersion !== undefined;
    const isV1Rpc = isRpc && (asked === '1.0' || (byName && parsed.ok && v1Rpc.isMethod(parsed.value)));
    const version: ProtocolVersion = isV1Rpc || v1Target ? '1.0' : '0.3';
    const binding = isV1Rpc ? V1_RPC : undefined;
    const rpcHandler = isV1Rpc ? v1Rpc : rpc;
    if (isRpc && parsed.ok) {
      operation = rpcHandler.operationOf(parsed.value);
      taskId = rpcTaskIdOf(parsed.value);
    }
    if (early) {
      // Decided from the headers, before anything the body says. A large body was never read
      // (the request is empty here); a small one still names the operation and the JSON-RPC id.
      const id = isRpc && parsed.ok ? rpcHandler.idOf(parsed.value) : null;
      return refused(transport, operation, taskId, version, req, parsed, refusalOf(early, isRpc, id, binding, v1Target));
    }
    const badType = isA2ABody ? mediaTypeError(req) : undefined;
    if (badType) return refused(transport, operation, taskId, version, req, parsed, refusalOf(badType, isRpc, null, binding, v1Target));

    // The discovery card is how a client learns which version we speak, so it is served whatever
    // `A2A-Version` asks for (A2A 1.0 requires the well-known card to always answer, and the
    // official 1.x SDK sends `A2A-Version: 1.0` there even in its v0.3 compatibility mode).
    // Only its `securitySchemes` differ by version (v1/card.ts). Every other endpoint keeps the
    // spec's check. `GET {card.url}` (our `/`) answers the card too (wire reference §4.1).
    if (req.method === 'GET' && isCardPath(req.path)) {
      return targetOf('card', 'card', 'agent/card', taskId, asked === '1.0' ? '1.0' : '0.3', req, undefined, parsed, undefined, undefined);
    }

    if (badVersion) {
      const id = isRpc && parsed.ok ? rpcHandler.idOf(parsed.value) : null;
      return refused(transport, operation, taskId, version, req, parsed, refusalOf(badVersion, isRpc, id, binding, v1Target));
    }
    if (isRpc) {
      if (!parsed.ok)
        return refused(transport, operation, taskId, version, req, parsed, refusalOf(parsed.error, true, null, binding, undefined));
      return targetOf('jsonrpc', transport, operation, taskId, version, req, undefined, parsed, undefined, undefined);
    }
    if (v1Target) return targetOf('v1-rest', transport, operation, taskId, version, req, undefined, parsed, undefined, v1Target);
    if (isV03Rest) return targetOf('rest', transport, operation, taskId, version, req, undefined, parsed, restTarget, undefined);
    const noRoute = restError(a2aError('methodNotFound', `no route ${req.method} ${shown(req.path)}`));
    return refused(transport, operation, taskId, version, req, parsed, noRoute);
  }
}
