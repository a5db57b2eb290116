/**
 * A2A v0.3 over gRPC (`a2a.v1.A2AService` of the v0.3 `a2a.proto`): each RPC's request, as the
 * proto-JSON the gRPC layer decodes it to, turned into a call on the one `Operations`, and the
 * result as proto-JSON for the gRPC layer to encode. Resources travel as names (`tasks/{id}`,
 * `tasks/{id}/pushNotificationConfigs/{cid}`), as the proto's resource-oriented RPCs say.
 *
 * Proto3 has no presence for scalars: a `blocking` left out is false (as in the `proto` REST
 * dialect), and a `history_length` of 0 is "not set", i.e. the full history.
 */
import { a2aError, isA2AError, shown } from '../a2a/errors.js';
import type { Operation } from '../auth/types.js';
import type { Message, Task } from '../a2a/schemas.js';
import type { GrpcBinding } from './grpc-binding.js';
import { objectOf } from './json-text.js';
import type { RpcContext, StreamMethod, UnaryMethod } from './jsonrpc.js';
import type { Operations } from './operations.js';
import { isObject } from './params.js';
import { REST_DIALECTS } from './rest-dialect.js';
import { normalizeRestPushBody, normalizeRestSendBody } from './rest-input.js';
import { protoCard, protoPushConfig, protoPushConfigList, protoSendResponse, protoStreamResponse, protoTask } from './rest-proto.js';
import type { ProtoStreamResponse } from './proto-schemas.js';
import type { ServedCard } from './v1/card.js';

type UnaryFn = UnaryMethod[1];
type StreamFn = StreamMethod[1];

const TASK_NAME = /^tasks\/([^/]+)$/;
const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/;

const field = (raw: unknown, key: string): string => {
  const value = isObject(raw) ? raw[key] : undefined;
  return typeof value === 'string' ? value : '';
};

/** The task id of a `tasks/{id}` name. */
function taskOf(raw: unknown, key: 'name' | 'parent'): string {
  const match = TASK_NAME.exec(field(raw, key));
  if (!match) throw a2aError('invalidParams', `${key}: expected "tasks/{id}", got ${shown(field(raw, key))}`);
  return match[1] as string;
}

/** `tasks/{id}/pushNotificationConfigs/{cid}` as our get/delete params. */
function configOf(raw: unknown): { id: string; pushNotificationConfigId: string } {
  const match = CONFIG_NAME.exec(field(raw, 'name'));
  if (!match)
    throw a2aError('invalidParams', `name: expected "tasks/{id}/pushNotificationConfigs/{configId}", got ${shown(field(raw, 'name'))}`);
  return { id: match[1] as string, pushNotificationConfigId: match[2] as string };
}

/** A proto3 config leaves an unset id as "": the server then assigns one. */
function pushConfigOf(raw: unknown): unknown {
  const config = normalizeRestPushBody(raw);
  if (isObject(config) && config.id === '') {
    const { id: _id, ...rest } = config;
    return rest;
  }
  return config;
}

/** The RPC name of each operation in the v0.3 service, where it has one (v0.3 has no ListTasks). */
export const V03_GRPC_NAMES: Readonly<Partial<Record<Operation, string>>> = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'TaskSubscription',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetAgentCard',
};

const named = <F>(operation: Operation, fn: F) => [V03_GRPC_NAMES[operation] as string, [operation, fn] as const] as const;

const sendParams = (p: unknown): unknown => REST_DIALECTS.proto.sendDefaults(normalizeRestSendBody(p));

/**
 * `GetAgentCard` is v0.3's only card RPC: the authenticated extended card where the agent has
 * one, else the public card.
 */
async function agentCard(ops: Operations, ctx: RpcContext): Promise<unknown> {
  try {
    return protoCard(await ops.extendedCard(ctx.request, ctx.location.baseUrl));
  } catch (err) {
    if (!isA2AError(err) || err.entry.id !== 'extendedCardNotConfigured') throw err;
    // The entry asked for at v0.3 holds v0.3's shapes (the cache does not carry the version in its type).
    return protoCard((await ops.card(ctx.location.baseUrl, '0.3')).card as ServedCard<'0.3'>);
  }
}

export function v03GrpcBinding(ops: Operations): GrpcBinding {
  const unary = new Map<string, UnaryMethod>([
    named<UnaryFn>('message/send', (p, ctx) =>
      ops.sendMessage(sendParams(p), ctx.caller, ctx.extensions).then((r) => protoSendResponse(objectOf<Task | Message>(r))),
    ),
    named<UnaryFn>('tasks/get', (p, ctx) => {
      const historyLength = isObject(p) && typeof p.historyLength === 'number' && p.historyLength !== 0 ? p.historyLength : undefined;
      return ops.getTask({ id: taskOf(p, 'name'), ...(historyLength !== undefined ? { historyLength } : {}) }, ctx.caller).then(protoTask);
    }),
    named<UnaryFn>('tasks/cancel', (p, ctx) => ops.cancelTask({ id: taskOf(p, 'name') }, ctx.caller).then(protoTask)),
    named<UnaryFn>('tasks/pushNotificationConfig/set', (p, ctx) => {
      const taskId = taskOf(p, 'parent');
      return ops.createPushConfig(taskId, pushConfigOf(p), ctx.caller).then(protoPushConfig);
    }),
    named<UnaryFn>('tasks/pushNotificationConfig/get', (p, ctx) => ops.getPushConfig(configOf(p), ctx.caller).then(protoPushConfig)),
    named<UnaryFn>('tasks/pushNotificationConfig/list', (p, ctx) =>
      ops.listPushConfigs({ id: taskOf(p, 'parent') }, ctx.caller).then(protoPushConfigList),
    ),
    named<UnaryFn>('tasks/pushNotificationConfig/delete', (p, ctx) => ops.deletePushConfig(configOf(p), ctx.caller).then(() => ({}))),
    named<UnaryFn>('agent/getAuthenticatedExtendedCard', (_p, ctx) => agentCard(ops, ctx)),
  ]);
  const streaming = new Map<string, StreamMethod>([
    named<StreamFn>('message/stream', (p, ctx) => ops.streamMessage(sendParams(p), ctx.caller, ctx.extensions)),
    named<StreamFn>('tasks/resubscribe', (p, ctx) => ops.resubscribe({ id: taskOf(p, 'name') }, ctx.lastEventId, ctx.caller)),
  ]);
  return { unary, streaming, event: (e): ProtoStreamResponse => protoStreamResponse(e) };
}

/** The task a v0.3 request names (for logs and spans), if any. */
export function v03TaskIdOf(raw: unknown): string | undefined {
  const name = field(raw, 'name') || field(raw, 'parent');
  return /^tasks\/([^/]+)/.exec(name)?.[1];
}
