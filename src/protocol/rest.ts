/**
 * HTTP+JSON routes under /v1 (spec "Endpoints", wire reference §3). The `:action` suffix is part
 * of the last path segment (`tasks/abc:cancel`); `%3A` is accepted for the colon.
 */
import type { IncomingRequest } from '../agent.js';
import type { Caller, Operation } from '../auth/types.js';
import type { Logger } from '../log.js';
import type { Admission } from './admission.js';
import { promiseOf } from '../promise-of.js';
import { a2aError, shown } from '../a2a/errors.js';
import type { Operations } from './operations.js';
import type { TaskFeed } from '../runtime/task-feed.js';
import { json, restError, toA2AError, type Reply } from './reply.js';
import { CARD_URL_VARY } from './card.js';
import { REST_DIALECTS, type RestDialect, type RestDialectName } from './rest-dialect.js';
import { camel, normalizeRestPushBody, normalizeRestSendBody } from './rest-input.js';

export interface RestRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** The raw query string (without `?`): parsed only by the routes that read it. */
  query: string;
  body: unknown;
  request: IncomingRequest;
  /** The authenticated caller (auth on), else undefined. */
  caller: Caller | undefined;
  /** Where the request was served: its base URL is read (and worked out) only for the extended card. */
  location: { readonly baseUrl: string };
  lastEventId: string | undefined;
  /** The extensions the request activated (X-A2A-Extensions). */
  extensions: readonly string[];
}

/** Query strings carry text; these keys are numbers or booleans in the params schemas. */
const NUMBER_KEYS = new Set(['pageSize', 'historyLength']);
const BOOLEAN_KEYS = new Set(['includeArtifacts']);

export function queryParams(query: string): Record<string, unknown> {
  // No prototype: a key named `__proto__` is just a (stripped) unknown parameter.
  const out: Record<string, unknown> = Object.create(null);
  for (const [rawKey, value] of new URLSearchParams(query)) {
    const key = camel(rawKey);
    if (NUMBER_KEYS.has(key)) out[key] = /^-?\d+$/.test(value) ? Number(value) : value;
    else if (BOOLEAN_KEYS.has(key)) out[key] = value === 'true' ? true : value === 'false' ? false : value;
    else out[key] = value;
  }
  return out;
}

/** What a route's `{id}` and `{configId}` captured. */
export interface Captures {
  id: string;
  configId: string;
}

type Route = (req: RestRequest, ops: Operations, match: Captures, shape: RestDialect) => Promise<Reply>;

interface RouteEntry {
  method: string;
  pattern: string[];
  op?: Operation;
  run: Route;
}

/** 200 with the value in the dialect's shape (`as` is the dialect's serializer for it). */
const ok = <T>(value: Promise<T>, as: (v: T) => unknown): Promise<Reply> => value.then((v) => json(200, as(v)));

const stream = async (feed: Promise<TaskFeed>, shape: RestDialect): Promise<Reply> => ({
  kind: 'stream',
  feed: await feed,
  frame: shape.frame,
});

/** A send body as A2A JSON, with the dialect's defaults. */
const sendParams = (r: RestRequest, shape: RestDialect): unknown => shape.sendDefaults(normalizeRestSendBody(r.body));

/**
 * Segment-wise routing table: `{id}` and `{configId}` capture; `:verb` suffixes are exact.
 * `op` names the operation for authorization; routes without one (health) are public.
 */
