/**
 * The proto-JSON shapes of the v0.3 `a2a.proto` (wire reference §3.6) that the `proto` REST
 * dialect answers with, declared once; the serializer's output types are inferred from them.
 * Field names follow the proto's JSON names: `content` for a message's parts, `message` for
 * `TaskStatus.update` (its `json_name`), enum values by name.
 */
import { z } from 'zod';

const struct = z.record(z.string(), z.unknown());

export const PROTO_TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELLED',
  'TASK_STATE_REJECTED',
] as const;

export const ProtoFilePartSchema = z.union([
  z.strictObject({ fileWithUri: z.string(), mimeType: z.string().optional(), name: z.string().optional() }),
  z.strictObject({ fileWithBytes: z.string(), mimeType: z.string().optional(), name: z.string().optional() }),
]);

/** `Part` is a oneof: exactly one of `text`, `file`, `data`. */
export const ProtoPartSchema = z.union([
  z.strictObject({ text: z.string(), metadata: struct.optional() }),
  z.strictObject({ file: ProtoFilePartSchema, metadata: struct.optional() }),
  z.strictObject({ data: z.strictObject({ data: struct }), metadata: struct.optional() }),
]);

export const ProtoMessageSchema = z.strictObject({
  messageId: z.string(),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  role: z.enum(['ROLE_USER', 'ROLE_AGENT']),
  content: z.array(ProtoPartSchema),
  metadata: struct.optional(),
  extensions: z.array(z.string()).optional(),
  /** Not in the v0.3 proto: kept so nothing is lost; proto-JSON readers skip unknown fields. */
  referenceTaskIds: z.array(z.string()).optional(),
});

export const ProtoTaskStatusSchema = z.strictObject({
  state: z.enum(PROTO_TASK_STATES),
  message: ProtoMessageSchema.optional(),
  timestamp: z.string().optional(),
});

export const ProtoArtifactSchema = z.strictObject({
  artifactId: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(ProtoPartSchema),
  metadata: struct.optional(),
  extensions: z.array(z.string()).optional(),
});

export const ProtoTaskSchema = z.strictObject({
  id: z.string(),
  contextId: z.string(),
  status: ProtoTaskStatusSchema,
  artifacts: z.array(ProtoArtifactSchema).optional(),
  history: z.array(ProtoMessageSchema).optional(),
  metadata: struct.optional(),
});

export const ProtoStatusUpdateSchema = z.strictObject({
  taskId: z.string(),
  contextId: z.string(),
  status: ProtoTaskStatusSchema,
  final: z.boolean(),
  metadata: struct.optional(),
});

export const ProtoArtifactUpdateSchema = z.strictObject({
  taskId: z.string(),
  contextId: z.string(),
  artifact: ProtoArtifactSchema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: struct.optional(),
});

/** `SendMessageResponse`: oneof `task` / `message`. */
export const ProtoSendMessageResponseSchema = z.union([
  z.strictObject({ task: ProtoTaskSchema }),
  z.strictObject({ message: ProtoMessageSchema }),
]);

/** `StreamResponse`: oneof `task` / `message` / `statusUpdate` / `artifactUpdate`. */
export const ProtoStreamResponseSchema = z.union([
  z.strictObject({ task: ProtoTaskSchema }),
  z.strictObject({ message: ProtoMessageSchema }),
  z.strictObject({ statusUpdate: ProtoStatusUpdateSchema }),
  z.strictObject({ artifactUpdate: ProtoArtifactUpdateSchema }),
]);

export const ProtoPushConfigSchema = z.strictObject({
  id: z.string().optional(),
  url: z.string(),
  token: z.string().optional(),
  authentication: z.strictObject({ schemes: z.array(z.string()), credentials: z.string().optional() }).optional(),
});

/** `TaskPushNotificationConfig`: the task and config ids travel in the resource name. */
export const ProtoTaskPushConfigSchema = z.strictObject({
  name: z.string().regex(/^tasks\/[^/]+\/pushNotificationConfigs\/[^/]+$/),
  pushNotificationConfig: ProtoPushConfigSchema,
});

export const ProtoListPushConfigsSchema = z.strictObject({
  configs: z.array(ProtoTaskPushConfigSchema),
  nextPageToken: z.string(),
});

export const ProtoListTasksSchema = z.strictObject({
  tasks: z.array(ProtoTaskSchema),
  nextPageToken: z.string(),
  pageSize: z.number().int(),
  totalSize: z.number().int(),
});

export type ProtoTaskState = (typeof PROTO_TASK_STATES)[number];
export type ProtoPart = z.infer<typeof ProtoPartSchema>;
export type ProtoMessage = z.infer<typeof ProtoMessageSchema>;
export type ProtoTaskStatus = z.infer<typeof ProtoTaskStatusSchema>;
export type ProtoArtifact = z.infer<typeof ProtoArtifactSchema>;
export type ProtoTask = z.infer<typeof ProtoTaskSchema>;
export type ProtoSendMessageResponse = z.infer<typeof ProtoSendMessageResponseSchema>;
export type ProtoStreamResponse = z.infer<typeof ProtoStreamResponseSchema>;
export type ProtoTaskPushConfig = z.infer<typeof ProtoTaskPushConfigSchema>;
export type ProtoListPushConfigs = z.infer<typeof ProtoListPushConfigsSchema>;
export type ProtoListTasks = z.infer<typeof ProtoListTasksSchema>;
