/**
 * Every A2A v0.3 wire object we read or write, declared once as a zod schema; the TypeScript
 * types are inferred from them (wire reference §1). Inbound unknown fields are stripped, never
 * rejected. Outbound objects are built by the runtime from these same types.
 */
import { z } from 'zod';
import { TASK_STATES } from '../../machines/task.machine.js';

/**
 * A free-form JSON object (metadata, a data part's data), taken as it is: no copy, so every key
 * is kept as data, `__proto__` included (a record schema would copy it into a fresh object and
 * lose that key). Its nesting is checked against SERVICE_MAX_JSON_DEPTH after validation.
 */
const freeForm = z.custom<Record<string, unknown>>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  'expected a JSON object',
);
const metadata = freeForm;

/** Standard or URL-safe base64, padded or not (proto3 JSON accepts all of them for bytes). */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const isBase64 = (s: string): boolean => BASE64.test(s) && (s.endsWith('=') ? s.length % 4 === 0 : s.length % 4 !== 1);
/** Explicit `null` means absent (wire reference §1.2). */
const optionalOrNull = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === null ? undefined : v), schema.optional());

export const TextPartSchema = z.object({
  kind: z.literal('text'),
  text: z.string(),
  metadata: metadata.optional(),
});

const fileBase = { name: z.string().optional(), mimeType: z.string().optional() };
export const FileWithBytesSchema = z.object({ ...fileBase, bytes: z.string().refine(isBase64, 'must be base64') });
export const FileWithUriSchema = z.object({ ...fileBase, uri: z.string() });

export const FilePartSchema = z.object({
  kind: z.literal('file'),
  file: z.union([FileWithBytesSchema, FileWithUriSchema]),
  metadata: metadata.optional(),
});

export const DataPartSchema = z.object({
  kind: z.literal('data'),
  data: freeForm,
  metadata: metadata.optional(),
});

export const PartSchema = z.discriminatedUnion('kind', [TextPartSchema, FilePartSchema, DataPartSchema]);

export const RoleSchema = z.enum(['user', 'agent']);

export const MessageSchema = z.object({
  kind: z.literal('message').default('message'),
  role: RoleSchema,
  parts: z.array(PartSchema).min(1, 'parts must not be empty'),
  messageId: z.string().min(1),
  taskId: optionalOrNull(z.string().min(1)),
  contextId: optionalOrNull(z.string().min(1)),
  referenceTaskIds: z.array(z.string()).optional(),
  extensions: z.array(z.string()).optional(),
  metadata: optionalOrNull(metadata),
});

export const TaskStateSchema = z.enum(TASK_STATES);

