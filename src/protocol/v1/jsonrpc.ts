/**
 * A2A v1.0 JSON-RPC (spec §9): PascalCase methods named after `a2a.proto`'s RPCs, params and
 * results in proto-JSON, errors with typed `data`. Each method is authorized as the v0.3
 * operation it is, so one set of rules covers both versions.
 */
import type { Message, Task } from '../../a2a/schemas.js';
import type { Operation } from '../../auth/types.js';
import { objectOf } from '../json-text.js';
import type { RpcBinding, StreamMethod, UnaryMethod } from '../jsonrpc.js';
import type { Operations } from '../operations.js';
import { rpcErrorBody } from './errors.js';
import {
  getTaskParamsOf,
  listPushConfigsParamsOf,
  listTasksParamsOf,
  pushConfigIdParamsOf,
  pushConfigOf,
  sendParamsOf,
  taskIdParamsOf,
  tenantOf,
} from './wire-in.js';
import { v1PushConfig, v1SendResponse, v1StreamResponse, v1Task, v1TaskList } from './wire-out.js';

type UnaryFn = UnaryMethod[1];
type StreamFn = StreamMethod[1];
/** The v1.0 RPC (`a2a.proto`'s name, the JSON-RPC method) of each operation. */
export const V1_RPC_NAMES: Readonly<Record<Operation, string>> = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/list': 'ListTasks',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
};

const named = <F>(operation: Operation, fn: F) => [V1_RPC_NAMES[operation], [operation, fn] as const] as const;

export const V1_RPC: RpcBinding = {
  methods(ops: Operations) {
    const listConfigs: UnaryFn = (p, ctx) =>
      ops.listPushConfigs(listPushConfigsParamsOf(p), ctx.caller).then((configs) => ({
        configs: configs.map((c) => v1PushConfig(c, tenantOf(p))),
        nextPageToken: '',
      }));
    const unary = new Map<string, readonly [Operation, UnaryFn]>([
      named<UnaryFn>('message/send', (p, ctx) =>
        ops.sendMessage(sendParamsOf(p), ctx.caller, ctx.extensions, '1.0').then((r) => v1SendResponse(objectOf<Task | Message>(r))),
      ),
      named<UnaryFn>('tasks/get', (p, ctx) => ops.getTask(getTaskParamsOf(p), ctx.caller).then(v1Task)),
      named<UnaryFn>('tasks/list', (p, ctx) => ops.listTasks(listTasksParamsOf(p), ctx.caller).then(v1TaskList)),
      named<UnaryFn>('tasks/cancel', (p, ctx) => ops.cancelTask(taskIdParamsOf(p), ctx.caller).then(v1Task)),
      named<UnaryFn>('tasks/pushNotificationConfig/set', (p, ctx) => {
        const { taskId, config } = pushConfigOf(p);
        return ops.createPushConfig(taskId, config, ctx.caller, '1.0').then((c) => v1PushConfig(c, tenantOf(p)));
      }),
      named<UnaryFn>('tasks/pushNotificationConfig/get', (p, ctx) =>
        ops.getPushConfig(pushConfigIdParamsOf(p), ctx.caller).then((c) => v1PushConfig(c, tenantOf(p))),
      ),
      named<UnaryFn>('tasks/pushNotificationConfig/list', listConfigs),
      // The singular is how the method list of the v1.0 spec's prose names it.
      ['ListTaskPushNotificationConfig', ['tasks/pushNotificationConfig/list', listConfigs]],
      named<UnaryFn>('tasks/pushNotificationConfig/delete', (p, ctx) =>
        ops.deletePushConfig(pushConfigIdParamsOf(p), ctx.caller).then(() => ({})),
      ),
      named<UnaryFn>('agent/getAuthenticatedExtendedCard', (_p, ctx) => ops.extendedCard(ctx.request, ctx.location.baseUrl, '1.0')),
    ]);
    const streaming = new Map<string, readonly [Operation, StreamFn]>([
      named<StreamFn>('message/stream', (p, ctx) => ops.streamMessage(sendParamsOf(p), ctx.caller, ctx.extensions, '1.0')),
      named<StreamFn>('tasks/resubscribe', (p, ctx) => ops.resubscribe(taskIdParamsOf(p), ctx.lastEventId, ctx.caller)),
    ]);
    return { unary, streaming };
  },
  errorBody: rpcErrorBody,
  eventJson: (event) => JSON.stringify(v1StreamResponse(event)),
};
