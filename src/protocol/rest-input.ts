/**
 * REST clients generated from the v0.3 proto send proto-JSON (wire reference §3.2). These
 * functions turn such bodies into A2A JSON before validation; A2A JSON passes unchanged. Only
 * known keys are renamed: the contents of `data` and `metadata` maps are never touched.
 */
import { isObject } from './params.js';

/**
 * `push_notification_config` -> `pushNotificationConfig`. A key without `_` (every A2A JSON key,
 * most proto ones) is returned as it is, without running the regular expression on it.
 */
export const camel = (key: string): string => (key.includes('_') ? key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) : key);

/**
 * Renames snake_case keys of one object level to camelCase (the camelCase key wins). The copy has
 * no prototype, so a key named `__proto__` stays a plain (unknown, stripped) key and cannot lend
 * the object inherited fields: REST then refuses what JSON-RPC refuses.
 */
function camelKeys(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(obj)) {
    const name = camel(key);
    if (name !== key && name in obj) continue;
    out[name] = obj[key];
  }
  return out;
}

/** Proto role names as A2A ones; any other value as it came (never a lookup by the client's text). */
const a2aRole = (role: unknown): unknown => (role === 'ROLE_USER' ? 'user' : role === 'ROLE_AGENT' ? 'agent' : role);

/**
 * Proto-JSON never has a `__proto__` key; an object with one is somebody probing for prototype
 * tricks. It is left as it came, so it is validated exactly as JSON-RPC validates it (no kind
 * or role is inferred for it).
 */
const hasProtoKey = (obj: Record<string, unknown>): boolean => Object.prototype.hasOwnProperty.call(obj, '__proto__');

function normalizeFile(raw: unknown): unknown {
  if (!isObject(raw) || hasProtoKey(raw)) return raw;
  const f = camelKeys(raw);
  const out: Record<string, unknown> = Object.create(null);
  if (typeof f.name === 'string') out.name = f.name;
  if (typeof f.mimeType === 'string') out.mimeType = f.mimeType;
  const uri = f.uri ?? f.url ?? f.fileWithUri;
  const bytes = f.bytes ?? f.fileWithBytes;
  if (typeof uri === 'string' && uri !== '') out.uri = uri;
  if (bytes !== undefined) out.bytes = bytes;
  return out;
}

function normalizePart(raw: unknown): unknown {
  if (!isObject(raw) || hasProtoKey(raw)) return raw;
  const part = camelKeys(raw);
  if (part.kind !== undefined) {
    return part.kind === 'file' ? { ...part, file: normalizeFile(part.file) } : part;
  }
  // Proto parts carry no `kind`: infer it from the one key present.
  if (typeof part.text === 'string') return { ...part, kind: 'text' };
  if (part.file !== undefined) return { ...part, kind: 'file', file: normalizeFile(part.file) };
  if (part.data !== undefined) {
    // Proto DataPart wraps the object once more: {"data": {"data": {...}}}.
    const data = isObject(part.data) && isObject(part.data.data) && Object.keys(part.data).length === 1 ? part.data.data : part.data;
    return { ...part, kind: 'data', data };
  }
  return part;
}

export function normalizeRestMessage(raw: unknown): unknown {
  if (!isObject(raw) || hasProtoKey(raw)) return raw;
  const msg = camelKeys(raw);
  if (msg.parts === undefined && msg.content !== undefined) msg.parts = msg.content;
  delete msg.content;
  if (typeof msg.role === 'string') msg.role = a2aRole(msg.role);
  if (Array.isArray(msg.parts)) msg.parts = msg.parts.map(normalizePart);
  return msg;
}

export function normalizePushConfig(raw: unknown): unknown {
  if (!isObject(raw)) return raw;
  const cfg = camelKeys(raw);
  // Clients send `token: ""` and `authentication: {}` for "none" (wire reference §1.6).
  if (cfg.token === '') delete cfg.token;
  if (isObject(cfg.authentication) && !Array.isArray(cfg.authentication.schemes)) delete cfg.authentication;
  return cfg;
}

