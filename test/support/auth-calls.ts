/**
 * Every A2A operation over either transport with chosen headers, answered in one shape, for the
 * authentication and tenancy suites: who may call what, and that another caller's task answers
 * exactly like an unknown one.
 */
import type { Json, TransportName } from './a2a.js';
import { userMessage } from './a2a.js';

/** A JSON-RPC `message/send` as `who`; its result (the Task or Message). */
export async function sendAs(url: string, who: Record<string, string>, params: Json): Promise<Json> {
  const res = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...who },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params }),
  });
  return ((await res.json()) as Json).result;
}

export const ALICE = { authorization: 'Bearer alice-token' };
export const BOB = { authorization: 'Bearer bob-token' };

export interface Answer {
  status: number;
  /** `WWW-Authenticate`, when sent. */
  challenge: string | null;
  /** The A2A error (JSON-RPC `error`, REST body, or the SSE error event's), if any. */
  error?: { code: number; message: string };
  /** The result (JSON-RPC `result`, the REST body, or the first SSE event's). */
  result?: Json;
}

/** Ids an operation may act on. */
export interface Target {
  taskId: string;
  configId: string;
  /** Where a push config set by these calls points (a loopback receiver). */
  hookUrl: string;
}

export interface OperationCase {
  name: string;
  /** Whether it is about one task (then another caller's task must answer like an unknown one). */
  onTask: boolean;
  call(url: string, transport: TransportName, headers: Record<string, string>, target: Target): Promise<Answer>;
}

const rpcBody = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 7, method, params });

