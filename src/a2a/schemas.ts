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

/** A text part. */
export const TextPartSchema = z.object({
  /** Always `text`. */
  kind: z.literal('text'),
  /** The text itself. */
  text: z.string(),
  metadata: metadata.optional(),
});

const fileBase = { name: z.string().optional(), mimeType: z.string().optional() };
/** A file sent inline, base64. */
export const FileWithBytesSchema = z.object({ ...fileBase, bytes: z.string().refine(isBase64, 'must be base64') });
/** A file the receiver fetches from a URI. */
export const FileWithUriSchema = z.object({ ...fileBase, uri: z.string() });

/** A file part: bytes inline or a URI. */
export const FilePartSchema = z.object({
  kind: z.literal('file'),
  file: z.union([FileWithBytesSchema, FileWithUriSchema]),
  metadata: metadata.optional(),
});

/** A data part: a JSON object. */
export const DataPartSchema = z.object({
  kind: z.literal('data'),
  data: freeForm,
  metadata: metadata.optional(),
});

/** Any part, told apart by `kind`. */
export const PartSchema = z.discriminatedUnion('kind', [TextPartSchema, FilePartSchema, DataPartSchema]);

/** Who wrote a message. */
export const RoleSchema = z.enum(['user', 'agent']);

/** One message of a conversation, from the user or the agent. */
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

/** A task state on the wire. */
export const TaskStateSchema = z.enum(TASK_STATES);

