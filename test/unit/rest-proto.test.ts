/**
 * The proto dialect's serializer: every object kind, state, role and part kind, each checked
 * against its proto-JSON schema and against the reading of the official SDK 0.3.14 (its REST
 * transport's `fromJSON` + `FromProto`), so "what we write" and "what it reads back" agree.
 */
import { RestTransport } from '@a2a-js/sdk/client';
import { describe, expect, it } from 'vitest';
import type { AgentCard } from '../../src/agent.js';
import type { Message, Part, StreamEvent, Task, TaskState } from '../../src/a2a/schemas.js';
import {
  ProtoListPushConfigsSchema,
  ProtoMessageSchema,
  ProtoSendMessageResponseSchema,
  ProtoStreamResponseSchema,
  ProtoTaskPushConfigSchema,
  ProtoTaskSchema,
} from '../../src/protocol/proto-schemas.js';
import {
  protoCard,
  protoMessage,
  protoPart,
  protoPushConfig,
  protoPushConfigList,
  protoRole,
  protoSendResponse,
  protoState,
  protoStreamResponse,
  protoTask,
  protoTaskList,
} from '../../src/protocol/rest-proto.js';
import { TASK_STATES } from '../../machines/task.machine.js';

/** The SDK's own reading of one SSE frame (proto StreamResponse -> A2A object). */
const sdkReadsFrame = (frame: unknown): unknown =>
  (RestTransport.prototype as unknown as { _processSseEventData(d: string): unknown })._processSseEventData(JSON.stringify(frame));

const TS = '2025-07-30T10:00:00.000Z';

const text: Part = { kind: 'text', text: 'hi' };
const bytes: Part = { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } };
const uri: Part = { kind: 'file', file: { uri: 'https://example.com/a.png', mimeType: 'image/png' } };
const data: Part = { kind: 'data', data: { answer: 42, nested: { data: 1 } }, metadata: { mediaType: 'application/json' } };

const agentMessage: Message = {
  kind: 'message',
  role: 'agent',
  messageId: 'm2',
  taskId: 't1',
  contextId: 'c1',
  parts: [text],
};
const userMessage: Message = {
  kind: 'message',
  role: 'user',
  messageId: 'm1',
  taskId: 't1',
  contextId: 'c1',
  parts: [text, bytes, uri, data],
};

const task = (state: TaskState, extra: Partial<Task> = {}): Task => ({
  kind: 'task',
  id: 't1',
  contextId: 'c1',
  status: { state, timestamp: TS },
  ...extra,
});