/** Sent as an HTTP header value on every delivery: no line breaks or other control characters. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const headerValue = z.string().regex(/^[^\u0000-\u0008\u000a-\u001f\u007f]*$/, 'must be usable as an HTTP header value');

export const PushAuthenticationSchema = z.object({
  schemes: z.array(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP auth scheme name')),
  credentials: headerValue.optional(),
});

export const PushNotificationConfigSchema = z.object({
  id: z.string().min(1).optional(),
  url: z.string().url(),
  token: headerValue.optional(),
  authentication: PushAuthenticationSchema.optional(),
});

export const TaskPushNotificationConfigSchema = z.object({
  taskId: z.string().min(1),
  pushNotificationConfig: PushNotificationConfigSchema,
});

const historyLength = z.number().int().min(0, 'historyLength must not be negative');

export const MessageSendConfigurationSchema = z.object({
  acceptedOutputModes: z.array(z.string()).optional(),
  historyLength: historyLength.optional(),
  pushNotificationConfig: PushNotificationConfigSchema.optional(),
  blocking: z.boolean().optional(),
});

export const MessageSendParamsSchema = z.object({
  message: MessageSchema,
  configuration: MessageSendConfigurationSchema.optional(),
  metadata: metadata.optional(),
});

export const TaskIdParamsSchema = z.object({
  id: z.string().min(1),
  metadata: metadata.optional(),
});

export const TaskQueryParamsSchema = TaskIdParamsSchema.extend({
  historyLength: historyLength.optional(),
});

export const ListTasksParamsSchema = z.object({
  contextId: z.string().min(1).optional(),
  status: TaskStateSchema.optional(),
  pageSize: z.number().int().min(1, 'pageSize must be 1..100').max(100, 'pageSize must be 1..100').default(50),
  pageToken: z.string().optional(),
  historyLength: historyLength.optional(),
  statusTimestampAfter: z.iso.datetime({ offset: true }).optional(),
  includeArtifacts: z.boolean().default(false),
});

export const GetPushConfigParamsSchema = TaskIdParamsSchema.extend({
  pushNotificationConfigId: z.string().min(1).optional(),
});

export const DeletePushConfigParamsSchema = TaskIdParamsSchema.extend({
  pushNotificationConfigId: z.string().min(1),
});

export type TextPart = z.infer<typeof TextPartSchema>;
export type FilePart = z.infer<typeof FilePartSchema>;
export type DataPart = z.infer<typeof DataPartSchema>;
export type Part = z.infer<typeof PartSchema>;
export type Message = z.infer<typeof MessageSchema>;
export type PushNotificationConfig = z.infer<typeof PushNotificationConfigSchema>;
export type TaskPushNotificationConfig = z.infer<typeof TaskPushNotificationConfigSchema>;
export type MessageSendConfiguration = z.infer<typeof MessageSendConfigurationSchema>;
export type MessageSendParams = z.infer<typeof MessageSendParamsSchema>;
export type TaskIdParams = z.infer<typeof TaskIdParamsSchema>;
export type TaskQueryParams = z.infer<typeof TaskQueryParamsSchema>;
export type ListTasksParams = z.infer<typeof ListTasksParamsSchema>;
export type GetPushConfigParams = z.infer<typeof GetPushConfigParamsSchema>;
export type DeletePushConfigParams = z.infer<typeof DeletePushConfigParamsSchema>;

// ---- Outbound objects (built by the runtime; schemas document the shape and serve tests) ----

export const TaskStatusSchema = z.object({
  state: TaskStateSchema,
  timestamp: z.string(),
  message: MessageSchema.optional(),
});

export const ArtifactSchema = z.object({
  artifactId: z.string(),
  parts: z.array(PartSchema),
  name: z.string().optional(),
  description: z.string().optional(),
  metadata: metadata.optional(),
  extensions: z.array(z.string()).optional(),
});

export const StateTransitionSchema = z.object({ state: TaskStateSchema, timestamp: z.string() });

export const TaskSchema = z.object({
  kind: z.literal('task'),
  id: z.string(),
  contextId: z.string(),
  status: TaskStatusSchema,
  history: z.array(MessageSchema).optional(),
  artifacts: z.array(ArtifactSchema).optional(),
  metadata: metadata.optional(),
});

export const TaskStatusUpdateEventSchema = z.object({
  kind: z.literal('status-update'),
  taskId: z.string(),
  contextId: z.string(),
  status: TaskStatusSchema,
  final: z.boolean(),
  metadata: metadata.optional(),
});

export const TaskArtifactUpdateEventSchema = z.object({
  kind: z.literal('artifact-update'),
  taskId: z.string(),
  contextId: z.string(),
  artifact: ArtifactSchema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: metadata.optional(),
});

export const ListTasksResultSchema = z.object({
  tasks: z.array(TaskSchema),
  nextPageToken: z.string(),
  pageSize: z.number().int(),
  totalSize: z.number().int(),
});

export type TaskStatus = z.infer<typeof TaskStatusSchema>;
export type Artifact = z.infer<typeof ArtifactSchema>;
export type StateTransition = z.infer<typeof StateTransitionSchema>;
export type Task = z.infer<typeof TaskSchema>;
export type TaskState = z.infer<typeof TaskStateSchema>;
export type TaskStatusUpdateEvent = z.infer<typeof TaskStatusUpdateEventSchema>;
export type TaskArtifactUpdateEvent = z.infer<typeof TaskArtifactUpdateEventSchema>;
export type ListTasksResult = z.infer<typeof ListTasksResultSchema>;
/** What a stream carries: the snapshot, a direct reply, or an update event. */
export type StreamEvent = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;
