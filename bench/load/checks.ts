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

/** v1.0 names its states only the proto way: a v0.3 `completed` in a v1.0 reply is a wrong answer. */
const V1_COMPLETED = 'TASK_STATE_COMPLETED';

export function stateOf(task: unknown): unknown {
  return isObject(task) && isObject(task.status) ? task.status.state : undefined;
}

export function rpcResult(body: Json): Json | string {
  if (isObject(body.error)) return `JSON-RPC error ${String(body.error.code)}: ${String(body.error.message)}`;
  return isObject(body.result) ? body.result : 'no JSON-RPC result';
}

/** Whether an artifact carries the echo: a v1.0 part holds its text in `text`, with no `kind`. */
const hasTextPart = (artifact: unknown): boolean =>
  isObject(artifact) && Array.isArray(artifact.parts) && artifact.parts.some((part) => isObject(part) && typeof part.text === 'string');

/** A v1.0 send result (`{task}` or `{message}`): undefined for a completed task with the echo artifact. */
function checkV1SendResult(result: Json): string | undefined {
  if (!isObject(result.task)) return isObject(result.message) ? 'answered a message, not a task' : 'result holds no task';
  const state = stateOf(result.task);
  if (state !== V1_COMPLETED) return `task state ${String(state)}`;
  const artifacts = result.task.artifacts;
  return Array.isArray(artifacts) && artifacts.some(hasTextPart) ? undefined : 'completed task without the echo artifact';
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
    case 'v1-rpc-completed': {
      const result = rpcResult(body);
      return typeof result === 'string' ? result : checkV1SendResult(result);
    }
    case 'v1-rest-completed':
      return checkV1SendResult(body);
    case 'mix':
      return 'mix is checked per operation (bench/load/soak.ts)';
    case 'sse-completed':
    case 'v1-sse-completed':
      return `${check} is checked per event (streamCheck)`;
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

/**
 * Reads one v1.0 `SendStreamingMessage` stream event by event. v1.0 marks no event `final`: the
 * stream is over when the server closes it, so the verdict waits for the end and reads the last
 * state the stream carried, and whether the echo artifact came on the way.
 */
function v1StreamCheck(): StreamCheck {
  let state: unknown;
  let artifact = false;
  let error: string | undefined;
  return {
    event(data) {
      if (error !== undefined) return;
      const body = parse(data);
      if (!body) {
        error = `event is not JSON: ${data.slice(0, 120)}`;
        return;
      }
      const result = rpcResult(body);
      if (typeof result === 'string') error = result;
      else if (isObject(result.task)) {
        state = stateOf(result.task);
        artifact ||= Array.isArray(result.task.artifacts) && result.task.artifacts.some(hasTextPart);
      } else if (isObject(result.statusUpdate)) state = stateOf(result.statusUpdate);
      else if (isObject(result.artifactUpdate)) artifact ||= hasTextPart(result.artifactUpdate.artifact);
      else if (isObject(result.message)) error = 'answered a message, not a task';
      else error = `unknown stream event: ${data.slice(0, 120)}`;
    },
    end() {
      if (error !== undefined) return error;
      if (state !== V1_COMPLETED) return `stream ended in ${String(state)}`;
      return artifact ? undefined : 'stream completed without the echo artifact';
    },
  };
}

/** What the generator feeds a stream's events to; `end` gives the verdict once the stream closed. */
export interface StreamCheck {
  event(data: string): void;
  /** undefined for a good stream, else why it was not. */
  end(): string | undefined;
}

/** The checker for one stream of a streaming workload (`sse-completed` or `v1-sse-completed`). */
export function streamCheck(check: Check): StreamCheck {
  if (check === 'v1-sse-completed') return v1StreamCheck();
  let verdict: { final: boolean; error?: string } = { final: false };
  return {
    event(data) {
      if (!verdict.final) verdict = checkStreamEvent(data);
    },
    end: () => verdict.error ?? (verdict.final ? undefined : 'stream ended before a final event'),
  };
}

/**
 * Why a streaming request's answer that is not an event stream failed: a JSON-RPC error raised
 * before the stream began comes as plain JSON, and its code is the reason worth reporting.
 */
export function notAStream(check: Check, text: string): string {
  const verdict = streamCheck(check);
  verdict.event(text);
  return verdict.end() ?? `not an event stream: ${text.slice(0, 120)}`;
}

/** Whether a workload's answers are SSE streams. */
export const isStreaming = (check: Check): boolean => check === 'sse-completed' || check === 'v1-sse-completed';