describe('proto serializer', () => {
  it('names every task state TASK_STATE_*, canceled with two Ls', () => {
    expect(TASK_STATES.map(protoState)).toEqual([
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_AUTH_REQUIRED',
      'TASK_STATE_COMPLETED',
      'TASK_STATE_FAILED',
      'TASK_STATE_CANCELLED',
      'TASK_STATE_REJECTED',
    ]);
    // Each state comes back as itself through the SDK's reading.
    for (const state of TASK_STATES) {
      expect((sdkReadsFrame({ task: protoTask(task(state)) }) as Task).status.state).toBe(state);
    }
  });

  it('names both roles ROLE_*', () => {
    expect(protoRole('user')).toBe('ROLE_USER');
    expect(protoRole('agent')).toBe('ROLE_AGENT');
  });

  it('writes each part kind as the proto oneof', () => {
    expect(protoPart(text)).toEqual({ text: 'hi' });
    expect(protoPart(bytes)).toEqual({ file: { fileWithBytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } });
    expect(protoPart(uri)).toEqual({ file: { fileWithUri: 'https://example.com/a.png', mimeType: 'image/png' } });
    // The data object is wrapped once more, and a `data` key inside it is left alone.
    expect(protoPart(data)).toEqual({ data: { data: { answer: 42, nested: { data: 1 } } }, metadata: { mediaType: 'application/json' } });
  });

  it('writes a message with its parts under `content`, and the SDK reads the same message back', () => {
    const m = protoMessage({ ...userMessage, metadata: { k: 1 }, extensions: ['urn:x'], referenceTaskIds: ['t0'] });
    ProtoMessageSchema.parse(m);
    expect(m).toEqual({
      messageId: 'm1',
      taskId: 't1',
      contextId: 'c1',
      role: 'ROLE_USER',
      content: [
        { text: 'hi' },
        { file: { fileWithBytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
        { file: { fileWithUri: 'https://example.com/a.png', mimeType: 'image/png' } },
        { data: { data: { answer: 42, nested: { data: 1 } } }, metadata: { mediaType: 'application/json' } },
      ],
      metadata: { k: 1 },
      extensions: ['urn:x'],
      referenceTaskIds: ['t0'],
    });
    const read = sdkReadsFrame({ message: m }) as Message;
    expect(read).toMatchObject({ kind: 'message', role: 'user', messageId: 'm1', taskId: 't1', contextId: 'c1', metadata: { k: 1 } });
    // The 0.3 proto's FilePart has no name, and its Part no metadata: the SDK drops those.
    expect(read.parts).toEqual([
      text,
      { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain' } },
      { kind: 'file', file: { uri: 'https://example.com/a.png', mimeType: 'image/png' } },
      { kind: 'data', data: { answer: 42, nested: { data: 1 } } },
    ]);
  });

  it('writes a task: the status message under `status.message`, history, artifacts, metadata', () => {
    const t = task('input-required', {
      status: { state: 'input-required', timestamp: TS, message: agentMessage },
      history: [userMessage, agentMessage],
      artifacts: [{ artifactId: 'a1', name: 'answer', description: 'd', parts: [text, data], metadata: { m: 1 } }],
      metadata: { stateTransitions: [{ state: 'submitted', timestamp: TS }] },
    });
    const p = protoTask(t);
    ProtoTaskSchema.parse(p);
    expect(p.status).toEqual({ state: 'TASK_STATE_INPUT_REQUIRED', timestamp: TS, message: protoMessage(agentMessage) });
    expect(p.history?.map((m) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT']);
    expect(p.artifacts).toEqual([
      { artifactId: 'a1', name: 'answer', description: 'd', parts: [{ text: 'hi' }, protoPart(data)], metadata: { m: 1 } },
    ]);
    expect(p.metadata).toEqual(t.metadata);
    const read = sdkReadsFrame({ task: p }) as Task;
    expect(read.status.message?.parts).toEqual([text]);
    expect(read.status.message?.role).toBe('agent');
    expect(read.artifacts?.[0]?.name).toBe('answer');
  });

  it('wraps a send result by its kind', () => {
    const asTask = protoSendResponse(task('completed'));
    const asMessage = protoSendResponse(agentMessage);
    ProtoSendMessageResponseSchema.parse(asTask);
    ProtoSendMessageResponseSchema.parse(asMessage);
    expect(Object.keys(asTask)).toEqual(['task']);
    expect(Object.keys(asMessage)).toEqual(['message']);
  });

  it('wraps each stream event by its kind, and the SDK reads each back as that event', () => {
    const events: StreamEvent[] = [
      task('submitted'),
      agentMessage,
      { kind: 'status-update', taskId: 't1', contextId: 'c1', status: { state: 'completed', timestamp: TS }, final: true },
      {
        kind: 'artifact-update',
        taskId: 't1',
        contextId: 'c1',
        artifact: { artifactId: 'a1', parts: [text] },
        append: true,
        lastChunk: true,
      },
    ];
    const frames = events.map(protoStreamResponse);
    for (const f of frames) ProtoStreamResponseSchema.parse(f);
    expect(frames.map((f) => Object.keys(f)[0])).toEqual(['task', 'message', 'statusUpdate', 'artifactUpdate']);
    expect(frames[2]).toEqual({
      statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED', timestamp: TS }, final: true },
    });
    expect(frames[3]).toEqual({
      artifactUpdate: {
        taskId: 't1',
        contextId: 'c1',
        artifact: { artifactId: 'a1', parts: [{ text: 'hi' }] },
        append: true,
        lastChunk: true,
      },
    });
    expect(frames.map((f) => (sdkReadsFrame(f) as { kind: string }).kind)).toEqual(['task', 'message', 'status-update', 'artifact-update']);
    expect(sdkReadsFrame(frames[2])).toMatchObject({ final: true, status: { state: 'completed' } });
  });

  it('names a push config by its resource name; a list is {configs, nextPageToken}', () => {
    const c = {
      taskId: 't1',
      pushNotificationConfig: { id: 'h1', url: 'https://example.com/hook', token: 'x', authentication: { schemes: ['Bearer'] } },
    };
    const p = protoPushConfig(c);
    ProtoTaskPushConfigSchema.parse(p);
    expect(p).toEqual({ name: 'tasks/t1/pushNotificationConfigs/h1', pushNotificationConfig: c.pushNotificationConfig });
    const list = protoPushConfigList([c]);
    ProtoListPushConfigsSchema.parse(list);
    expect(list).toEqual({ configs: [p], nextPageToken: '' });
  });

  it('keeps the task list fields and writes its tasks in proto-JSON', () => {
    const r = protoTaskList({ tasks: [task('working')], nextPageToken: 'n', pageSize: 1, totalSize: 3 });
    expect(r).toEqual({ tasks: [protoTask(task('working'))], nextPageToken: 'n', pageSize: 1, totalSize: 3 });
  });

  it('writes the card security declarations as proto oneofs and string lists', () => {
    const card: AgentCard = {
      protocolVersion: '0.3.0',
      name: 'A',
      description: 'd',
      version: '1',
      url: 'http://127.0.0.1:1',
      preferredTransport: 'HTTP+JSON',
      additionalInterfaces: [],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      supportsAuthenticatedExtendedCard: false,
      skills: [{ id: 's', name: 'S', description: 'd', tags: [], security: [{ oauth: ['read'] }] }],
      securitySchemes: {
        key: { type: 'apiKey', in: 'header', name: 'X-Key' },
        bearer: { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' },
        oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://example.com/t', scopes: { read: 'r' } } } },
        oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://example.com/.well-known/openid-configuration' },
        mtls: { type: 'mutualTLS' },
      },
      security: [{ bearer: [] }, { key: [], oauth: ['read'] }],
    };
    const p = protoCard(card);
    expect(p.securitySchemes).toEqual({
      key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
      oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://example.com/t', scopes: { read: 'r' } } } } },
      oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://example.com/.well-known/openid-configuration' } },
      mtls: { mtlsSecurityScheme: {} },
    });
    expect(p.security).toEqual([{ schemes: { bearer: { list: [] } } }, { schemes: { key: { list: [] }, oauth: { list: ['read'] } } }]);
    expect(p.skills[0]?.security).toEqual([{ schemes: { oauth: { list: ['read'] } } }]);
    // A card without security has none in proto-JSON either, and is otherwise the same object.
    const { securitySchemes: _s, security: _q, ...plain } = card;
    expect(protoCard({ ...plain, skills: [{ id: 's', name: 'S', description: 'd', tags: [] }] })).toEqual({
      ...plain,
      skills: [{ id: 's', name: 'S', description: 'd', tags: [] }],
    });
  });
});