const ROUTES: RouteEntry[] = [
  {
    method: 'POST',
    pattern: ['message:send'],
    op: 'message/send',
    run: (r, ops, _m, shape) => ok(ops.sendMessage(sendParams(r, shape), r.caller, r.extensions), shape.sendResult),
  },
  {
    method: 'POST',
    pattern: ['message:stream'],
    op: 'message/stream',
    run: (r, ops, _m, shape) => stream(ops.streamMessage(sendParams(r, shape), r.caller, r.extensions), shape),
  },
  {
    method: 'GET',
    pattern: ['tasks'],
    op: 'tasks/list',
    run: (r, ops, _m, shape) => ok(ops.listTasks(queryParams(r.query), r.caller), shape.tasks),
  },
  {
    method: 'GET',
    pattern: ['tasks', '{id}'],
    op: 'tasks/get',
    run: (r, ops, m, shape) => ok(ops.getTask({ ...queryParams(r.query), id: m.id }, r.caller), shape.task),
  },
  {
    method: 'POST',
    pattern: ['tasks', '{id}:cancel'],
    op: 'tasks/cancel',
    run: (r, ops, m, shape) => ok(ops.cancelTask({ id: m.id }, r.caller), shape.task),
  },
  {
    method: 'POST',
    pattern: ['tasks', '{id}:subscribe'],
    op: 'tasks/resubscribe',
    run: (r, ops, m, shape) => stream(ops.resubscribe({ id: m.id }, r.lastEventId, r.caller), shape),
  },
  // v0.3's proto and reference SDK subscribe with GET (wire reference §6 #12).
  {
    method: 'GET',
    pattern: ['tasks', '{id}:subscribe'],
    op: 'tasks/resubscribe',
    run: (r, ops, m, shape) => stream(ops.resubscribe({ id: m.id }, r.lastEventId, r.caller), shape),
  },
  {
    method: 'POST',
    pattern: ['tasks', '{id}', 'pushNotificationConfigs'],
    op: 'tasks/pushNotificationConfig/set',
    run: (r, ops, m, shape) => ok(ops.createPushConfig(m.id, normalizeRestPushBody(r.body), r.caller), shape.pushConfig),
  },
  {
    method: 'GET',
    pattern: ['tasks', '{id}', 'pushNotificationConfigs'],
    op: 'tasks/pushNotificationConfig/list',
    run: (r, ops, m, shape) => ok(ops.listPushConfigs({ id: m.id }, r.caller), shape.pushConfigs),
  },
  {
    method: 'GET',
    pattern: ['tasks', '{id}', 'pushNotificationConfigs', '{configId}'],
    op: 'tasks/pushNotificationConfig/get',
    run: (r, ops, m, shape) => ok(ops.getPushConfig({ id: m.id, pushNotificationConfigId: m.configId }, r.caller), shape.pushConfig),
  },
  {
    method: 'DELETE',
    pattern: ['tasks', '{id}', 'pushNotificationConfigs', '{configId}'],
    op: 'tasks/pushNotificationConfig/delete',
    run: async (r, ops, m) => {
      await ops.deletePushConfig({ id: m.id, pushNotificationConfigId: m.configId }, r.caller);
      return { kind: 'empty', status: 204 };
    },
  },
  {
    method: 'GET',
    pattern: ['card'],
    op: 'agent/getAuthenticatedExtendedCard',
    run: (r, ops, _m, shape) =>
      ops.extendedCard(r.request, r.location.baseUrl).then((card) => json(200, shape.card(card), { Vary: CARD_URL_VARY })),
  },
  { method: 'GET', pattern: ['health'], run: async (_r, ops) => json(200, ops.health()) },
  {
    method: 'GET',
    pattern: ['health', 'ready'],
    run: async (_r, ops) => {
      const r = await ops.readiness();
      return json(r.ready ? 200 : 503, r.body);
    },
  },
];

function match(pattern: string[], segments: string[]): Captures | undefined {
  if (pattern.length !== segments.length) return undefined;
  const found = { id: '', configId: '' };
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const s = segments[i] as string;
    if (p === '{configId}') {
      if (!s) return undefined;
      found.configId = s;
    } else if (p.startsWith('{id}')) {
      const suffix = p.slice('{id}'.length);
      if (!s.endsWith(suffix) || s.length === suffix.length) return undefined;
      const id = s.slice(0, s.length - suffix.length);
      // Without a suffix the segment must be a plain id (so `abc:cancel` never reads as an id).
      if (id.includes(':')) return undefined;
      found.id = id;
    } else if (p !== s) return undefined;
  }
  return found;
}

