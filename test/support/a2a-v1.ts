/**
 * A raw A2A v1.0 client over either transport (PascalCase JSON-RPC methods, root REST paths,
 * proto-JSON bodies), so one v1.0 test table covers JSON-RPC and HTTP+JSON as test/support/a2a.ts
 * does for v0.3. Answers are left in their wire shape: v1.0's errors differ by transport (a
 * JSON-RPC `error` with `data`, a REST `google.rpc.Status` under `error`), and `errorInfoOf`
 * reads the ErrorInfo of either.
 */
import { randomUUID } from 'node:crypto';
import { restCall, rpcCall, type Json, type Outcome, type TransportName } from './a2a.js';

/** The eleven JSON-RPC methods of A2A v1.0 (spec §9.4, `a2a.proto`'s RPCs). */
export const V1_RPC_METHODS: readonly string[] = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
];

export const V1_HEADERS: Readonly<Record<string, string>> = { 'A2A-Version': '1.0' };
export const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
export const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

/** A v1.0 user message with one text part. */
export function v1UserMessage(text: string, extra: Record<string, unknown> = {}): Json {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

export interface V1Client {
  readonly transport: TransportName;
  send(request: Json): Promise<Outcome>;
  get(id: string, historyLength?: number): Promise<Outcome>;
  list(params?: Record<string, string | number | boolean>): Promise<Outcome>;
  cancel(id: string): Promise<Outcome>;
  createPush(taskId: string, config: Json): Promise<Outcome>;
  getPush(taskId: string, id: string): Promise<Outcome>;
  listPush(taskId: string): Promise<Outcome>;
  deletePush(taskId: string, id: string): Promise<Outcome>;
}

/** The typed details of an error answer, wherever its transport puts them. */
export const detailsOf = (o: Outcome): Json[] => (o.error?.data ?? (o.error as Json)?.error?.details ?? []) as Json[];
export const errorInfoOf = (o: Outcome): Json => detailsOf(o).find((d) => d['@type'] === ERROR_INFO);

/** `headers` go on every call (`A2A-Version: 1.0` unless they say otherwise; credentials). */
export function v1Client(baseUrl: string, transport: TransportName, headers: Record<string, string> = { ...V1_HEADERS }): V1Client {
  if (transport === 'jsonrpc') {
    const call = (method: string, params: unknown) => rpcCall(baseUrl, method, params, headers);
    return {
      transport,
      send: (request) => call('SendMessage', request),
      get: (id, historyLength) => call('GetTask', { id, ...(historyLength === undefined ? {} : { historyLength }) }),
      list: (params = {}) => call('ListTasks', params),
      cancel: (id) => call('CancelTask', { id }),
      createPush: (taskId, config) => call('CreateTaskPushNotificationConfig', { taskId, ...config }),
      getPush: (taskId, id) => call('GetTaskPushNotificationConfig', { taskId, id }),
      listPush: (taskId) => call('ListTaskPushNotificationConfigs', { taskId }),
      deletePush: (taskId, id) => call('DeleteTaskPushNotificationConfig', { taskId, id }),
    };
  }
  const enc = encodeURIComponent;
  const call = (method: string, path: string, body?: unknown) => restCall(baseUrl, method, path, body, headers);
  const query = (params: Record<string, string | number | boolean>) => {
    const q = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
    return q ? `?${q}` : '';
  };
  return {
    transport,
    send: (request) => call('POST', '/message:send', request),
    get: (id, historyLength) => call('GET', `/tasks/${enc(id)}${query(historyLength === undefined ? {} : { historyLength })}`),
    list: (params = {}) => call('GET', `/tasks${query(params)}`),
    cancel: (id) => call('POST', `/tasks/${enc(id)}:cancel`),
    createPush: (taskId, config) => call('POST', `/tasks/${enc(taskId)}/pushNotificationConfigs`, config),
    getPush: (taskId, id) => call('GET', `/tasks/${enc(taskId)}/pushNotificationConfigs/${enc(id)}`),
    listPush: (taskId) => call('GET', `/tasks/${enc(taskId)}/pushNotificationConfigs`),
    deletePush: (taskId, id) => call('DELETE', `/tasks/${enc(taskId)}/pushNotificationConfigs/${enc(id)}`),
  };
}
