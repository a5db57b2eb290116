/**
 * A2A v1.0 requests (proto-JSON of `a2a.proto`), validated and turned into the params our one
 * `Operations` takes. Proto3 JSON leaves defaults out and clients may send them anyway, so an
 * empty string, `0` or `false` means "not set" wherever the proto field has no presence.
 */
import { z } from 'zod';
import { a2aError } from '../../a2a/errors.js';
import type { MessageSendParams, Part, PushNotificationConfig } from '../../a2a/schemas.js';
import { isObject, parseParams } from '../params.js';
import { fastSendParamsOfV1 } from './send-fast-path.js';
import { STATE_OF_V1 } from './wire-out.js';

/** Members whose values are the client's own JSON: their keys are data, never renamed. */
const FREE_FORM = new Set(['metadata', 'data', 'params']);
/** A proto field name (`message_id`): lower case words joined by single underscores. */
const PROTO_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;
const snakeToCamel = (key: string): string => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/**
 * Proto-JSON readers accept a field by its JSON name or by its proto name (`messageId` or
 * `message_id`), and clients such as the conformance kit send the latter: names are made camel
 * case before validation, outside free-form values.
 */
export function camelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (!isObject(value)) return value;
  // No prototype: a key named `__proto__` stays a key (an assignment would set the prototype).
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  let changed = false;
  for (const [key, inner] of Object.entries(value)) {
    const name = PROTO_NAME.test(key) ? snakeToCamel(key) : key;
    // The JSON name wins when a client sends both spellings.
    if (name !== key && Object.hasOwn(value, name)) {
      changed = true;
      continue;
    }
    const next = FREE_FORM.has(name) ? inner : camelKeys(inner);
    if (name !== key || next !== inner) changed = true;
    out[name] = next;
  }
  return changed ? out : value;
}

/** Validation of a v1.0 request after its names are made camel case. */
const read = <S extends z.ZodType>(schema: S, raw: unknown): z.output<S> => parseParams(schema, camelKeys(raw));

const freeForm = z.custom<Record<string, unknown>>((v) => isObject(v), 'expected a JSON object');
/** Proto-JSON readers take an enum by name or by number. */
const enumOf = (names: readonly string[]) =>
  z.union([z.enum(names as [string, ...string[]]), z.number().int()]).transform((v) => (typeof v === 'number' ? (names[v] ?? '') : v));
/** A proto3 string without presence: "" is the default, i.e. absent. */
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));
const tenant = z.string().optional();
const historyLength = z.number().int().min(0, 'historyLength must not be negative').optional();

const ROLES = ['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT'] as const;
const STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;

const PartSchema = z
  .object({
    text: z.string().optional(),
    raw: z.string().optional(),
    url: z.string().optional(),
    data: z.unknown().optional(),
    metadata: freeForm.optional(),
    filename: optionalString,
    mediaType: optionalString,
  })
  .refine(
    (p) => [p.text, p.raw, p.url, p.data].filter((c) => c !== undefined).length === 1,
    'a part holds exactly one of text, raw, url or data',
  );

const MessageSchema = z.object({
  messageId: z.string().min(1, 'messageId must not be empty'),
  contextId: optionalString,
  taskId: optionalString,
  role: enumOf(ROLES),
  parts: z.array(PartSchema).min(1, 'parts must not be empty'),
  metadata: freeForm.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});

const AuthenticationSchema = z.object({ scheme: z.string(), credentials: optionalString });

/** `TaskPushNotificationConfig`: flat, the task named in it (or in the path). */
const PushConfigSchema = z.object({
  tenant,
  id: optionalString,
  taskId: optionalString,
  url: z.string(),
  token: optionalString,
  authentication: AuthenticationSchema.optional(),
});

const SendMessageRequestSchema = z.object({
  tenant,
  message: MessageSchema,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string()).optional(),
      taskPushNotificationConfig: PushConfigSchema.optional(),
      historyLength,
      returnImmediately: z.boolean().optional(),
    })
    .optional(),
  metadata: freeForm.optional(),
});

const GetTaskRequestSchema = z.object({ tenant, id: z.string().min(1), historyLength });
const TaskIdRequestSchema = z.object({ tenant, id: z.string().min(1), metadata: freeForm.optional() });
const ListTasksRequestSchema = z.object({
  tenant,
  contextId: optionalString,
  status: enumOf(STATES).optional(),
  pageSize: z.number().int().optional(),
  pageToken: optionalString,
  historyLength,
  statusTimestampAfter: optionalString,
  includeArtifacts: z.boolean().optional(),
});
const PushConfigRequestSchema = z.object({ tenant, taskId: z.string().min(1), id: z.string().min(1) });
const ListPushConfigsRequestSchema = z.object({ tenant, taskId: z.string().min(1) });

type V1Part = z.infer<typeof PartSchema>;
type V1Push = z.infer<typeof PushConfigSchema>;

function domainPart(p: V1Part, at: number): Part {
  const metadata = p.metadata !== undefined ? { metadata: p.metadata } : {};
  if (p.text !== undefined) return { kind: 'text', text: p.text, ...metadata };
  if (p.data !== undefined) {
    // Our parts keep data as an object (A2A v0.3's DataPart); any other JSON value is refused by name.
    if (!isObject(p.data)) throw a2aError('invalidParams', `message.parts[${at}].data must be a JSON object on this server`);
    return { kind: 'data', data: p.data, ...metadata };
  }
  const described = {
    ...(p.mediaType !== undefined ? { mimeType: p.mediaType } : {}),
    ...(p.filename !== undefined ? { name: p.filename } : {}),
  };
  if (p.url !== undefined) return { kind: 'file', file: { uri: p.url, ...described }, ...metadata };
  return { kind: 'file', file: { bytes: p.raw ?? '', ...described }, ...metadata };
}

