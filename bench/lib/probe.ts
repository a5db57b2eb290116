/**
 * Small one-off calls the orchestrator makes around workloads: create a task for W3, count the
 * store for W8, find out whether the server delivers webhooks at all before W7 is timed, and
 * whether it answers a workload's request at all (the v1.0 workloads) before that is timed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { checkResponse, isStreaming, notAStream, streamCheck } from '../load/checks.js';
import { SseReader } from '../load/sse.js';
import { MESSAGE_ID, type Check, type RequestTemplate } from './types.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

async function rpc(origin: string, method: string, params: unknown): Promise<Json> {
  const res = await fetch(`${origin}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const body: unknown = await res.json();
  if (!isObject(body) || !isObject(body.result)) throw new Error(`${method}: unexpected answer ${JSON.stringify(body).slice(0, 200)}`);
  return body.result;
}

const message = (extra: Json = {}): Json => ({
  kind: 'message',
  role: 'user',
  messageId: randomUUID(),
  parts: [{ kind: 'text', text: 'hello from the bench' }],
  ...extra,
});

/** Sends one message and returns the id of the completed task it made. */
export async function createTask(origin: string): Promise<string> {
  const task = await rpc(origin, 'message/send', { message: message() });
  if (typeof task.id !== 'string') throw new Error('message/send did not answer a task');
  return task.id;
}

/** Tasks the store holds, as tasks/list reports them (`totalSize`). */
export async function storedTasks(origin: string): Promise<number> {
  const page = await rpc(origin, 'tasks/list', { pageSize: 1 });
  if (typeof page.totalSize !== 'number') throw new Error('tasks/list answered no totalSize');
  return page.totalSize;
}

/**
 * Whether a task sent with an inline push config produces a webhook call within `waitMs`.
 * W7 is timed only when it does: push delivery may not be built yet in this checkout.
 */
export async function deliversPush(origin: string, waitMs = 3_000): Promise<boolean> {
  let resolveDelivered: (() => void) | undefined;
  const delivered = new Promise<void>((resolve) => {
    resolveDelivered = resolve;
  });
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = 204;
      res.end();
      resolveDelivered?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  try {
    await rpc(origin, 'message/send', {
      message: message(),
      configuration: { blocking: true, pushNotificationConfig: { url: `http://127.0.0.1:${port}/hook`, token: 'probe' } },
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), waitMs);
    });
    const result = await Promise.race([delivered.then(() => true), timeout]);
    clearTimeout(timer);
    return result;
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()).closeAllConnections());
  }
}

/**
 * Sends one request of a workload, as the generator would, and checks the answer the same way:
 * undefined when it passes, else why not. The v1.0 workloads are timed only on a server that
 * passes: ours answers v1.0 only once that lands, and until then its rows say so instead of
 * timing a window of errors.
 */
export async function answerError(
  origin: string,
  request: RequestTemplate,
  check: Check,
  headers: Readonly<Record<string, string>> = {},
): Promise<string | undefined> {
  const streaming = isStreaming(check);
  const res = await fetch(`${origin}${request.path}`, {
    method: request.method,
    headers: {
      'content-type': 'application/json',
      ...request.headers,
      ...headers,
      ...(streaming ? { accept: 'text/event-stream' } : {}),
    },
    ...(request.body === undefined ? {} : { body: request.body.split(MESSAGE_ID).join(randomUUID()) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!streaming) return checkResponse(check, res.status, text);
  if (res.status !== 200) return `HTTP ${res.status}: ${text.slice(0, 120)}`;
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return notAStream(check, text);
  const verdict = streamCheck(check);
  for (const data of new SseReader().push(`${text}\n\n`)) verdict.event(data);
  return verdict.end();
}
