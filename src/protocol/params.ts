/** Validation at the edge: raw JSON in, typed params out, or the right A2A error. */
import type { z } from 'zod';
import { a2aError } from '../a2a/errors.js';
import { MessageSendParamsSchema, type MessageSendParams } from '../a2a/schemas.js';
import { fastSendParams } from './send-fast-path.js';

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function describeIssues(error: z.ZodError): { text: string; issues: { path: string; message: string }[] } {
  const issues = error.issues.slice(0, 10).map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
  return { text: issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues };
}

export function parseParams<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const { text, issues } = describeIssues(result.error);
  throw a2aError('invalidParams', text, { issues });
}

/** message/send params; a missing or empty messageId is -32600 (spec "Message"). */
export function parseSendParams(raw: unknown): MessageSendParams {
  if (isObject(raw) && isObject(raw.message)) {
    const id = raw.message.messageId;
    if (typeof id !== 'string' || id.length === 0) {
      throw a2aError('invalidRequest', 'message.messageId is required and must be a non-empty string');
    }
  }
  const params = fastSendParams(raw) ?? parseParams(MessageSendParamsSchema, raw);
  if (params.message.role !== 'user') throw a2aError('invalidParams', 'message.role must be "user"');
  return params;
}
