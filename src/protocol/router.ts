/**
 * Every request, transport-neutral, in two steps: `resolve` matches it (route-target.ts: the
 * version check, then the discovery card, JSON-RPC at `POST /`, or the REST routes), and
 * `dispatch` answers what it matched: admission (admission.ts), then the transport's handler.
 * An observer names the request from the target between the two (observe/requests.ts).
 */
import type { IncomingRequest } from '../agent.js';
import type { AuthGate } from '../auth/gate.js';
import type { Caller } from '../auth/types.js';
import type { Logger } from '../log.js';
import { a2aError, isA2AError, type A2AError } from '../a2a/errors.js';
import { promiseOf } from '../promise-of.js';
import { createAdmission } from './admission.js';
import { createJsonRpcHandler, jsonRpcErrorReply } from './jsonrpc.js';
import type { CardEntry, Operations } from './operations.js';
import { CARD_URL_VARY } from './card.js';
import { restError, type Reply } from './reply.js';
import { createRestHandler, PUBLIC_REST_PATHS, type RestRequest } from './rest.js';
import { createMatcher, type HeadVerdict, type ProtocolRequest, type RouteTarget, type RouterLimits } from './route-target.js';
import { V1_RPC } from './v1/jsonrpc.js';
import { restErrorV1 } from './v1/errors.js';
import { createV1RestHandler } from './v1/rest.js';

export { earlyErrorReply, isJsonRpcRequest } from './route-target.js';
export type { HeadVerdict, ProtocolRequest, RouteTarget, RouterLimits } from './route-target.js';

/** A request before its body is read: what `admitHead` decides from. */
export interface RequestHead extends IncomingRequest {
  /** Lower-cased names of the headers sent more than once. */
  repeatedHeaders?: readonly string[] | undefined;
}

/** One server's routes: match a request, answer what it matched, or both at once. */
export interface Router {
  /**
   * Before a body is read: with auth on, the caller authenticated from the headers, or the
   * refusal (401, 503, a repeated credential header) to answer without reading the body.
   * Undefined when the body is read unjudged (auth off, a public path). Synchronous when the
   * authenticator is: no promise on the hot path.
   */
  admitHead(head: RequestHead): HeadVerdict | Promise<HeadVerdict> | undefined;
  /** What the request is and what answering it needs; never throws, runs nothing. */
  resolve(req: ProtocolRequest): RouteTarget;
  /** Answers a resolved request; a failure is a rejected promise, never a throw. */
  dispatch(target: RouteTarget): Promise<Reply>;
  /** `dispatch(resolve(req))`, for a caller that observes nothing. */
  route(req: ProtocolRequest): Promise<Reply>;
}

