/**
 * A2A v1.0 HTTP+JSON (spec §11, `a2a.proto`'s HTTP bindings): root paths with an optional
 * `/{tenant}` before them, proto-JSON bodies in `application/a2a+json`, `google.rpc.Status`
 * errors. Routes call the one `Operations` as the v0.3 routes do, authorized as the same
 * operations.
 *
 * A tenant names a routing target in front of one agent; this server hosts one agent, so a
 * tenant selects nothing: requests with and without one reach the same tasks, and who may see a
 * task is decided by the caller's credentials alone. A tenant is echoed where v1.0 returns it.
 */
import type { Operation } from '../../auth/types.js';
import { a2aError, shown } from '../../a2a/errors.js';
import type { Logger } from '../../log.js';
import type { Admission } from '../admission.js';
import { promiseOf } from '../../promise-of.js';
import type { TaskFeed } from '../../runtime/task-feed.js';
import { objectOf, toJsonText } from '../json-text.js';
import type { Message, Task } from '../../a2a/schemas.js';
import type { Operations } from '../operations.js';
import { CARD_URL_VARY } from '../card.js';
import { isObject } from '../params.js';
import { toA2AError, type Reply } from '../reply.js';
import { findRoute, queryParams, type Captures, type RestRequest } from '../rest.js';
import { A2A_JSON, restErrorV1 } from './errors.js';
import { V1_RPC_NAMES } from './jsonrpc.js';
import {
  getTaskParamsOf,
  listPushConfigsParamsOf,
  listTasksParamsOf,
  pushConfigIdParamsOf,
  pushConfigOf,
  sendParamsOf,
  taskIdParamsOf,
} from './wire-in.js';
import { v1PushConfig, v1SendResponse, v1StreamResponse, v1Task, v1TaskList } from './wire-out.js';

type Route = (req: RestRequest, ops: Operations, match: Captures, tenant: string | undefined) => Promise<Reply>;

interface RouteEntry {
  method: string;
  pattern: string[];
  op: Operation;
  run: Route;
}

const answer = (status: number, value: unknown): Reply => ({ kind: 'json', status, body: toJsonText(value), contentType: A2A_JSON });
const ok = <T>(value: Promise<T>, as: (v: T) => unknown, status = 200): Promise<Reply> => value.then((v) => answer(status, as(v)));
const stream = async (feed: Promise<TaskFeed>): Promise<Reply> => ({
  kind: 'stream',
  feed: await feed,
  frame: (event) => JSON.stringify(v1StreamResponse(event)),
});
const body = (r: RestRequest): Record<string, unknown> => (isObject(r.body) ? r.body : {});

const subscribe: Route = (r, ops, m) => stream(ops.resubscribe(taskIdParamsOf({ id: m.id }), r.lastEventId, r.caller));

