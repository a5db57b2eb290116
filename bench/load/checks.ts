/**
 * How the generator tells a good response from a bad one. Every response is parsed and checked,
 * on every server alike: a fast wrong answer must count as an error, not as throughput.
 * A check returns undefined for success or a short reason.
 */
import type { Check } from '../lib/types.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parse(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A2A JSON says `completed`; proto-JSON (the peer's REST answers) says `TASK_STATE_COMPLETED`. */
export const COMPLETED = new Set(['completed', 'TASK_STATE_COMPLETED']);

const PAUSED = new Set(['input-required', 'TASK_STATE_INPUT_REQUIRED']);

export function stateOf(task: unknown): unknown {
  return isObject(task) && isObject(task.status) ? task.status.state : undefined;
}

export function rpcResult(body: Json): Json | string {
  if (isObject(body.error)) return `JSON-RPC error ${String(body.error.code)}: ${String(body.error.message)}`;
  return isObject(body.result) ? body.result : 'no JSON-RPC result';
}

export function checkResponse(check: Check, status: number, text: string, pageSize = 50): string | undefined {
  if (status < 200 || status > 299) return `HTTP ${status}: ${text.slice(0, 120)}`;
  const body = parse(text);
  if (!body) return `not a JSON object: ${text.slice(0, 120)}`;
  switch (check) {
    case 'raw': {
      const result = rpcResult(body);
      return typeof result !== 'string' && result.ok === true ? undefined : 'raw body changed';
    }
    case 'rpc-completed': {
      const result = rpcResult(body);
      if (typeof result === 'string') return result;
      if (!COMPLETED.has(String(stateOf(result)))) return `task state ${String(stateOf(result))}`;
      return Array.isArray(result.artifacts) && result.artifacts.length > 0 ? undefined : 'completed task without artifact';
    }
    case 'rpc-input-required': {
      const result = rpcResult(body);
      if (typeof result === 'string') return result;
      return PAUSED.has(String(stateOf(result))) ? undefined : `task state ${String(stateOf(result))}`;
    }
    case 'rest-completed': {
      const task = isObject(body.task) ? body.task : body;
      return COMPLETED.has(String(stateOf(task))) ? undefined : `task state ${String(stateOf(task))}`;
    }
    case 'rpc-task': {
      const result = rpcResult(body);
      if (typeof result === 'string') return result;
      return typeof result.id === 'string' && stateOf(result) !== undefined ? undefined : 'result is not a task';
    }
    case 'rpc-page': {
      const result = rpcResult(body);
      if (typeof result === 'string') return result;
      const tasks = result.tasks;
      return Array.isArray(tasks) && tasks.length === pageSize ? undefined : `page of ${Array.isArray(tasks) ? tasks.length : 'no'} tasks`;
    }
    case 'card':
      return typeof body.name === 'string' && typeof body.url === 'string' ? undefined : 'not an agent card';
    case 'mix':
      return 'mix is checked per operation (bench/load/soak.ts)';
    case 'sse-completed':
      return 'sse-completed is checked per event (checkStreamEvent)';
  }
}

/** One event of a message/stream response: undefined while the stream goes on, else its verdict. */
export function checkStreamEvent(data: string): { final: boolean; error?: string } {
  const body = parse(data);
  if (!body) return { final: true, error: `event is not JSON: ${data.slice(0, 120)}` };
  const result = rpcResult(body);
  if (typeof result === 'string') return { final: true, error: result };
  if (result.kind === 'status-update' && result.final === true) {
    const state = stateOf(result);
    return COMPLETED.has(String(state)) ? { final: true } : { final: true, error: `stream ended in ${String(state)}` };
  }
  return { final: false };
}
