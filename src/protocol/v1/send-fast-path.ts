/**
 * v1.0's common `SendMessageRequest` (JSON-RPC params or gRPC's proto-JSON) turned into our send
 * params by hand: a `ROLE_USER` message of text parts with at most a task and context id, an
 * optional tenant, and a configuration of `returnImmediately` alone. zod stays the schema
 * (`sendParamsOf` in wire-in.ts): this answers only for inputs it is sure of, builds exactly what
 * `sendParamsOf` would (same values, same key order), and says `undefined` for anything else
 * (proto field names, empty ids, other parts, metadata, ...), which then goes to zod.
 * test/unit/v1-send-fast-path.test.ts holds the two equal.
 */
import type { MessageSendParams, Part } from '../../a2a/schemas.js';

/** JSON.parse's objects, or the prototype-less ones key mapping makes. */
const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** `{text}` and nothing else, as our text part, else undefined. */
function textPart(raw: unknown): Part | undefined {
  if (!isPlainObject(raw) || typeof raw.text !== 'string') return undefined;
  for (const key in raw) if (key !== 'text') return undefined;
  return { kind: 'text', text: raw.text };
}

/** Blocking unless `returnImmediately: true`; undefined for any other configuration. */
function blockingOf(raw: Record<string, unknown>): boolean | undefined {
  if (!Object.hasOwn(raw, 'configuration')) return true;
  const conf = raw.configuration;
  if (!isPlainObject(conf)) return undefined;
  for (const key in conf) if (key !== 'returnImmediately') return undefined;
  const immediately = conf.returnImmediately;
  if (immediately !== undefined && typeof immediately !== 'boolean') return undefined;
  return immediately !== true;
}

/** `sendParamsOf(raw)` for the common shape; undefined: ask zod. */
export function fastSendParamsOfV1(raw: unknown): MessageSendParams | undefined {
  if (!isPlainObject(raw)) return undefined;
  for (const key in raw) if (key !== 'message' && key !== 'configuration' && key !== 'tenant') return undefined;
  if (raw.tenant !== undefined && typeof raw.tenant !== 'string') return undefined;
  const m = raw.message;
  if (!isPlainObject(m)) return undefined;
  for (const key in m)
    if (key !== 'messageId' && key !== 'role' && key !== 'parts' && key !== 'contextId' && key !== 'taskId') return undefined;
  const { messageId, role, parts, contextId, taskId } = m;
  if (!isId(messageId) || role !== 'ROLE_USER' || !Array.isArray(parts) || parts.length === 0) return undefined;
  // An empty id is "not set" in proto3 JSON: zod's reading of it is left to zod.
  if ((contextId !== undefined && !isId(contextId)) || (taskId !== undefined && !isId(taskId))) return undefined;
  const out: Part[] = [];
  for (const p of parts) {
    const part = textPart(p);
    if (!part) return undefined;
    out.push(part);
  }
  const blocking = blockingOf(raw);
  if (blocking === undefined) return undefined;
  // sendParamsOf's key order, so the stored and answered JSON is the same text either way.
  const message: MessageSendParams['message'] = { kind: 'message', messageId, role: 'user', parts: out };
  if (contextId !== undefined) message.contextId = contextId;
  if (taskId !== undefined) message.taskId = taskId;
  return { message, configuration: { blocking } };
}
