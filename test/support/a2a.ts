/**
 * A small test client that runs the same operation over either transport and normalises the
 * answer to `{status, result?, error?}`, so one test table covers JSON-RPC and HTTP+JSON.
 */
import { randomUUID } from 'node:crypto';

// Test code reads arbitrary JSON answers; `any` is confined to this type.
export type Json = any;

export interface Outcome {
  status: number;
  result?: Json;
  error?: { code: number; message: string; data?: Json };
  headers: Headers;
}

export type TransportName = 'jsonrpc' | 'rest';
export const TRANSPORTS: TransportName[] = ['jsonrpc', 'rest'];

export function userMessage(text: string, extra: Record<string, unknown> = {}): Json {
  return { kind: 'message', role: 'user', parts: [{ kind: 'text', text }], messageId: randomUUID(), ...extra };
}

let rpcIds = 0;

export async function rpcCall(baseUrl: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<Outcome> {
  const res = await fetch(`${baseUrl}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcIds, method, params }),
  });
  const body: Json = await res.json();
  return { status: res.status, headers: res.headers, ...(body.error ? { error: body.error } : { result: body.result }) };
}

export async function restCall(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Outcome> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const parsed: Json = text ? JSON.parse(text) : undefined;
  if (res.status >= 400) return { status: res.status, headers: res.headers, error: parsed };
  return { status: res.status, headers: res.headers, result: parsed };
}

const query = (params: Record<string, unknown>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
};

export interface A2AClient {
  readonly transport: TransportName;
  send(params: Json, headers?: Record<string, string>): Promise<Outcome>;
  get(id: string, historyLength?: number): Promise<Outcome>;
  list(params?: Record<string, unknown>): Promise<Outcome>;
  cancel(id: string): Promise<Outcome>;
  extendedCard(headers?: Record<string, string>): Promise<Outcome>;
  setPush(taskId: string, config: Json): Promise<Outcome>;
  getPush(taskId: string, configId?: string): Promise<Outcome>;
  listPush(taskId: string): Promise<Outcome>;
  deletePush(taskId: string, configId: string): Promise<Outcome>;
}

export function client(baseUrl: string, transport: TransportName): A2AClient {
  if (transport === 'jsonrpc') {
    return {
      transport,
      send: (params, headers) => rpcCall(baseUrl, 'message/send', params, headers),
      get: (id, historyLength) => rpcCall(baseUrl, 'tasks/get', { id, ...(historyLength === undefined ? {} : { historyLength }) }),
      list: (params = {}) => rpcCall(baseUrl, 'tasks/list', params),
      cancel: (id) => rpcCall(baseUrl, 'tasks/cancel', { id }),
      extendedCard: (headers) => rpcCall(baseUrl, 'agent/getAuthenticatedExtendedCard', {}, headers),
      setPush: (taskId, config) => rpcCall(baseUrl, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: config }),
      getPush: (taskId, configId) =>
        rpcCall(baseUrl, 'tasks/pushNotificationConfig/get', { id: taskId, ...(configId ? { pushNotificationConfigId: configId } : {}) }),
      listPush: (taskId) => rpcCall(baseUrl, 'tasks/pushNotificationConfig/list', { id: taskId }),
      deletePush: (taskId, configId) =>
        rpcCall(baseUrl, 'tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: configId }),
    };
  }
  const enc = encodeURIComponent;
  return {
    transport,
    send: (params, headers) => restCall(baseUrl, 'POST', '/v1/message:send', params, headers),
    get: (id, historyLength) => restCall(baseUrl, 'GET', `/v1/tasks/${enc(id)}${query({ historyLength })}`),
    list: (params = {}) => restCall(baseUrl, 'GET', `/v1/tasks${query(params)}`),
    cancel: (id) => restCall(baseUrl, 'POST', `/v1/tasks/${enc(id)}:cancel`),
    extendedCard: (headers) => restCall(baseUrl, 'GET', '/v1/card', undefined, headers),
    setPush: (taskId, config) => restCall(baseUrl, 'POST', `/v1/tasks/${enc(taskId)}/pushNotificationConfigs`, config),
    getPush: (taskId, configId) =>
      restCall(baseUrl, 'GET', `/v1/tasks/${enc(taskId)}/pushNotificationConfigs/${enc(configId ?? 'default')}`),
    listPush: (taskId) => restCall(baseUrl, 'GET', `/v1/tasks/${enc(taskId)}/pushNotificationConfigs`),
    deletePush: (taskId, configId) => restCall(baseUrl, 'DELETE', `/v1/tasks/${enc(taskId)}/pushNotificationConfigs/${enc(configId)}`),
  };
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 5000, everyMs = 20): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