/** Our push config (v0.3 shape) from a v1.0 one; `authentication.scheme` becomes the one scheme. */
function domainPushConfig(c: V1Push): PushNotificationConfig {
  return {
    ...(c.id !== undefined ? { id: c.id } : {}),
    url: c.url,
    ...(c.token !== undefined ? { token: c.token } : {}),
    ...(c.authentication && c.authentication.scheme !== ''
      ? {
          authentication: {
            schemes: [c.authentication.scheme],
            ...(c.authentication.credentials !== undefined ? { credentials: c.authentication.credentials } : {}),
          },
        }
      : {}),
  };
}

/**
 * `SendMessageRequest` as our send params. `returnImmediately` absent means blocking; the
 * v0.3 shape it becomes is validated again by the operation, as every send is.
 */
export const sendParamsOf = (raw: unknown): MessageSendParams => fastSendParamsOfV1(raw) ?? sendParamsViaZod(raw);

/** `sendParamsOf` through the schema: the reference its fast path (send-fast-path.ts) is held equal to. */
export function sendParamsViaZod(raw: unknown): MessageSendParams {
  // v1.0 has no special case for a missing messageId (v0.3's -32600): every invalid field is -32602.
  const req = read(SendMessageRequestSchema, raw);
  const m = req.message;
  if (m.role !== 'ROLE_USER') throw a2aError('invalidParams', 'message.role must be ROLE_USER');
  const conf = req.configuration;
  return {
    message: {
      kind: 'message',
      messageId: m.messageId,
      role: 'user',
      parts: m.parts.map(domainPart),
      ...(m.contextId !== undefined ? { contextId: m.contextId } : {}),
      ...(m.taskId !== undefined ? { taskId: m.taskId } : {}),
      ...(m.metadata !== undefined ? { metadata: m.metadata } : {}),
      ...(m.extensions !== undefined ? { extensions: m.extensions } : {}),
      ...(m.referenceTaskIds !== undefined ? { referenceTaskIds: m.referenceTaskIds } : {}),
    },
    configuration: {
      blocking: conf?.returnImmediately !== true,
      ...(conf?.acceptedOutputModes !== undefined ? { acceptedOutputModes: conf.acceptedOutputModes } : {}),
      ...(conf?.historyLength !== undefined ? { historyLength: conf.historyLength } : {}),
      ...(conf?.taskPushNotificationConfig ? { pushNotificationConfig: domainPushConfig(conf.taskPushNotificationConfig) } : {}),
    },
    ...(req.metadata !== undefined ? { metadata: req.metadata } : {}),
  };
}

export const getTaskParamsOf = (raw: unknown) => {
  const { id, historyLength } = read(GetTaskRequestSchema, raw);
  return { id, ...(historyLength !== undefined ? { historyLength } : {}) };
};

/** Cancel and subscribe: the task id (and cancel's metadata). */
export const taskIdParamsOf = (raw: unknown) => {
  const { id, metadata } = read(TaskIdRequestSchema, raw);
  return { id, ...(metadata !== undefined ? { metadata } : {}) };
};

export function listTasksParamsOf(raw: unknown): Record<string, unknown> {
  const q = read(ListTasksRequestSchema, raw);
  const status = q.status === undefined || q.status === 'TASK_STATE_UNSPECIFIED' ? undefined : STATE_OF_V1.get(q.status);
  if (q.status !== undefined && q.status !== 'TASK_STATE_UNSPECIFIED' && status === undefined)
    throw a2aError('invalidParams', `status: unknown task state ${JSON.stringify(q.status)}`);
  return {
    ...(q.contextId !== undefined ? { contextId: q.contextId } : {}),
    ...(status !== undefined ? { status } : {}),
    // `page_size` has presence in the proto: an explicit 0 is out of range, not "not set".
    ...(q.pageSize !== undefined ? { pageSize: q.pageSize } : {}),
    ...(q.pageToken !== undefined ? { pageToken: q.pageToken } : {}),
    ...(q.historyLength !== undefined ? { historyLength: q.historyLength } : {}),
    ...(q.statusTimestampAfter !== undefined ? { statusTimestampAfter: q.statusTimestampAfter } : {}),
    ...(q.includeArtifacts !== undefined ? { includeArtifacts: q.includeArtifacts } : {}),
  };
}

/** `CreateTaskPushNotificationConfig`: the task id and our config; `pathTaskId` wins over the body's. */
export function pushConfigOf(raw: unknown, pathTaskId?: string): { taskId: string; config: PushNotificationConfig } {
  const c = read(PushConfigSchema, raw);
  const taskId = pathTaskId ?? c.taskId;
  if (taskId === undefined) throw a2aError('invalidParams', 'taskId: required');
  return { taskId, config: domainPushConfig(c) };
}

/** Get and delete: `{taskId, id}` as our `{id, pushNotificationConfigId}`. */
export const pushConfigIdParamsOf = (raw: unknown) => {
  const { taskId, id } = read(PushConfigRequestSchema, raw);
  return { id: taskId, pushNotificationConfigId: id };
};

export const listPushConfigsParamsOf = (raw: unknown) => ({ id: read(ListPushConfigsRequestSchema, raw).taskId });

/** The `tenant` a request names, if any (echoed on push configs). */
export const tenantOf = (raw: unknown): string | undefined =>
  isObject(raw) && typeof raw.tenant === 'string' && raw.tenant !== '' ? raw.tenant : undefined;
