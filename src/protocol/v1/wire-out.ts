/**
 * Our A2A objects as A2A v1.0 proto-JSON (`a2a.proto`, package `lf.a2a.v1`): no `kind` fields,
 * parts named by their content (`text`, `raw`, `url`, `data`), `TASK_STATE_*` and `ROLE_*` enum
 * names, flat push configs, and oneof envelopes (`{task}`, `{statusUpdate}`, …) for results and
 * stream frames. Pure functions over trusted values: the runtime never sees a version.
 */
import type {
  Artifact,
  ListTasksResult,
  Message,
  Part,
  StreamEvent,
  Task,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatus,
} from '../../a2a/schemas.js';

export type V1TaskState =
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_AUTH_REQUIRED'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED'
  | 'TASK_STATE_REJECTED';
export type V1Role = 'ROLE_USER' | 'ROLE_AGENT';

type Meta = { metadata?: Record<string, unknown> };

export type V1Part = Meta &
  ({ text: string } | { raw: string } | { url: string } | { data: unknown }) & {
    mediaType?: string;
    filename?: string;
  };

export interface V1Message extends Meta {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: V1Role;
  parts: V1Part[];
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface V1TaskStatus {
  state: V1TaskState;
  message?: V1Message;
  timestamp?: string;
}

export interface V1Artifact extends Meta {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V1Part[];
  extensions?: string[];
}

export interface V1Task extends Meta {
  id: string;
  contextId: string;
  status: V1TaskStatus;
  artifacts?: V1Artifact[];
  history?: V1Message[];
}

export type V1StreamResponse =
  | { task: V1Task }
  | { message: V1Message }
  | { statusUpdate: Meta & { taskId: string; contextId: string; status: V1TaskStatus } }
  | {
      artifactUpdate: Meta & { taskId: string; contextId: string; artifact: V1Artifact; append?: boolean; lastChunk?: boolean };
    };

export interface V1PushConfig {
  tenant?: string;
  id: string;
  taskId: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

export interface V1ListTasksResponse {
  tasks: V1Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

const STATES: Readonly<Record<TaskState, V1TaskState>> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELED',
  rejected: 'TASK_STATE_REJECTED',
};

export const v1State = (state: TaskState): V1TaskState => STATES[state];

/** The v1.0 name of each state, back to ours (ListTasks' `status` filter). */
export const STATE_OF_V1: ReadonlyMap<string, TaskState> = new Map(Object.entries(STATES).map(([ours, v1]) => [v1, ours as TaskState]));

const meta = (m: Record<string, unknown> | undefined): Meta => (m !== undefined ? { metadata: m } : {});

export function v1Part(part: Part): V1Part {
  switch (part.kind) {
    case 'text':
      return { text: part.text, ...meta(part.metadata) };
    case 'data':
      return { data: part.data, ...meta(part.metadata) };
    case 'file': {
      const f = part.file;
      const described = {
        ...(f.mimeType !== undefined ? { mediaType: f.mimeType } : {}),
        ...(f.name !== undefined ? { filename: f.name } : {}),
      };
      return 'uri' in f ? { url: f.uri, ...described, ...meta(part.metadata) } : { raw: f.bytes, ...described, ...meta(part.metadata) };
    }
  }
}

export function v1Message(m: Message): V1Message {
  return {
    messageId: m.messageId,
    ...(m.contextId !== undefined ? { contextId: m.contextId } : {}),
    ...(m.taskId !== undefined ? { taskId: m.taskId } : {}),
    role: m.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
    parts: m.parts.map(v1Part),
    ...meta(m.metadata),
    ...(m.extensions !== undefined ? { extensions: m.extensions } : {}),
    ...(m.referenceTaskIds !== undefined ? { referenceTaskIds: m.referenceTaskIds } : {}),
  };
}

export const v1Status = (s: TaskStatus): V1TaskStatus => ({
  state: v1State(s.state),
  ...(s.message ? { message: v1Message(s.message) } : {}),
  timestamp: s.timestamp,
});

export const v1Artifact = (a: Artifact): V1Artifact => ({
  artifactId: a.artifactId,
  ...(a.name !== undefined ? { name: a.name } : {}),
  ...(a.description !== undefined ? { description: a.description } : {}),
  parts: a.parts.map(v1Part),
  ...meta(a.metadata),
  ...(a.extensions !== undefined ? { extensions: a.extensions } : {}),
});

export const v1Task = (t: Task): V1Task => ({
  id: t.id,
  contextId: t.contextId,
  status: v1Status(t.status),
  ...(t.artifacts ? { artifacts: t.artifacts.map(v1Artifact) } : {}),
  ...(t.history ? { history: t.history.map(v1Message) } : {}),
  ...meta(t.metadata),
});

/** `SendMessageResponse`: the oneof names what came back. */
export const v1SendResponse = (r: Task | Message): { task: V1Task } | { message: V1Message } =>
  r.kind === 'task' ? { task: v1Task(r) } : { message: v1Message(r) };

/** `StreamResponse`: one stream frame, one push delivery. A status update has no `final`: the stream just ends. */
export function v1StreamResponse(e: StreamEvent): V1StreamResponse {
  switch (e.kind) {
    case 'task':
      return { task: v1Task(e) };
    case 'message':
      return { message: v1Message(e) };
    case 'status-update':
      return { statusUpdate: { taskId: e.taskId, contextId: e.contextId, status: v1Status(e.status), ...meta(e.metadata) } };
    case 'artifact-update':
      return {
        artifactUpdate: {
          taskId: e.taskId,
          contextId: e.contextId,
          artifact: v1Artifact(e.artifact),
          ...(e.append !== undefined ? { append: e.append } : {}),
          ...(e.lastChunk !== undefined ? { lastChunk: e.lastChunk } : {}),
          ...meta(e.metadata),
        },
      };
  }
}

/** A flat `TaskPushNotificationConfig`; `tenant` echoes the request's. */
export function v1PushConfig(c: TaskPushNotificationConfig, tenant: string | undefined): V1PushConfig {
  const { id, url, token, authentication } = c.pushNotificationConfig;
  return {
    ...(tenant ? { tenant } : {}),
    // The store always assigns an id; the task id stands in only if a config ever came without one.
    id: id ?? c.taskId,
    taskId: c.taskId,
    url,
    ...(token !== undefined ? { token } : {}),
    ...(authentication !== undefined
      ? {
          authentication: {
            scheme: authentication.schemes[0] ?? '',
            ...(authentication.credentials !== undefined ? { credentials: authentication.credentials } : {}),
          },
        }
      : {}),
  };
}

export const v1TaskList = (r: ListTasksResult): V1ListTasksResponse => ({
  tasks: r.tasks.map(v1Task),
  nextPageToken: r.nextPageToken,
  pageSize: r.pageSize,
  totalSize: r.totalSize,
});
