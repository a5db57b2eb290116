/**
 * The common `message/send` / `message/stream` params, checked by hand: a user or agent message
 * of text parts, with at most a task and context id, and a configuration of `blocking` alone (what
 * every v1.0 send becomes, src/protocol/v1/wire-in.ts), and nothing else. zod stays the schema
 * (src/a2a/schemas.ts): this answers only for inputs it is sure of, builds exactly what
 * `MessageSendParamsSchema` would (same values, same key order), and says `undefined` for
 * anything else, which then goes to zod. test/unit/send-fast-path.test.ts holds the two equal.
 * It exists because zod's general walk was a visible share of every bench task's CPU.
 */
import type { Message, MessageSendParams, Part } from '../a2a/schemas.js';

/** JSON.parse's objects, or the prototype-less ones REST key mapping makes (the output is rebuilt either way). */
const isPlainPrototype = (proto: unknown): boolean => proto === Object.prototype || proto === null;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && isPlainPrototype(Object.getPrototypeOf(v));

const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** `{kind: 'text', text}` and nothing else, else undefined. */
function textPart(raw: unknown): Part | undefined {
  if (!isPlainObject(raw) || raw.kind !== 'text' || typeof raw.text !== 'string') return undefined;
  for (const key in raw) if (key !== 'kind' && key !== 'text') return undefined;
  return { kind: 'text', text: raw.text };
}

/** The message, if it is one this path is sure of. */
function simpleMessage(raw: unknown): Message | undefined {
  if (!isPlainObject(raw)) return undefined;
  const { kind, role, parts, messageId, taskId, contextId } = raw;
  let keys = 0;
  for (const key in raw) {
    keys++;
    if (key !== 'kind' && key !== 'role' && key !== 'parts' && key !== 'messageId' && key !== 'taskId' && key !== 'contextId')
      return undefined;
  }
  if (keys === 0 || (kind !== undefined && kind !== 'message') || (role !== 'user' && role !== 'agent') || !isId(messageId))
    return undefined;
  if ((taskId !== undefined && !isId(taskId)) || (contextId !== undefined && !isId(contextId))) return undefined;
  if (!Array.isArray(parts) || parts.length === 0) return undefined;
  const out: Part[] = [];
  for (const p of parts) {
    const part = textPart(p);
    if (!part) return undefined;
    out.push(part);
  }
  // The schema's key order, so the stored and answered JSON is the same text either way.
  const message: Message = { kind: 'message', role, parts: out, messageId };
  if (taskId !== undefined) message.taskId = taskId;
  if (contextId !== undefined) message.contextId = contextId;
  return message;
}

/** `{blocking}` and nothing else, else undefined. */
function blockingOnly(raw: unknown): { blocking: boolean } | undefined {
  if (!isPlainObject(raw) || typeof raw.blocking !== 'boolean') return undefined;
  for (const key in raw) if (key !== 'blocking') return undefined;
  return { blocking: raw.blocking };
}

/** `MessageSendParamsSchema.parse(raw)` for the common shape; undefined: ask zod. */
export function fastSendParams(raw: unknown): MessageSendParams | undefined {
  if (!isPlainObject(raw)) return undefined;
  for (const key in raw) if (key !== 'message' && key !== 'configuration') return undefined;
  const message = simpleMessage(raw.message);
  if (!message) return undefined;
  if (!Object.hasOwn(raw, 'configuration')) return { message };
  const configuration = blockingOnly(raw.configuration);
  return configuration ? { message, configuration } : undefined;
}
