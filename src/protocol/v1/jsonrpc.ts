/**
 * A2A v1.0 JSON-RPC (spec §9): PascalCase methods named after `a2a.proto`'s RPCs, params and
 * results in proto-JSON, errors with typed `data`. Each method is authorized as the v0.3
 * operation it is, so one set of rules covers both versions.
 */
import type { Message, Task } from '../../a2a/schemas.js';
import type { Operation } from '../../auth/types.js';
import { JsonText } from '../json-text.js';
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

/** A finished task may come as its stored JSON text; v1.0 reshapes it, so it needs the object. */
export const sendResultValue = (r: Task | Message | JsonText<Task>): Task | Message =>
  r instanceof JsonText ? (r.value ?? (JSON.parse(r.text) as Task)) : r;

type UnaryFn = UnaryMethod[1];
type StreamFn = StreamMethod[1];
const named = <F>(name: string, operation: Operation, fn: F) => [name, [operation, fn] as const] as const;

export const V1_RPC: RpcBinding = {
  methods(ops: Operations) {
    const listConfigs: UnaryFn = (p, ctx) =>
      ops.listPushConfigs(listPushConfigsParamsOf(p), ctx.caller).then((configs) => ({
        configs: configs.map((c) => v1PushConfig(c, tenantOf(p))),
        nextPageToken: '',
      }));
    const unary = new Map<string, readonly [Operation, UnaryFn]>([
      named<UnaryFn>('SendMessage', 'message/send', (p, ctx) =>
        ops.sendMessage(sendParamsOf(p), ctx.caller, ctx.extensions, '1.0').then((r) => v1SendResponse(sendResultValue(r))),
      ),
      named<UnaryFn>('GetTask', 'tasks/get', (p, ctx) => ops.getTask(getTaskParamsOf(p), ctx.caller).then(v1Task)),
      named<UnaryFn>('ListTasks', 'tasks/list', (p, ctx) => ops.listTasks(listTasksParamsOf(p), ctx.caller).then(v1TaskList)),
      named<UnaryFn>('CancelTask', 'tasks/cancel', (p, ctx) => ops.cancelTask(taskIdParamsOf(p), ctx.caller).then(v1Task)),
      named<UnaryFn>('CreateTaskPushNotificationConfig', 'tasks/pushNotificationConfig/set', (p, ctx) => {
        const { taskId, config } = pushConfigOf(p);
        return ops.createPushConfig(taskId, config, ctx.caller, '1.0').then((c) => v1PushConfig(c, tenantOf(p)));
      }),
      named<UnaryFn>('GetTaskPushNotificationConfig', 'tasks/pushNotificationConfig/get', (p, ctx) =>
        ops.getPushConfig(pushConfigIdParamsOf(p), ctx.caller).then((c) => v1PushConfig(c, tenantOf(p))),
      ),
      named<UnaryFn>('ListTaskPushNotificationConfigs', 'tasks/pushNotificationConfig/list', listConfigs),
      // The singular is how the method list of the v1.0 spec's prose names it.
      named<UnaryFn>('ListTaskPushNotificationConfig', 'tasks/pushNotificationConfig/list', listConfigs),
      named<UnaryFn>('DeleteTaskPushNotificationConfig', 'tasks/pushNotificationConfig/delete', (p, ctx) =>
        ops.deletePushConfig(pushConfigIdParamsOf(p), ctx.caller).then(() => ({})),
      ),
      named<UnaryFn>('GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard', (_p, ctx) =>
        ops.extendedCard(ctx.request, ctx.location.baseUrl, '1.0'),
      ),
    ]);
    const streaming = new Map<string, readonly [Operation, StreamFn]>([
      named<StreamFn>('SendStreamingMessage', 'message/stream', (p, ctx) =>
        ops.streamMessage(sendParamsOf(p), ctx.caller, ctx.extensions, '1.0'),
      ),
      named<StreamFn>('SubscribeToTask', 'tasks/resubscribe', (p, ctx) => ops.resubscribe(taskIdParamsOf(p), ctx.lastEventId, ctx.caller)),
    ]);
    return { unary, streaming };
  },
  errorBody: rpcErrorBody,
  eventJson: (event) => JSON.stringify(v1StreamResponse(event)),
};