const ROUTES: RouteEntry[] = [
  {
    method: 'POST',
    pattern: ['message:send'],
    op: 'message/send',
    run: (r, ops) =>
      ok(ops.sendMessage(sendParamsOf(r.body), r.caller, r.extensions, '1.0'), (v) => v1SendResponse(objectOf<Task | Message>(v))),
  },
  {
    method: 'POST',
    pattern: ['message:stream'],
    op: 'message/stream',
    run: (r, ops) => stream(ops.streamMessage(sendParamsOf(r.body), r.caller, r.extensions, '1.0')),
  },
  {
    method: 'GET',
    pattern: ['tasks'],
    op: 'tasks/list',
    run: (r, ops) => ok(ops.listTasks(listTasksParamsOf(queryParams(r.query)), r.caller), v1TaskList),
  },
  {
    method: 'GET',
    pattern: ['tasks', '{id}'],
    op: 'tasks/get',
    run: (r, ops, m) => ok(ops.getTask(getTaskParamsOf({ ...queryParams(r.query), id: m.id }), r.caller), v1Task),
  },
  {
    method: 'POST',
    pattern: ['tasks', '{id}:cancel'],
    op: 'tasks/cancel',
    run: (r, ops, m) => ok(ops.cancelTask(taskIdParamsOf({ ...body(r), id: m.id }), r.caller), v1Task),
  },
  { method: 'GET', pattern: ['tasks', '{id}:subscribe'], op: 'tasks/resubscribe', run: subscribe },
  { method: 'POST', pattern: ['tasks', '{id}:subscribe'], op: 'tasks/resubscribe', run: subscribe },
  {
    method: 'POST',
    pattern: ['tasks', '{id}', 'pushNotificationConfigs'],
    op: 'tasks/pushNotificationConfig/set',
    run: (r, ops, m, tenant) => {
      const { taskId, config } = pushConfigOf(r.body, m.id);
      return ok(ops.createPushConfig(taskId, config, r.caller, '1.0'), (c) => v1PushConfig(c, tenant), 201);
    },
  },
  {
    method: 'GET',
    pattern: ['tasks', '{id}', 'pushNotificationConfigs'],
    op: 'tasks/pushNotificationConfig/list',
    run: (r, ops, m, tenant) =>
      ok(ops.listPushConfigs(listPushConfigsParamsOf({ taskId: m.id }), r.caller), (list) => ({
        configs: list.map((c) => v1PushConfig(c, tenant)),
        nextPageToken: '',
      })),
  },
  {
    method: 'GET',
    pattern: ['tasks', '{id}', 'pushNotificationConfigs', '{configId}'],
    op: 'tasks/pushNotificationConfig/get',
    run: (r, ops, m, tenant) =>
      ok(ops.getPushConfig(pushConfigIdParamsOf({ taskId: m.id, id: m.configId }), r.caller), (c) => v1PushConfig(c, tenant)),
  },
  {
    method: 'DELETE',
    pattern: ['tasks', '{id}', 'pushNotificationConfigs', '{configId}'],
    op: 'tasks/pushNotificationConfig/delete',
    run: async (r, ops, m) => {
      await ops.deletePushConfig(pushConfigIdParamsOf({ taskId: m.id, id: m.configId }), r.caller);
      return { kind: 'empty', status: 204 };
    },
  },
  {
    method: 'GET',
    pattern: ['extendedAgentCard'],
    op: 'agent/getAuthenticatedExtendedCard',
    run: (r, ops) =>
      ops
        .extendedCard(r.request, r.location.baseUrl, '1.0')
        .then((card): Reply => ({ ...answer(200, card), headers: { Vary: CARD_URL_VARY } })),
  },
];

/**
 * Where a v1.0 REST request goes: `route` with its captures and tenant, or none. A path is
 * tried as it is, then with its first segment read as a tenant (`/{tenant}/tasks/…`).
 */
export type V1RestTarget =
  | { route: RouteEntry; captures: Captures; tenant: string | undefined; operation: string; taskId: string | undefined }
  | { route: undefined; operation: 'unknown'; taskId: undefined; wrongMethod: boolean };

function resolveIn(method: string, segments: string[], tenant: string | undefined): V1RestTarget {
  const found = findRoute(ROUTES, method, segments);
  if (!found.route) return { route: undefined, operation: 'unknown', taskId: undefined, wrongMethod: found.wrongMethod };
  const { route, captures } = found;
  // Reported by its v1.0 name, as JSON-RPC reports it: metrics and logs tell the versions apart.
  return { route, captures, tenant, operation: V1_RPC_NAMES[route.op], taskId: captures.id || undefined };
}

/** `segments`: the decoded path segments after the leading `/`. */
export function resolveV1RestRoute(method: string, segments: string[]): V1RestTarget {
  const direct = resolveIn(method, segments, undefined);
  if (direct.route || segments.length < 2 || segments[0] === '') return direct;
  const tenanted = resolveIn(method, segments.slice(1), segments[0]);
  if (tenanted.route) return tenanted;
  return direct.wrongMethod ? direct : tenanted;
}

/** Whether a path (its segments) is one of v1.0's REST routes, with or without a tenant. */
export const isV1RestPath = (segments: string[]): boolean => {
  const target = resolveV1RestRoute('', segments);
  return target.route !== undefined || target.wrongMethod;
};

export function createV1RestHandler(ops: Operations, logger: Logger, admission: Admission) {
  return {
    /** The hot path (SendMessage), so `promiseOf` rather than an async frame, as v0.3's REST handler. */
    handle(req: RestRequest, target: V1RestTarget): Promise<Reply> {
      const { path } = req;
      const { route } = target;
      if (!route) {
        const detail = target.wrongMethod ? `${req.method} is not allowed on ${shown(path)}` : `no route ${req.method} ${shown(path)}`;
        return Promise.resolve(restErrorV1(a2aError('methodNotFound', detail)));
      }
      const run = (): Promise<Reply> => route.run(req, ops, target.captures, target.tenant);
      return promiseOf(() => {
        const admitted = admission.admit(route.op, req);
        return admitted ? admitted.then(run) : run();
      }).then(undefined, (err: unknown) => restErrorV1(toA2AError(err, logger, `${req.method} ${path}`)));
    },
  };
}