/** A part of the common shape, proto `{text}` or A2A `{kind: 'text', text}`, as A2A; else undefined. */
function simpleTextPart(raw: unknown): { kind: 'text'; text: string } | undefined {
  if (!isObject(raw)) return undefined;
  const { kind, text } = raw;
  if (typeof text !== 'string' || (kind !== undefined && kind !== 'text')) return undefined;
  for (const key in raw) if (key !== 'kind' && key !== 'text') return undefined;
  return { kind: 'text', text };
}

/**
 * The common send body, `{message: {messageId, role, content | parts: [text parts], taskId?,
 * contextId?, kind?}}` in proto-JSON or A2A JSON, as `normalizeRestSendBody` makes it; undefined
 * for any other body. Every object is a literal with fixed keys and nothing is copied by a
 * client's key name, so no key (`__proto__` included: it is not among the known ones) can reach
 * a prototype, and the objects keep V8's fast shapes (prototype-less copies are dictionaries).
 */
export function simpleRestSendBody(raw: unknown): { message: Record<string, unknown> } | undefined {
  if (!isObject(raw)) return undefined;
  for (const key in raw) if (key !== 'message') return undefined;
  const msg = raw.message;
  if (!isObject(msg)) return undefined;
  const { kind, messageId, role, taskId, contextId } = msg;
  if (typeof messageId !== 'string' || typeof role !== 'string') return undefined;
  let list: unknown;
  for (const key in msg) {
    if (key === 'content' || key === 'parts') {
      if (list !== undefined) return undefined; // both: the general path decides which wins
      list = msg[key];
    } else if (key !== 'kind' && key !== 'messageId' && key !== 'role' && key !== 'taskId' && key !== 'contextId') return undefined;
  }
  if (!Array.isArray(list)) return undefined;
  const parts: { kind: 'text'; text: string }[] = [];
  for (const p of list) {
    const part = simpleTextPart(p);
    if (!part) return undefined;
    parts.push(part);
  }
  const message: Record<string, unknown> = { messageId, role: a2aRole(role), parts };
  if (kind !== undefined) message.kind = kind;
  if (taskId !== undefined) message.taskId = taskId;
  if (contextId !== undefined) message.contextId = contextId;
  return { message };
}

export function normalizeRestSendBody(raw: unknown): unknown {
  const simple = simpleRestSendBody(raw);
  if (simple) return simple;
  if (!isObject(raw)) return raw;
  const body = camelKeys(raw);
  body.message = normalizeRestMessage(body.message ?? body.request);
  delete body.request;
  if (isObject(body.configuration)) {
    const conf = camelKeys(body.configuration);
    if (conf.pushNotificationConfig === undefined && conf.pushNotification !== undefined)
      conf.pushNotificationConfig = conf.pushNotification;
    delete conf.pushNotification;
    if (conf.pushNotificationConfig !== undefined) conf.pushNotificationConfig = normalizePushConfig(conf.pushNotificationConfig);
    body.configuration = conf;
  }
  return body;
}

/**
 * Create-push-config bodies (wire reference §3.2): flat config, `{config: TaskPushNotificationConfig}`,
 * a bare TaskPushNotificationConfig, or proto `{parent, configId, config: {name, pushNotificationConfig}}`.
 */
export function normalizeRestPushBody(raw: unknown): unknown {
  if (!isObject(raw)) return raw;
  const body = camelKeys(raw);
  let config: unknown = body;
  if (isObject(body.config)) {
    const inner = camelKeys(body.config);
    config = inner.pushNotificationConfig ?? inner;
    if (isObject(config) && config.id === undefined && typeof body.configId === 'string' && body.configId !== '') {
      config = { ...config, id: body.configId };
    }
  } else if (isObject(body.pushNotificationConfig)) {
    config = body.pushNotificationConfig;
  }
  return normalizePushConfig(config);
}