/**
 * Where a REST request goes, found once per request: the router names the operation (and task)
 * from it for the observer, and the handler runs its route. `operation` is the route's JSON-RPC
 * method name (`health`, `health/ready` for the probes), `unknown` when no route matches;
 * `wrongMethod`: some route has the path, none the method (405 rather than 404).
 */
export type RestTarget =
  | { route: RouteEntry; captures: Captures; operation: string; taskId: string | undefined }
  | { route: undefined; operation: 'unknown'; taskId: undefined; wrongMethod: boolean };

/**
 * The first of `routes` whose pattern and method both match (GET and POST share the subscribe
 * path), or none, saying whether some route has the path with another method (405, not 404).
 * Both versions' route tables are searched with it.
 */
export function findRoute<R extends { method: string; pattern: string[] }>(
  routes: readonly R[],
  method: string,
  segments: string[],
): { route: R; captures: Captures } | { route: undefined; wrongMethod: boolean } {
  let wrongMethod = false;
  for (const route of routes) {
    const captures = match(route.pattern, segments);
    if (!captures) continue;
    if (route.method !== method) {
      wrongMethod = true;
      continue;
    }
    return { route, captures };
  }
  return { route: undefined, wrongMethod };
}

export function resolveRestRoute(method: string, segments: string[]): RestTarget {
  const found = findRoute(ROUTES, method, segments);
  if (!found.route) return { route: undefined, operation: 'unknown', taskId: undefined, wrongMethod: found.wrongMethod };
  const { route, captures } = found;
  return { route, captures, operation: route.op ?? segments.join('/'), taskId: captures.id || undefined };
}

/** Paths under /v1 that stay public with auth on (load balancers probe them). */
export const PUBLIC_REST_PATHS: ReadonlySet<string> = new Set(['/v1/health', '/v1/health/ready']);

export function createRestHandler(ops: Operations, logger: Logger, admission: Admission, dialect: RestDialectName = 'a2a') {
  const shape = REST_DIALECTS[dialect];
  return {
    /**
     * Handles a path under /v1/ where `resolveRestRoute` sent it, or answers 404/405. The hot path
     * (message:send), so `promiseOf` rather than an async frame: the route's own promise carries
     * the answer when there is no authorization to wait for.
     */
    handle(req: RestRequest, target: RestTarget): Promise<Reply> {
      const { route } = target;
      if (!route) {
        if (target.wrongMethod)
          return Promise.resolve(restError(a2aError('methodNotFound', `${req.method} is not allowed on ${shown(req.path)}`)));
        return Promise.resolve(restError(a2aError('methodNotFound', `no route ${req.method} ${shown(req.path)}`)));
      }
      const { op } = route;
      const run = (): Promise<Reply> => route.run(req, ops, target.captures, shape);
      return promiseOf(() => {
        // Routes without an operation (the health probes) are public and gate nothing.
        const admitted = op ? admission.admit(op, req) : undefined;
        return admitted ? admitted.then(run) : run();
      }).then(undefined, (err: unknown) => restError(toA2AError(err, logger, `${req.method} ${req.path}`)));
    },
  };
}

/** Splits /v1/... into decoded segments (`%3A` becomes `:`); undefined for a bad encoding. */
export function segmentsOf(pathAfterV1: string): string[] | undefined {
  const segments = splitSlashes(pathAfterV1);
  // Nothing to decode without a `%` (every path the bench sends): no decodeURIComponent calls.
  if (!pathAfterV1.includes('%')) return segments;
  try {
    return segments.map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

/**
 * `path.split('/')`, by hand: every REST request splits its path, and for the short paths A2A
 * uses this loop is cheaper than V8's generic split (docs/benchmark.md, "Why the protocol layer
 * is shaped as it is").
 */
function splitSlashes(path: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', from)) {
    out.push(path.slice(from, at));
    from = at + 1;
  }
  out.push(path.slice(from));
  return out;
}