async function plain(url: string, init: { method: string; headers: Record<string, string>; body?: unknown }): Promise<Answer> {
  const res = await fetch(url, {
    method: init.method,
    headers: { accept: 'application/json', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return answerOf(res, text ? JSON.parse(text) : undefined, res.status >= 400);
}

/** One answer's JSON (a JSON-RPC envelope, a REST body, or an SSE event) in one shape. */
function answerOf(res: Response, json: Json, isError: boolean): Answer {
  const head = { status: res.status, challenge: res.headers.get('www-authenticate') };
  if (json && typeof json === 'object' && 'jsonrpc' in json)
    return { ...head, ...(json.error ? { error: json.error } : { result: json.result }) };
  if (isError) return { ...head, error: { code: json.code, message: json.message } };
  return { ...head, result: json };
}

/** A streaming call: a plain JSON answer when refused up front, else the first SSE event. */
async function streamed(url: string, init: { method: string; headers: Record<string, string>; body?: unknown }): Promise<Answer> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: init.method,
    headers: { accept: 'text/event-stream', 'content-type': 'application/json', ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: controller.signal,
  });
  // Refused before any stream started: a plain JSON error.
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return answerOf(res, JSON.parse(await res.text()), true);
  // The first event is all these checks need; the stream of a paused task would stay open.
  let text = '';
  const decoder = new TextDecoder();
  const deadline = setTimeout(() => controller.abort(), 5000);
  try {
    for await (const chunk of res.body ?? []) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      if (/^data:.*\n\n/m.test(text)) break;
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    clearTimeout(deadline);
    controller.abort();
  }
  const line = /^data: ?(.*)$/m.exec(text)?.[1];
  return answerOf(res, line === undefined ? undefined : JSON.parse(line), false);
}

const enc = encodeURIComponent;

function via(
  transport: TransportName,
  url: string,
  headers: Record<string, string>,
  rpc: [string, unknown],
  rest: [string, string, unknown?],
  stream = false,
): Promise<Answer> {
  const run = stream ? streamed : plain;
  if (transport === 'jsonrpc') return run(`${url}/`, { method: 'POST', headers, body: rpcBody(...rpc) });
  const [method, path, body] = rest;
  return run(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
}

/** Every operation of both transports (the extended card too). */
export const OPERATIONS: OperationCase[] = [
  {
    name: 'message/send (new task)',
    onTask: false,
    call: (url, t, h) =>
      via(
        t,
        url,
        h,
        ['message/send', { message: userMessage('echo hi') }],
        ['POST', '/v1/message:send', { message: userMessage('echo hi') }],
      ),
  },
  {
    name: 'message/send (follow-up)',
    onTask: true,
    call: (url, t, h, { taskId }) => {
      const params = { message: userMessage('ask again?', { taskId }) };
      return via(t, url, h, ['message/send', params], ['POST', '/v1/message:send', params]);
    },
  },
  {
    name: 'message/stream',
    onTask: false,
    call: (url, t, h) => {
      const params = { message: userMessage('echo streamed') };
      return via(t, url, h, ['message/stream', params], ['POST', '/v1/message:stream', params], true);
    },
  },
  {
    name: 'message/stream (follow-up)',
    onTask: true,
    call: (url, t, h, { taskId }) => {
      const params = { message: userMessage('ask once more?', { taskId }) };
      return via(t, url, h, ['message/stream', params], ['POST', '/v1/message:stream', params], true);
    },
  },
  {
    name: 'tasks/get',
    onTask: true,
    call: (url, t, h, { taskId }) => via(t, url, h, ['tasks/get', { id: taskId }], ['GET', `/v1/tasks/${enc(taskId)}`]),
  },
  {
    name: 'tasks/list',
    onTask: false,
    call: (url, t, h) => via(t, url, h, ['tasks/list', {}], ['GET', '/v1/tasks']),
  },
  {
    name: 'tasks/resubscribe',
    onTask: true,
    call: (url, t, h, { taskId }) =>
      via(t, url, h, ['tasks/resubscribe', { id: taskId }], ['POST', `/v1/tasks/${enc(taskId)}:subscribe`], true),
  },
  {
    name: 'tasks/pushNotificationConfig/set',
    onTask: true,
    call: (url, t, h, { taskId, hookUrl }) => {
      const config = { id: 'extra', url: hookUrl };
      return via(
        t,
        url,
        h,
        ['tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: config }],
        ['POST', `/v1/tasks/${enc(taskId)}/pushNotificationConfigs`, config],
      );
    },
  },
  {
    name: 'tasks/pushNotificationConfig/get',
    onTask: true,
    call: (url, t, h, { taskId, configId }) =>
      via(
        t,
        url,
        h,
        ['tasks/pushNotificationConfig/get', { id: taskId, pushNotificationConfigId: configId }],
        ['GET', `/v1/tasks/${enc(taskId)}/pushNotificationConfigs/${enc(configId)}`],
      ),
  },
  {
    name: 'tasks/pushNotificationConfig/list',
    onTask: true,
    call: (url, t, h, { taskId }) =>
      via(t, url, h, ['tasks/pushNotificationConfig/list', { id: taskId }], ['GET', `/v1/tasks/${enc(taskId)}/pushNotificationConfigs`]),
  },
  {
    name: 'tasks/pushNotificationConfig/delete',
    onTask: true,
    call: (url, t, h, { taskId }) =>
      via(
        t,
        url,
        h,
        ['tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: 'extra' }],
        ['DELETE', `/v1/tasks/${enc(taskId)}/pushNotificationConfigs/extra`],
      ),
  },
  {
    name: 'tasks/cancel',
    onTask: true,
    call: (url, t, h, { taskId }) => via(t, url, h, ['tasks/cancel', { id: taskId }], ['POST', `/v1/tasks/${enc(taskId)}:cancel`]),
  },
  {
    name: 'agent/getAuthenticatedExtendedCard',
    onTask: false,
    call: (url, t, h) => via(t, url, h, ['agent/getAuthenticatedExtendedCard', {}], ['GET', '/v1/card']),
  },
];

/** An answer with the task id it names replaced, to compare "someone else's" with "unknown". */
export const withoutId = (answer: Answer, id: string): Answer => JSON.parse(JSON.stringify(answer).split(id).join('<id>'));