export function createRouter(ops: Operations, logger: Logger, limits: RouterLimits = { maxJsonDepth: 64 }, gate?: AuthGate): Router {
  const admission = createAdmission(ops, logger, gate);
  const rpcLimits = { maxIdLength: limits.maxRpcIdLength ?? 256 };
  const rpc = createJsonRpcHandler(ops, logger, admission, undefined, rpcLimits);
  const v1Rpc = createJsonRpcHandler(ops, logger, admission, V1_RPC, rpcLimits);
  const rest = createRestHandler(ops, logger, admission, limits.restDialect);
  const v1Rest = createV1RestHandler(ops, logger, admission);
  const match = createMatcher(limits, rpc, v1Rpc);
  /** A repeated credential header is refused whatever the route (auth on): which one would count? */
  const resolve = (req: ProtocolRequest): RouteTarget =>
    match(req, req.verdict?.refusal ?? (gate && req.repeatedHeaders ? gate.repeatedCredential(req.repeatedHeaders) : undefined));

  /** The caller the headers already proved (admitHead), else authenticated now. */
  const withCaller = (
    req: ProtocolRequest,
    incoming: IncomingRequest,
    refuse: (err: A2AError) => Reply,
    then: (caller: Caller | undefined) => Reply | Promise<Reply>,
  ): Reply | Promise<Reply> => {
    const known = req.verdict?.caller;
    return known ? then(known) : admission.withCaller(incoming, refuse, then);
  };

  const verdictOf = (answer: Caller | A2AError): HeadVerdict => (isA2AError(answer) ? { refusal: answer } : { caller: answer });

  const admitHead = (head: RequestHead): HeadVerdict | Promise<HeadVerdict> | undefined => {
    if (!gate) return undefined;
    const repeated = head.repeatedHeaders && gate.repeatedCredential(head.repeatedHeaders);
    if (repeated) return { refusal: repeated };
    // The health probes stay public with auth on; every other route with a body needs the caller.
    if (PUBLIC_REST_PATHS.has(head.path)) return undefined;
    const answer = admission.authenticate({ method: head.method, path: head.path, headers: head.headers });
    if (answer === undefined) return undefined;
    return answer instanceof Promise ? answer.then(verdictOf) : verdictOf(answer);
  };

  const rpcCall = (target: RouteTarget, incoming: IncomingRequest, body: unknown, caller: Caller | undefined): Promise<Reply> => {
    const { req } = target;
    const handler = target.version === '1.0' ? v1Rpc : rpc;
    const extensions = admission.activate(req.headers);
    const reply = handler.handle(body, { request: incoming, caller, location: req, lastEventId: req.headers['last-event-id'], extensions });
    return admission.named(reply, extensions, req.headers);
  };

  /** A REST request as both versions' route tables take it. */
  const restRequestOf = (req: ProtocolRequest, incoming: IncomingRequest, body: unknown, caller: Caller | undefined): RestRequest => ({
    method: req.method,
    path: req.path,
    query: req.query,
    body,
    request: incoming,
    caller,
    location: req,
    lastEventId: req.headers['last-event-id'],
    extensions: admission.activate(req.headers),
  });

  const restCall = (target: RouteTarget, incoming: IncomingRequest, caller: Caller | undefined): Promise<Reply> | Reply => {
    const { req, body } = target;
    if (!body.ok) return restError(body.error);
    if (!target.rest) return restError(a2aError('invalidRequest', 'the path is not valid percent-encoding'));
    const request = restRequestOf(req, incoming, body.value, caller);
    return admission.named(rest.handle(request, target.rest), request.extensions, req.headers);
  };

  const v1RestCall = (target: RouteTarget, incoming: IncomingRequest, caller: Caller | undefined): Promise<Reply> | Reply => {
    const { req, body, v1Rest: route } = target;
    if (!body.ok) return restErrorV1(body.error);
    if (!route) throw new Error('a v1.0 REST target without its route');
    const request = restRequestOf(req, incoming, body.value, caller);
    return admission.named(v1Rest.handle(request, route), request.extensions, req.headers);
  };

  /**
   * Answers a target: at once when nothing waits (a refusal, a cached card), else the handler's
   * promise, with what waits (a signed card, an asynchronous auth gate) chained before it.
   * Authentication comes first and answers in the transport's shape; REST's own refusals (parse
   * error, 404) come after it.
   */
  function dispatchNow(target: RouteTarget): Reply | Promise<Reply> {
    const { req } = target;
    switch (target.kind) {
      case 'failed':
        throw target.failure;
      case 'refused':
        if (!target.refusal) throw new Error('a refused target without its refusal');
        return target.refusal;
      case 'card': {
        // A cached card answers at once; one that has to be signed first, after the signing.
        const card = ops.card(req.baseUrl, target.version);
        return card instanceof Promise ? card.then(cardReply) : cardReply(card);
      }
      case 'jsonrpc': {
        const body = target.body.ok ? target.body.value : undefined;
        const incoming: IncomingRequest = { method: req.method, path: req.path, headers: req.headers };
        if (!gate) return rpcCall(target, incoming, body, undefined);
        const binding = target.version === '1.0' ? V1_RPC : undefined;
        const idOf = target.version === '1.0' ? v1Rpc.idOf : rpc.idOf;
        return withCaller(
          req,
          incoming,
          (err) => jsonRpcErrorReply(idOf(body), err, binding),
          (caller) => rpcCall(target, incoming, body, caller),
        );
      }
      case 'v1-rest': {
        const incoming: IncomingRequest = { method: req.method, path: req.path, headers: req.headers };
        if (!gate) return v1RestCall(target, incoming, undefined);
        return withCaller(req, incoming, restErrorV1, (caller) => v1RestCall(target, incoming, caller));
      }
      case 'rest': {
        const incoming: IncomingRequest = { method: req.method, path: req.path, headers: req.headers };
        // The health probes stay public with auth on (load balancers probe them).
        if (!gate || PUBLIC_REST_PATHS.has(req.path)) return restCall(target, incoming, undefined);
        return withCaller(req, incoming, restError, (caller) => restCall(target, incoming, caller));
      }
    }
  }

  /** The hot path, so `promiseOf` rather than an async frame: no promise of its own per request. */
  const dispatch = (target: RouteTarget): Promise<Reply> => promiseOf(() => dispatchNow(target));

  return { admitHead, resolve, dispatch, route: (req) => dispatch(resolve(req)) };
}

/** The card's reply: it differs by `A2A-Version` and by the headers its URL comes from, which caches must key on. */
const cardReply = (card: CardEntry): Reply => ({ kind: 'json', status: 200, body: card.json, headers: CARD_VARY });
const CARD_VARY: Readonly<Record<string, string>> = { Vary: `A2A-Version, ${CARD_URL_VARY}` };
