/**
 * The soak's mixed load (issue 19): `connections` clients on 127.0.0.1, each looping over
 * operations drawn at random with these weights until `durationMs` is up:
 *
 *   55%  message/send, echoed                       (completed with an artifact)
 *   15%  message/stream `stream 5`                  (SSE ending in a final `completed`)
 *   10%  message/send `ask …`, then its follow-up   (input-required, then completed)
 *   10%  non-blocking `slow 300`, then tasks/cancel (canceled; completed if the cancel came late)
 *   10%  tasks/list, a page of 50
 *
 * Every answer is checked; one operation is one request (the ask and the slow one count their
 * two requests as one). Only ours runs it: the peer's echo agent has no stream or slow command.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'undici';
import { COMPLETED, checkResponse, checkStreamEvent, parse, rpcResult, stateOf } from './checks.js';
import { SseReader } from './sse.js';

export type SoakOperation = 'echo' | 'stream' | 'ask' | 'slow-cancel' | 'list';

const MIX: readonly [SoakOperation, number][] = [
  ['echo', 55],
  ['stream', 15],
  ['ask', 10],
  ['slow-cancel', 10],
  ['list', 10],
];

/** How long a `slow 300` task runs before its cancel is sent. */
const CANCEL_AFTER_MS = 100;

/** An operation drawn by the mix's weights from a number in [0, 1). */
export function pickOperation(r: number): SoakOperation {
  // Whole percentages: fractions would not add up exactly (0.55 + 0.15 > 0.7).
  const at = r * 100;
  let sum = 0;
  for (const [op, percent] of MIX) {
    sum += percent;
    if (at < sum) return op;
  }
  return 'echo';
}

const HEADERS = { 'content-type': 'application/json' };

/** Fresh message ids per generator process and run (idempotency would answer a repeat). */
const tag = `s${process.pid.toString(36)}${Date.now().toString(36)}`;
let seq = 0;

const message = (text: string, taskId?: string) => ({
  kind: 'message',
  role: 'user',
  messageId: `${tag}-${(seq++).toString(36)}`,
  parts: [{ kind: 'text', text }],
  ...(taskId === undefined ? {} : { taskId }),
});

const rpcBody = (method: string, params: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

async function rpc(pool: Pool, method: string, params: unknown): Promise<{ status: number; text: string }> {
  const res = await pool.request({ method: 'POST', path: '/', headers: HEADERS, body: rpcBody(method, params) });
  return { status: res.statusCode, text: await res.body.text() };
}

/** The task a JSON-RPC answer holds, or why there is none. */
function taskOf(answer: { status: number; text: string }): Record<string, unknown> | string {
  if (answer.status !== 200) return `HTTP ${answer.status}: ${answer.text.slice(0, 120)}`;
  const body = parse(answer.text);
  if (!body) return `not JSON: ${answer.text.slice(0, 120)}`;
  return rpcResult(body);
}

async function streamOnce(pool: Pool): Promise<string | undefined> {
  const res = await pool.request({
    method: 'POST',
    path: '/',
    headers: { ...HEADERS, accept: 'text/event-stream' },
    body: rpcBody('message/stream', { message: message('stream 5') }),
  });
  if (res.statusCode !== 200) return `stream: HTTP ${res.statusCode}: ${(await res.body.text()).slice(0, 120)}`;
  const reader = new SseReader();
  let verdict: { final: boolean; error?: string } = { final: false };
  res.body.setEncoding('utf8');
  for await (const chunk of res.body as AsyncIterable<string>) {
    for (const data of reader.push(chunk)) if (!verdict.final) verdict = checkStreamEvent(data);
  }
  return verdict.error ?? (verdict.final ? undefined : 'stream ended before a final event');
}

/** One operation; undefined when every answer was right, else why not. */
export async function runOperation(pool: Pool, op: SoakOperation): Promise<string | undefined> {
  switch (op) {
    case 'echo': {
      const answer = await rpc(pool, 'message/send', { message: message('hello from the soak') });
      return checkResponse('rpc-completed', answer.status, answer.text);
    }
    case 'stream':
      return streamOnce(pool);
    case 'ask': {
      const asked = await rpc(pool, 'message/send', { message: message('ask What colour?') });
      const paused = checkResponse('rpc-input-required', asked.status, asked.text);
      if (paused) return `ask: ${paused}`;
      const task = taskOf(asked);
      if (typeof task === 'string' || typeof task.id !== 'string') return 'ask: no task id';
      const answer = await rpc(pool, 'message/send', { message: message('blue', task.id) });
      const done = checkResponse('rpc-completed', answer.status, answer.text);
      return done === undefined ? undefined : `follow-up: ${done}`;
    }
    case 'slow-cancel': {
      const started = taskOf(await rpc(pool, 'message/send', { message: message('slow 300'), configuration: { blocking: false } }));
      if (typeof started === 'string' || typeof started.id !== 'string')
        return `slow: ${typeof started === 'string' ? started : 'no task id'}`;
      await sleep(CANCEL_AFTER_MS);
      const canceled = taskOf(await rpc(pool, 'tasks/cancel', { id: started.id }));
      if (typeof canceled === 'string') {
        // The task may have ended on its own first (a machine this loaded can be that late).
        return /not.*cancel/i.test(canceled) ? undefined : `cancel: ${canceled}`;
      }
      const state = String(stateOf(canceled));
      return state === 'canceled' || COMPLETED.has(state) ? undefined : `cancel: task state ${state}`;
    }
    case 'list': {
      const answer = await rpc(pool, 'tasks/list', { pageSize: 50 });
      const page = taskOf(answer);
      if (typeof page === 'string') return `list: ${page}`;
      return Array.isArray(page.tasks) ? undefined : 'list: no tasks array';
    }
  }
}
