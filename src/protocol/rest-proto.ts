/**
 * The `proto` REST dialect's one serializer: our A2A objects as the proto-JSON of the v0.3
 * `a2a.proto` (wire reference §3.6), which the official SDK's REST transport parses (it reads
 * `{"task": …}` envelopes, `TASK_STATE_*` names and parts under `content`, and fails on our bare
 * objects). Pure functions over already trusted values: the runtime never sees a dialect.
 */
import type { AgentCard, AgentSkill } from '../agent.js';
import type { SecurityRequirement, SecurityScheme } from '../auth/types.js';
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
} from '../a2a/schemas.js';
import type {
  ProtoArtifact,
  ProtoListPushConfigs,
  ProtoListTasks,
  ProtoMessage,
  ProtoPart,
  ProtoSendMessageResponse,
  ProtoStreamResponse,
  ProtoTask,
  ProtoTaskPushConfig,
  ProtoTaskState,
  ProtoTaskStatus,
} from './proto-schemas.js';

/** The proto spells canceled with two Ls. */
const STATES: Readonly<Record<TaskState, ProtoTaskState>> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELLED',
  rejected: 'TASK_STATE_REJECTED',
};

export const protoState = (state: TaskState): ProtoTaskState => STATES[state];
export const protoRole = (role: Message['role']): ProtoMessage['role'] => (role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT');

export function protoPart(part: Part): ProtoPart {
  const meta = part.metadata !== undefined ? { metadata: part.metadata } : {};
  switch (part.kind) {
    case 'text':
      return { text: part.text, ...meta };
    case 'data':
      // The proto DataPart wraps the object once more.
      return { data: { data: part.data }, ...meta };
    case 'file': {
      const f = part.file;
      const common = { ...(f.mimeType !== undefined ? { mimeType: f.mimeType } : {}), ...(f.name !== undefined ? { name: f.name } : {}) };
      return { file: 'uri' in f ? { fileWithUri: f.uri, ...common } : { fileWithBytes: f.bytes, ...common }, ...meta };
    }
  }
}

export function protoMessage(m: Message): ProtoMessage {
  return {
    messageId: m.messageId,
    ...(m.contextId !== undefined ? { contextId: m.contextId } : {}),
    ...(m.taskId !== undefined ? { taskId: m.taskId } : {}),
    role: protoRole(m.role),
    content: m.parts.map(protoPart),
    ...(m.metadata !== undefined ? { metadata: m.metadata } : {}),
    ...(m.extensions !== undefined ? { extensions: m.extensions } : {}),
    ...(m.referenceTaskIds !== undefined ? { referenceTaskIds: m.referenceTaskIds } : {}),
  };
}

/** `TaskStatus.update` goes by its JSON name `message`, which the SDK reads first. */
export function protoStatus(s: TaskStatus): ProtoTaskStatus {
  return { state: protoState(s.state), ...(s.message ? { message: protoMessage(s.message) } : {}), timestamp: s.timestamp };
}

export function protoArtifact(a: Artifact): ProtoArtifact {
  return {
    artifactId: a.artifactId,
    ...(a.name !== undefined ? { name: a.name } : {}),
    ...(a.description !== undefined ? { description: a.description } : {}),
    parts: a.parts.map(protoPart),
    ...(a.metadata !== undefined ? { metadata: a.metadata } : {}),
    ...(a.extensions !== undefined ? { extensions: a.extensions } : {}),
  };
}

export function protoTask(t: Task): ProtoTask {
  return {
    id: t.id,
    contextId: t.contextId,
    status: protoStatus(t.status),
    ...(t.artifacts ? { artifacts: t.artifacts.map(protoArtifact) } : {}),
    ...(t.history ? { history: t.history.map(protoMessage) } : {}),
    ...(t.metadata !== undefined ? { metadata: t.metadata } : {}),
  };
}

/** `SendMessageResponse`: the oneof names the kind. */
export const protoSendResponse = (r: Task | Message): ProtoSendMessageResponse =>
  r.kind === 'task' ? { task: protoTask(r) } : { message: protoMessage(r) };

/** `StreamResponse`: one SSE frame's data. */
export function protoStreamResponse(e: StreamEvent): ProtoStreamResponse {
  switch (e.kind) {
    case 'task':
      return { task: protoTask(e) };
    case 'message':
      return { message: protoMessage(e) };
    case 'status-update':
      return {
        statusUpdate: {
          taskId: e.taskId,
          contextId: e.contextId,
          status: protoStatus(e.status),
          final: e.final,
          ...(e.metadata !== undefined ? { metadata: e.metadata } : {}),
        },
      };
    case 'artifact-update':
      return {
        artifactUpdate: {
          taskId: e.taskId,
          contextId: e.contextId,
          artifact: protoArtifact(e.artifact),
          ...(e.append !== undefined ? { append: e.append } : {}),
          ...(e.lastChunk !== undefined ? { lastChunk: e.lastChunk } : {}),
          ...(e.metadata !== undefined ? { metadata: e.metadata } : {}),
        },
      };
  }
}

/** The task and config ids travel in the resource name `tasks/{id}/pushNotificationConfigs/{cid}`. */
export function protoPushConfig(c: TaskPushNotificationConfig): ProtoTaskPushConfig {
  const { id, url, token, authentication } = c.pushNotificationConfig;
  // The store always assigns an id; the task id stands in only if a config ever came without one.
  const configId = id ?? c.taskId;
  return {
    name: `tasks/${c.taskId}/pushNotificationConfigs/${configId}`,
    pushNotificationConfig: {
      id: configId,
      url,
      ...(token !== undefined ? { token } : {}),
      ...(authentication !== undefined ? { authentication } : {}),
    },
  };
}

/** `ListTaskPushNotificationConfigResponse`: one page holding every config. */
export const protoPushConfigList = (configs: TaskPushNotificationConfig[]): ProtoListPushConfigs => ({
  configs: configs.map(protoPushConfig),
  nextPageToken: '',
});

/** `GET /v1/tasks` has no v0.3 proto message: its result keeps its fields, with proto tasks. */
export const protoTaskList = (r: ListTasksResult): ProtoListTasks => ({ ...r, tasks: r.tasks.map(protoTask) });

/** Proto `SecurityScheme` is a oneof named by the scheme kind, not a `type` field. */
export function protoSecurityScheme(s: SecurityScheme): Record<string, unknown> {
  switch (s.type) {
    case 'apiKey': {
      const { type: _type, in: location, ...rest } = s;
      return { apiKeySecurityScheme: { ...rest, location } };
    }
    case 'http': {
      const { type: _type, ...rest } = s;
      return { httpAuthSecurityScheme: rest };
    }
    case 'oauth2': {
      const { type: _type, ...rest } = s;
      return { oauth2SecurityScheme: rest };
    }
    case 'openIdConnect': {
      const { type: _type, ...rest } = s;
      return { openIdConnectSecurityScheme: rest };
    }
    case 'mutualTLS': {
      const { type: _type, ...rest } = s;
      return { mtlsSecurityScheme: rest };
    }
  }
}

/** Proto `Security` is `{schemes: {name: {list: scopes}}}`. */
export const protoSecurity = (reqs: SecurityRequirement[]) =>
  reqs.map((req) => ({ schemes: Object.fromEntries(Object.entries(req).map(([name, scopes]) => [name, { list: scopes }])) }));

export type ProtoAgentCard = Omit<AgentCard, 'securitySchemes' | 'security' | 'skills'> & {
  skills: (Omit<AgentSkill, 'security'> & { security?: ReturnType<typeof protoSecurity> })[];
  securitySchemes?: Record<string, Record<string, unknown>>;
  security?: ReturnType<typeof protoSecurity>;
};

/** The extended card (`GET /v1/card`): only the security declarations differ in proto-JSON. */
export function protoCard(card: AgentCard): ProtoAgentCard {
  const { securitySchemes, security, skills, ...rest } = card;
  return {
    ...rest,
    skills: skills.map(({ security: s, ...skill }) => ({ ...skill, ...(s ? { security: protoSecurity(s) } : {}) })),
    ...(securitySchemes
      ? { securitySchemes: Object.fromEntries(Object.entries(securitySchemes).map(([k, v]) => [k, protoSecurityScheme(v)])) }
      : {}),
    ...(security ? { security: protoSecurity(security) } : {}),
  };
}
