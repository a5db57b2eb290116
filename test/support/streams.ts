/**
 * `message:stream` and `subscribe` over either transport, read the way A2A clients read them
 * (test/support/sse.ts), with the JSON-RPC envelope checked and removed, so one test covers
 * both transports. Also: one-line summaries of events for order checks, and rebuilding a
 * task's artifacts from a stream.
 */
import { expect } from 'vitest';
import type { Json, TransportName } from './a2a.js';
import { openSse, type SseEvent } from './sse.js';

export interface StreamItem {
  /** The SSE `id:` as a number (absent for a direct reply or an error). */
  id?: number;
  /** The event: a bare A2A object, or `{error}` for an error event. */
  data: Json;
}

export interface OpenedStream {
  status: number;
  contentType: string | null;
  headers: Headers;
  /** Every event until the server ends the stream (or `stopAfter`). */
  items: Promise<StreamItem[]>;
  abort(): void;
}

export interface StreamOptions {
  stopAfter?: number;
  onItem?: (item: StreamItem) => void;
  headers?: Record<string, string>;
}

let rpcIds = 0;

/** A JSON-RPC SSE event is a full response with the request's id (wire reference §2.3). */
function unwrap(transport: TransportName, requestId: number, e: SseEvent): StreamItem {
  const id = e.id === undefined ? undefined : Number(e.id);
  if (transport === 'rest') return { ...(id !== undefined ? { id } : {}), data: e.data };
  expect(e.data.jsonrpc).toBe('2.0');
  expect(e.data.id).toBe(requestId);
  expect('result' in e.data !== 'error' in e.data).toBe(true);
  return { ...(id !== undefined ? { id } : {}), data: 'error' in e.data ? { error: e.data.error } : e.data.result };
}

async function open(
  transport: TransportName,
  url: string,
  init: { method: string; body?: unknown; requestId: number },
  opts: StreamOptions,
): Promise<OpenedStream> {
  const sse = await openSse(url, {
    method: init.method,
    ...(init.body === undefined ? {} : { body: init.body }),
    headers: opts.headers ?? {},
    ...(opts.stopAfter !== undefined ? { stopAfter: opts.stopAfter } : {}),
    onEvent: (e) => opts.onItem?.(unwrap(transport, init.requestId, e)),
  });
  const items = sse.events.then((events) => events.map((e) => unwrap(transport, init.requestId, e)));
  // Non-SSE answers (errors before the stream) are read as JSON by the caller via `items`.
  return { status: sse.status, contentType: sse.contentType, headers: sse.headers, items, abort: sse.abort };
}

/** `POST /v1/message:stream` or JSON-RPC `message/stream` (or its alias). */
export function streamMessage(
  baseUrl: string,
  transport: TransportName,
  params: Json,
  opts: StreamOptions & { rpcMethod?: 'message/stream' | 'message/sendStream' } = {},
): Promise<OpenedStream> {
  if (transport === 'rest') return open(transport, `${baseUrl}/v1/message:stream`, { method: 'POST', body: params, requestId: 0 }, opts);
  const requestId = ++rpcIds;
  const body = { jsonrpc: '2.0', id: requestId, method: opts.rpcMethod ?? 'message/stream', params };
  return open(transport, `${baseUrl}/`, { method: 'POST', body, requestId }, opts);
}

/** `POST|GET /v1/tasks/{id}:subscribe` or JSON-RPC `tasks/resubscribe`, optionally resuming. */
export function subscribe(
  baseUrl: string,
  transport: TransportName,
  taskId: string,
  opts: StreamOptions & { lastEventId?: number | string; httpMethod?: 'POST' | 'GET' } = {},
): Promise<OpenedStream> {
  const headers = { ...opts.headers, ...(opts.lastEventId !== undefined ? { 'last-event-id': String(opts.lastEventId) } : {}) };
  const withHeaders = { ...opts, headers };
  if (transport === 'rest') {
    const url = `${baseUrl}/v1/tasks/${encodeURIComponent(taskId)}:subscribe`;
    return open(transport, url, { method: opts.httpMethod ?? 'POST', requestId: 0 }, withHeaders);
  }
  const requestId = ++rpcIds;
  const body = { jsonrpc: '2.0', id: requestId, method: 'tasks/resubscribe', params: { id: taskId } };
  return open(transport, `${baseUrl}/`, { method: 'POST', body, requestId }, withHeaders);
}

/**
 * One line per event: `task:<state>`, `status:<state>[+msg][:final]`,
 * `artifact:<id>:<new|append>[:last]`, `message`, `error:<code>`.
 */
export function summarize(data: Json): string {
  switch (data.kind) {
    case 'task':
      return `task:${data.status.state}`;
    case 'status-update':
      return `status:${data.status.state}${data.status.message ? '+msg' : ''}${data.final ? ':final' : ''}`;
    case 'artifact-update':
      return `artifact:${data.artifact.artifactId}:${data.append ? 'append' : 'new'}${data.lastChunk ? ':last' : ''}`;
    case 'message':
      return 'message';
    default:
      return data.error ? `error:${data.error.code}` : `unknown:${JSON.stringify(data)}`;
  }
}

/** Ids after the first item must be consecutive: no gap, no duplicate. */
export function expectConsecutiveIds(items: StreamItem[], first: number): void {
  expect(items.map((i) => i.id)).toEqual(items.map((_, k) => first + k));
}

/** The artifacts a client builds from a snapshot and the artifact-update events after it. */
export function rebuildArtifacts(items: StreamItem[]): Json[] {
  const artifacts: Json[] = [];
  for (const { data } of items) {
    if (data.kind === 'task') {
      artifacts.splice(0, artifacts.length, ...(data.artifacts ?? []).map((a: Json) => ({ ...a, parts: [...a.parts] })));
    } else if (data.kind === 'artifact-update') {
      const at = artifacts.findIndex((a) => a.artifactId === data.artifact.artifactId);
      if (data.append && at >= 0) artifacts[at].parts.push(...data.artifact.parts);
      else if (at >= 0) artifacts[at] = { ...data.artifact, parts: [...data.artifact.parts] };
      else artifacts.push({ ...data.artifact, parts: [...data.artifact.parts] });
    }
  }
  return artifacts;
}

/** A finished task without the values that differ between two runs (ids, times, `_eventSeq`). */
export function comparable(task: Json): Json {
  return JSON.parse(
    JSON.stringify(task, (key, value) =>
      ['id', 'contextId', 'taskId', 'messageId', 'timestamp', '_eventSeq'].includes(key) ? undefined : value,
    ),
  );
}

/** What the scenario agent's `stream 5` streams, as summaries: the task, working, five chunks, completed. */
export const STREAM_5_EVENTS: readonly string[] = [
  'task:submitted',
  'status:working',
  'artifact:stream:new',
  'artifact:stream:append',
  'artifact:stream:append',
  'artifact:stream:append',
  'artifact:stream:append:last',
  'status:completed:final',
];
