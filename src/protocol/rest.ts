/**
 * HTTP+JSON routes under /v1 (spec "Endpoints", wire reference §3). The `:action` suffix is part
 * of the last path segment (`tasks/abc:cancel`); `%3A` is accepted for the colon.
 */
import type { IncomingRequest } from '../agent.js';
import type { Logger } from '../log.js';
import { a2aError, shown } from './errors.js';
import type { Operations } from './operations.js';
import { json, restError, toA2AError, type Reply } from './reply.js';
import { normalizeRestPushBody, normalizeRestSendBody } from './rest-input.js';

export interface RestRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  body: unknown;
  request: IncomingRequest;
  baseUrl: string;
  lastEventId: string | undefined;
}

/** Query strings carry text; these keys are numbers or booleans in the params schemas. */
const NUMBER_KEYS = new Set(['pageSize', 'historyLength']);
const BOOLEAN_KEYS = new Set(['includeArtifacts']);

function queryParams(query: URLSearchParams): Record<string, unknown> {
  // No prototype: a key named `__proto__` is just a (stripped) unknown parameter.
  const out: Record<string, unknown> = Object.create(null);
  for (const [rawKey, value] of query) {
    const key = rawKey.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    if (NUMBER_KEYS.has(key)) out[key] = /^-?\d+$/.test(value) ? Number(value) : value;
    else if (BOOLEAN_KEYS.has(key)) out[key] = value === 'true' ? true : value === 'false' ? false : value;
    else out[key] = value;
  }
  return out;
}

type Route = (req: RestRequest, ops: Operations, match: { id: string; configId: string }) => Promise<Reply>;

const ok = async (value: Promise<unknown>): Promise<Reply> => json(200, await value);

const stream = async (feed: Promise<import('../runtime/task-feed.js').TaskFeed>): Promise<Reply> => ({
  kind: 'stream',
  feed: await feed,
  frame: (event) => JSON.stringify(event),
});

/** Segment-wise routing table: `{id}` and `{configId}` capture; `:verb` suffixes are exact. */
const ROUTES: { method: string; pattern: string[]; run: Route }[] = [
  { method: 'POST', pattern: ['message:send'], run: (r, ops) => ok(ops.sendMessage(normalizeRestSendBody(r.body))) },
  { method: 'POST', pattern: ['message:stream'], run: (r, ops) => stream(ops.streamMessage(normalizeRestSendBody(r.body))) },
  { method: 'GET', pattern: ['tasks'], run: (r, ops) => ok(ops.listTasks(queryParams(r.query))) },
  { method: 'GET', pattern: ['tasks', '{id}'], run: (r, ops, m) => ok(ops.getTask({ ...queryParams(r.query), id: m.id })) },
  { method: 'POST', pattern: ['tasks', '{id}:cancel'], run: (_r, ops, m) => ok(ops.cancelTask({ id: m.id })) },
  { method: 'POST', pattern: ['tasks', '{id}:subscribe'], run: (r, ops, m) => stream(ops.resubscribe({ id: m.id }, r.lastEventId)) },
  // v0.3's proto and reference SDK subscribe with GET (wire reference §6 #12).
  { method: 'GET', pattern: ['tasks', '{id}:subscribe'], run: (r, ops, m) => stream(ops.resubscribe({ id: m.id }, r.lastEventId)) },
  {
    method: 'POST',
    pattern: ['tasks', '{id}', 'pushNotificationConfigs'],
    run: (r, ops, m) => ok(ops.createPushConfig(m.id, normalizeRestPushBody(r.body))),
  },
  { method: 'GET', pattern: ['tasks', '{id}', 'pushNotificationConfigs'], run: (_r, ops, m) => ok(ops.listPushConfigs({ id: m.id })) },
  {
    method: 'GET',
    pattern: ['tasks', '{id}', 'pushNotificationConfigs', '{configId}'],
    run: (_r, ops, m) => ok(ops.getPushConfig({ id: m.id, pushNotificationConfigId: m.configId })),
  },
  {
    method: 'DELETE',
    pattern: ['tasks', '{id}', 'pushNotificationConfigs', '{configId}'],
    run: async (_r, ops, m) => {
      await ops.deletePushConfig({ id: m.id, pushNotificationConfigId: m.configId });
      return { kind: 'empty', status: 204 };
    },
  },
  { method: 'GET', pattern: ['card'], run: (r, ops) => ok(ops.extendedCard(r.request, r.baseUrl)) },
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

function match(pattern: string[], segments: string[]): { id: string; configId: string } | undefined {
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

export function createRestHandler(ops: Operations, logger: Logger) {
  return {
    /** Handles a path under /v1/ (the prefix already removed), or answers 404/405. */
    async handle(req: RestRequest, segments: string[]): Promise<Reply> {
      let methodMismatch = false;
      for (const route of ROUTES) {
        const m = match(route.pattern, segments);
        if (!m) continue;
        if (route.method !== req.method) {
          methodMismatch = true;
          continue;
        }
        try {
          return await route.run(req, ops, m);
        } catch (err) {
          return restError(toA2AError(err, logger, `${req.method} ${req.path}`));
        }
      }
      if (methodMismatch) return restError(a2aError('methodNotFound', `${req.method} is not allowed on ${shown(req.path)}`));
      return restError(a2aError('methodNotFound', `no route ${req.method} ${shown(req.path)}`));
    },
  };
}

/** Splits /v1/... into decoded segments (`%3A` becomes `:`); undefined for a bad encoding. */
export function segmentsOf(pathAfterV1: string): string[] | undefined {
  try {
    return pathAfterV1.split('/').map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}