/** Sent as an HTTP header value on every delivery: no line breaks or other control characters. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const headerValue = z.string().regex(/^[^\u0000-\u0008\u000a-\u001f\u007f]*$/, 'must be usable as an HTTP header value');

/** How the server authenticates to a webhook: schemes and credentials. */
export const PushAuthenticationSchema = z.object({
  schemes: z.array(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP auth scheme name')),
  credentials: headerValue.optional(),
});

/** A webhook a task's transitions are sent to. */
export const PushNotificationConfigSchema = z.object({
  id: z.string().min(1).optional(),
  url: z.string().url(),
  token: headerValue.optional(),
  authentication: PushAuthenticationSchema.optional(),
});

/** A webhook config with the task it belongs to. */
export const TaskPushNotificationConfigSchema = z.object({
  taskId: z.string().min(1),
  pushNotificationConfig: PushNotificationConfigSchema,
});

const historyLength = z.number().int().min(0, 'historyLength must not be negative');

/** How a send is carried out: output modes, history, push, blocking. */
export const MessageSendConfigurationSchema = z.object({
  acceptedOutputModes: z.array(z.string()).optional(),
  historyLength: historyLength.optional(),
  pushNotificationConfig: PushNotificationConfigSchema.optional(),
  blocking: z.boolean().optional(),
});

/** The params of `message/send` and `message/stream`. */
export const MessageSendParamsSchema = z.object({
  message: MessageSchema,
  configuration: MessageSendConfigurationSchema.optional(),
  metadata: metadata.optional(),
});

/** Params naming a task. */
export const TaskIdParamsSchema = z.object({
  id: z.string().min(1),
  metadata: metadata.optional(),
});

/** The params of `tasks/get`. */
export const TaskQueryParamsSchema = TaskIdParamsSchema.extend({
  historyLength: historyLength.optional(),
});

/** The params of `tasks/list`: filters and paging. */
export const ListTasksParamsSchema = z.object({
  contextId: z.string().min(1).optional(),
  status: TaskStateSchema.optional(),
  pageSize: z.number().int().min(1, 'pageSize must be 1..100').max(100, 'pageSize must be 1..100').default(50),
  pageToken: z.string().optional(),
  historyLength: historyLength.optional(),
  statusTimestampAfter: z.iso.datetime({ offset: true }).optional(),
  includeArtifacts: z.boolean().default(false),
});

/** The params of `tasks/pushNotificationConfig/get`. */
export const GetPushConfigParamsSchema = TaskIdParamsSchema.extend({
  pushNotificationConfigId: z.string().min(1).optional(),
});

/** The params of `tasks/pushNotificationConfig/delete`. */
export const DeletePushConfigParamsSchema = TaskIdParamsSchema.extend({
  pushNotificationConfigId: z.string().min(1),
});

/** A text part. */
export type TextPart = z.infer<typeof TextPartSchema>;
/** A file part. */
export type FilePart = z.infer<typeof FilePartSchema>;
/** A data part. */
export type DataPart = z.infer<typeof DataPartSchema>;
/** Any part. */
export type Part = z.infer<typeof PartSchema>;
/** One message of a conversation. */
export type Message = z.infer<typeof MessageSchema>;
/** A webhook config. */
export type PushNotificationConfig = z.infer<typeof PushNotificationConfigSchema>;
/** A webhook config with its task. */
export type TaskPushNotificationConfig = z.infer<typeof TaskPushNotificationConfigSchema>;
/** How a send is carried out. */
export type MessageSendConfiguration = z.infer<typeof MessageSendConfigurationSchema>;
/** The params of `message/send`. */
export type MessageSendParams = z.infer<typeof MessageSendParamsSchema>;
/** Params naming a task. */
export type TaskIdParams = z.infer<typeof TaskIdParamsSchema>;
/** The params of `tasks/get`. */
export type TaskQueryParams = z.infer<typeof TaskQueryParamsSchema>;
/** The params of `tasks/list`. */
export type ListTasksParams = z.infer<typeof ListTasksParamsSchema>;
/** The params of `tasks/pushNotificationConfig/get`. */
export type GetPushConfigParams = z.infer<typeof GetPushConfigParamsSchema>;
/** The params of `tasks/pushNotificationConfig/delete`. */
export type DeletePushConfigParams = z.infer<typeof DeletePushConfigParamsSchema>;

// ---- Outbound objects (built by the runtime; schemas document the shape and serve tests) ----

/** A task's state, when it was entered, and the message that came with it. */
export const TaskStatusSchema = z.object({
  state: TaskStateSchema,
  timestamp: z.string(),
  message: MessageSchema.optional(),
});

/** An output of a task, made of parts. */
export const ArtifactSchema = z.object({
  artifactId: z.string(),
  parts: z.array(PartSchema),
  name: z.string().optional(),
  description: z.string().optional(),
  metadata: metadata.optional(),
  extensions: z.array(z.string()).optional(),
});

/** One state a task entered, and when. */
export const StateTransitionSchema = z.object({ state: TaskStateSchema, timestamp: z.string() });

/** A task: its status, history and artifacts. */
export const TaskSchema = z.object({
  kind: z.literal('task'),
  id: z.string(),
  contextId: z.string(),
  status: TaskStatusSchema,
  history: z.array(MessageSchema).optional(),
  artifacts: z.array(ArtifactSchema).optional(),
  metadata: metadata.optional(),
});

/** A stream event: the task's status changed. */
export const TaskStatusUpdateEventSchema = z.object({
  kind: z.literal('status-update'),
  taskId: z.string(),
  contextId: z.string(),
  status: TaskStatusSchema,
  final: z.boolean(),
  metadata: metadata.optional(),
});

/** A stream event: an artifact, or a chunk of one. */
export const TaskArtifactUpdateEventSchema = z.object({
  kind: z.literal('artifact-update'),
  taskId: z.string(),
  contextId: z.string(),
  artifact: ArtifactSchema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: metadata.optional(),
});

/** A page of `tasks/list`. */
export const ListTasksResultSchema = z.object({
  tasks: z.array(TaskSchema),
  nextPageToken: z.string(),
  pageSize: z.number().int(),
  totalSize: z.number().int(),
});

/** A task's status. */
export type TaskStatus = z.infer<typeof TaskStatusSchema>;
/** An output of a task. */
export type Artifact = z.infer<typeof ArtifactSchema>;
/** One state a task entered. */
export type StateTransition = z.infer<typeof StateTransitionSchema>;
/** A task. */
export type Task = z.infer<typeof TaskSchema>;
/** A task state. */
export type TaskState = z.infer<typeof TaskStateSchema>;
/** A status change, as a stream event. */
export type TaskStatusUpdateEvent = z.infer<typeof TaskStatusUpdateEventSchema>;
/** An artifact chunk, as a stream event. */
export type TaskArtifactUpdateEvent = z.infer<typeof TaskArtifactUpdateEventSchema>;
/** A page of `tasks/list`. */
export type ListTasksResult = z.infer<typeof ListTasksResultSchema>;
/** What a stream carries: the snapshot, a direct reply, or an update event. */
export type StreamEvent = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;
