/**
 * The A2A v1.0 codec (src/protocol/v1/): proto-JSON in (wire-in.ts), proto-JSON out
 * (wire-out.ts) and the error table's v1.0 rendering (errors.ts). What goes in and comes back
 * out must be the same object, every enum name must be the proto's, and every entry of the one
 * error table must have its spec reason and status (spec §5.4, §11.6).
 */
import { describe, expect, it } from 'vitest';
import { a2aError, ERRORS, isA2AError, type A2AError, type ErrorName } from '../../src/a2a/errors.js';
import type { Message, Part, StreamEvent, Task, TaskPushNotificationConfig, TaskState } from '../../src/a2a/schemas.js';
import { errorDetails, reasonOf, restErrorV1, restStatusV1, rpcErrorBody } from '../../src/protocol/v1/errors.js';
import { camelKeys, listTasksParamsOf, pushConfigOf, sendParamsOf } from '../../src/protocol/v1/wire-in.js';
import {
  STATE_OF_V1,
  v1Message,
  v1Part,
  v1PushConfig,
  v1SendResponse,
  v1State,
  v1StreamResponse,
  v1Task,
} from '../../src/protocol/v1/wire-out.js';

/** What `fn` threw, as an A2AError (fails if it threw something else or nothing). */
function thrown(fn: () => unknown): A2AError {
  try {
    fn();
  } catch (err) {
    if (isA2AError(err)) return err;
    throw err;
  }
  throw new Error('expected an A2AError');
}

const send = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  message: { messageId: 'm1', role: 'ROLE_USER', parts, ...extra },
});

/** One of each part kind, ours and v1.0's, with every optional field each can carry. */
const PARTS: { kind: string; ours: Part; v1: unknown }[] = [
  { kind: 'text', ours: { kind: 'text', text: 'hello', metadata: { lang: 'en' } }, v1: { text: 'hello', metadata: { lang: 'en' } } },
  {
    kind: 'raw bytes',
    ours: { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
    v1: { raw: 'aGk=', mediaType: 'text/plain', filename: 'hi.txt' },
  },
  {
    kind: 'url',
    ours: { kind: 'file', file: { uri: 'https://127.0.0.1/p.png', mimeType: 'image/png' } },
    v1: { url: 'https://127.0.0.1/p.png', mediaType: 'image/png' },
  },
  {
    kind: 'data',
    ours: { kind: 'data', data: { answer: 42, nested: { list: [1, 2] } } },
    v1: { data: { answer: 42, nested: { list: [1, 2] } } },
  },
];

const STATES: [TaskState, string][] = [
  ['submitted', 'TASK_STATE_SUBMITTED'],
  ['working', 'TASK_STATE_WORKING'],
  ['input-required', 'TASK_STATE_INPUT_REQUIRED'],
  ['auth-required', 'TASK_STATE_AUTH_REQUIRED'],
  ['completed', 'TASK_STATE_COMPLETED'],
  ['failed', 'TASK_STATE_FAILED'],
  ['canceled', 'TASK_STATE_CANCELED'],
  ['rejected', 'TASK_STATE_REJECTED'],
];

const task = (over: Partial<Task> = {}): Task => ({
  kind: 'task',
  id: 't1',
  contextId: 'c1',
  status: { state: 'completed', timestamp: '2026-01-01T00:00:00.000Z' },
  ...over,
});

describe('parts', () => {
  it.each(PARTS)('a $kind part is written as v1.0 writes it', ({ ours, v1 }) => {
    expect(v1Part(ours)).toEqual(v1);
  });

  it.each(PARTS)('a $kind part sent in v1.0 is read as ours', ({ ours, v1 }) => {
    expect(sendParamsOf(send([v1])).message.parts).toEqual([ours]);
  });

  it('empty mediaType and filename are proto3 defaults, i.e. absent', () => {
    expect(sendParamsOf(send([{ raw: 'aGk=', mediaType: '', filename: '' }])).message.parts).toEqual([
      { kind: 'file', file: { bytes: 'aGk=' } },
    ]);
  });

  it.each([
    ['no content', {}],
    ['two contents', { text: 'a', url: 'https://127.0.0.1/x' }],
  ])('a part with %s is invalid params', (_name, part) => {
    expect(thrown(() => sendParamsOf(send([part]))).entry).toBe(ERRORS.invalidParams);
  });

  it('data that is not an object is refused by name (our parts keep data as an object)', () => {
    const err = thrown(() => sendParamsOf(send([{ text: 'x' }, { data: [1, 2] }])));
    expect(err.entry).toBe(ERRORS.invalidParams);
    expect(err.message).toContain('message.parts[1].data');
  });
});

describe('messages and roles', () => {
  it('a v1.0 user message becomes ours; "" ids are absent; returnImmediately absent means blocking', () => {
    const params = sendParamsOf({
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], contextId: '', taskId: '', referenceTaskIds: ['t0'] },
      configuration: { acceptedOutputModes: ['text/plain'], historyLength: 2 },
      metadata: { k: 'v' },
    });
    expect(params).toEqual({
      message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }], referenceTaskIds: ['t0'] },
      configuration: { blocking: true, acceptedOutputModes: ['text/plain'], historyLength: 2 },
      metadata: { k: 'v' },
    });
  });

  it('returnImmediately: true is a non-blocking send', () => {
    expect(sendParamsOf({ ...send([{ text: 'x' }]), configuration: { returnImmediately: true } }).configuration?.blocking).toBe(false);
  });

  it('the role is read by name or by number, and only a user may send', () => {
    expect(sendParamsOf(send([{ text: 'x' }], { role: 1 })).message.role).toBe('user');
    expect(thrown(() => sendParamsOf(send([{ text: 'x' }], { role: 'ROLE_AGENT' }))).entry).toBe(ERRORS.invalidParams);
    expect(thrown(() => sendParamsOf(send([{ text: 'x' }], { role: 'user' }))).entry).toBe(ERRORS.invalidParams);
  });

  it('a missing or empty messageId and no parts are invalid params (v1.0 has no -32600 case for them)', () => {
    expect(thrown(() => sendParamsOf({ message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } })).entry).toBe(ERRORS.invalidParams);
    expect(thrown(() => sendParamsOf({ message: { messageId: '', role: 'ROLE_USER', parts: [{ text: 'x' }] } })).entry).toBe(
      ERRORS.invalidParams,
    );
    expect(thrown(() => sendParamsOf(send([]))).entry).toBe(ERRORS.invalidParams);
  });

  it('our messages are written with ROLE_* names and no kind', () => {
    const agent: Message = {
      kind: 'message',
      messageId: 'a1',
      role: 'agent',
      parts: [{ kind: 'text', text: 'yo' }],
      taskId: 't1',
      contextId: 'c1',
    };
    expect(v1Message(agent)).toEqual({ messageId: 'a1', role: 'ROLE_AGENT', parts: [{ text: 'yo' }], taskId: 't1', contextId: 'c1' });
    expect(v1Message({ ...agent, role: 'user' }).role).toBe('ROLE_USER');
  });
});

describe('states', () => {
  it.each(STATES)('%s is %s, and back', (ours, v1) => {
    expect(v1State(ours)).toBe(v1);
    expect(STATE_OF_V1.get(v1)).toBe(ours);
  });

  it('every state of ours has a v1.0 name', () => {
    expect(STATE_OF_V1.size).toBe(STATES.length);
  });
});

describe('tasks, send results and stream frames', () => {
  it('a task loses kind and keeps everything else, in v1.0 names', () => {
    const t = task({
      artifacts: [{ artifactId: 'a', name: 'answer', parts: [{ kind: 'text', text: '42' }] }],
      history: [{ kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'q' }] }],
      metadata: { m: 1 },
    });
    expect(v1Task(t)).toEqual({
      id: 't1',
      contextId: 'c1',
      status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:00.000Z' },
      artifacts: [{ artifactId: 'a', name: 'answer', parts: [{ text: '42' }] }],
      history: [{ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'q' }] }],
      metadata: { m: 1 },
    });
  });

  it('a send result is the oneof that came back', () => {
    expect(Object.keys(v1SendResponse(task()))).toEqual(['task']);
    const reply: Message = { kind: 'message', messageId: 'r', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] };
    expect(v1SendResponse(reply)).toEqual({ message: { messageId: 'r', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } });
  });

  it('a status update has no final and no kind; an artifact update keeps append and lastChunk', () => {
    const status: StreamEvent = {
      kind: 'status-update',
      taskId: 't1',
      contextId: 'c1',
      status: { state: 'working', timestamp: '2026-01-01T00:00:00.000Z' },
      final: false,
    };
    expect(v1StreamResponse(status)).toEqual({
      statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:00.000Z' } },
    });
    const artifact: StreamEvent = {
      kind: 'artifact-update',
      taskId: 't1',
      contextId: 'c1',
      artifact: { artifactId: 's', parts: [{ kind: 'text', text: 'chunk' }] },
      append: true,
      lastChunk: false,
    };
    expect(v1StreamResponse(artifact)).toEqual({
      artifactUpdate: {
        taskId: 't1',
        contextId: 'c1',
        artifact: { artifactId: 's', parts: [{ text: 'chunk' }] },
        append: true,
        lastChunk: false,
      },
    });
    expect(Object.keys(v1StreamResponse(task()))).toEqual(['task']);
  });
});

describe('push configs', () => {
  const ours: TaskPushNotificationConfig = {
    taskId: 't1',
    pushNotificationConfig: {
      id: 'p1',
      url: 'http://127.0.0.1:9/hook',
      token: 'tok',
      authentication: { schemes: ['Bearer'], credentials: 'cred' },
    },
  };
  const flat = {
    id: 'p1',
    taskId: 't1',
    url: 'http://127.0.0.1:9/hook',
    token: 'tok',
    authentication: { scheme: 'Bearer', credentials: 'cred' },
  };

  it('ours is written flat, the one scheme named, the tenant echoed when there is one', () => {
    expect(v1PushConfig(ours, undefined)).toEqual(flat);
    expect(v1PushConfig(ours, 'acme')).toEqual({ tenant: 'acme', ...flat });
  });

  it('a flat one is read as ours, and reads back as it was written', () => {
    const read = pushConfigOf({ tenant: 'acme', ...flat });
    expect(read).toEqual({ taskId: 't1', config: ours.pushNotificationConfig });
    expect(v1PushConfig({ taskId: read.taskId, pushNotificationConfig: read.config }, undefined)).toEqual(flat);
  });

  it('the path names the task over the body; without either it is invalid params', () => {
    expect(pushConfigOf({ ...flat, taskId: 'other' }, 't1').taskId).toBe('t1');
    const { taskId: _taskId, ...withoutTask } = flat;
    expect(thrown(() => pushConfigOf(withoutTask)).entry).toBe(ERRORS.invalidParams);
  });

  it('"" token, id and scheme are proto3 defaults: absent', () => {
    const { config } = pushConfigOf({
      taskId: 't1',
      url: 'http://127.0.0.1:9/hook',
      id: '',
      token: '',
      authentication: { scheme: '', credentials: '' },
    });
    expect(config).toEqual({ url: 'http://127.0.0.1:9/hook' });
  });

  it('a scheme without credentials is kept without them', () => {
    const { config } = pushConfigOf({ taskId: 't1', url: 'http://127.0.0.1:9/hook', authentication: { scheme: 'Basic' } });
    expect(config.authentication).toEqual({ schemes: ['Basic'] });
  });
});

describe('ListTasks params', () => {
  it('status is read by its v1.0 name or number; UNSPECIFIED is no filter', () => {
    expect(listTasksParamsOf({ status: 'TASK_STATE_COMPLETED' })).toEqual({ status: 'completed' });
    expect(listTasksParamsOf({ status: 3 })).toEqual({ status: 'completed' });
    expect(listTasksParamsOf({ status: 'TASK_STATE_UNSPECIFIED' })).toEqual({});
  });

  it.each(['completed', 'DONE', 99])('status %j is invalid params', (status) => {
    expect(thrown(() => listTasksParamsOf({ status })).entry).toBe(ERRORS.invalidParams);
  });

  it('pageSize is passed on for the operation to check, an explicit 0 too (page_size has presence)', () => {
    expect(listTasksParamsOf({ pageSize: 0 })).toEqual({ pageSize: 0 });
    expect(listTasksParamsOf({ pageSize: 7 })).toEqual({ pageSize: 7 });
  });

  it('fields are read by their proto names too, free-form keys kept as sent', () => {
    expect(listTasksParamsOf({ context_id: 'c', page_size: 5, include_artifacts: true })).toEqual({
      contextId: 'c',
      pageSize: 5,
      includeArtifacts: true,
    });
    const params = sendParamsOf({ message: { message_id: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { a_b: 1 } } });
    expect(params.message).toMatchObject({ messageId: 'm', metadata: { a_b: 1 } });
  });

  it('a __proto__ key beside a renamed one stays a key, never the prototype', () => {
    const renamed = camelKeys(JSON.parse('{"message_id":"m","__proto__":{"role":"ROLE_USER"}}')) as Record<string, unknown>;
    expect(renamed.messageId).toBe('m');
    expect(Object.getPrototypeOf(renamed)).toBe(null);
    expect(Object.hasOwn(renamed, '__proto__')).toBe(true);
    expect('role' in renamed).toBe(false);
  });

  it('empty strings are absent fields; the rest are passed on', () => {
    expect(listTasksParamsOf({ contextId: '', pageToken: '', statusTimestampAfter: '', tenant: '' })).toEqual({});
    expect(
      listTasksParamsOf({
        contextId: 'c',
        pageToken: 'p',
        statusTimestampAfter: '2026-01-01T00:00:00Z',
        historyLength: 0,
        includeArtifacts: true,
      }),
    ).toEqual({ contextId: 'c', pageToken: 'p', statusTimestampAfter: '2026-01-01T00:00:00Z', historyLength: 0, includeArtifacts: true });
  });
});

describe('errors', () => {
  /** Every entry of the one table: its ErrorInfo reason, v1.0 HTTP status and google.rpc status (spec §5.4). */
  // prettier-ignore
  const V1_ERRORS: Record<ErrorName, [string, number, string]> = {
    parseError: ['JSON_PARSE', 400, 'INVALID_ARGUMENT'],
    invalidRequest: ['INVALID_REQUEST', 400, 'INVALID_ARGUMENT'],
    payloadTooLarge: ['INVALID_REQUEST', 413, 'RESOURCE_EXHAUSTED'],
    malformedHttp: ['INVALID_REQUEST', 400, 'INVALID_ARGUMENT'],
    // A body that is not JSON at all is refused at the HTTP level; a part's media type would be 400.
    unsupportedMediaType: ['CONTENT_TYPE_NOT_SUPPORTED', 415, 'INVALID_ARGUMENT'],
    outputNotAccepted: ['CONTENT_TYPE_NOT_SUPPORTED', 400, 'INVALID_ARGUMENT'],
    methodNotFound: ['METHOD_NOT_FOUND', 404, 'UNIMPLEMENTED'],
    invalidParams: ['INVALID_PARAMS', 400, 'INVALID_ARGUMENT'],
    contextMismatch: ['INVALID_PARAMS', 400, 'INVALID_ARGUMENT'],
    taskNotAcceptingMessages: ['INVALID_PARAMS', 400, 'FAILED_PRECONDITION'],
    internal: ['INTERNAL', 500, 'INTERNAL'],
    notInitialized: ['UNAVAILABLE', 503, 'UNAVAILABLE'],
    unavailable: ['UNAVAILABLE', 503, 'UNAVAILABLE'],
    unauthenticated: ['UNAUTHENTICATED', 401, 'UNAUTHENTICATED'],
    forbidden: ['PERMISSION_DENIED', 403, 'PERMISSION_DENIED'],
    taskNotFound: ['TASK_NOT_FOUND', 404, 'NOT_FOUND'],
    pushConfigNotFound: ['TASK_NOT_FOUND', 404, 'NOT_FOUND'],
    pushConfigLimit: ['INVALID_PARAMS', 400, 'RESOURCE_EXHAUSTED'],
    jsonTooDeep: ['INVALID_PARAMS', 400, 'INVALID_ARGUMENT'],
    contentTooLarge: ['INVALID_PARAMS', 413, 'RESOURCE_EXHAUSTED'],
    tooManyRequests: ['RESOURCE_EXHAUSTED', 429, 'RESOURCE_EXHAUSTED'],
    taskNotCancelable: ['TASK_NOT_CANCELABLE', 400, 'FAILED_PRECONDITION'],
    pushNotSupported: ['PUSH_NOTIFICATION_NOT_SUPPORTED', 400, 'FAILED_PRECONDITION'],
    streamingNotSupported: ['UNSUPPORTED_OPERATION', 400, 'FAILED_PRECONDITION'],
    taskTerminal: ['UNSUPPORTED_OPERATION', 400, 'FAILED_PRECONDITION'],
    subscribeTerminal: ['UNSUPPORTED_OPERATION', 400, 'FAILED_PRECONDITION'],
    extendedCardNotConfigured: ['EXTENDED_AGENT_CARD_NOT_CONFIGURED', 400, 'FAILED_PRECONDITION'],
    extensionRequired: ['EXTENSION_SUPPORT_REQUIRED', 400, 'FAILED_PRECONDITION'],
    versionNotSupported: ['VERSION_NOT_SUPPORTED', 400, 'FAILED_PRECONDITION'],
  };

  it('the table above names every entry of ERRORS', () => {
    expect(Object.keys(V1_ERRORS).sort()).toEqual(Object.keys(ERRORS).sort());
  });

  it.each(Object.entries(V1_ERRORS))('%s is %j', (name, [reason, status, grpc]) => {
    const err = a2aError(name as ErrorName, 'detail');
    expect(reasonOf(err)).toBe(reason);
    expect(restStatusV1(err)).toBe(status);
    const reply = restErrorV1(err);
    expect(reply).toMatchObject({ kind: 'json', status, contentType: 'application/a2a+json' });
    expect(JSON.parse(String((reply as { body: unknown }).body))).toEqual({
      error: {
        code: status,
        status: grpc,
        message: `${err.entry.message}: detail`,
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }],
      },
    });
    expect(rpcErrorBody(err)).toEqual({
      code: err.entry.code,
      message: err.message,
      data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }],
    });
  });

  it('A2A errors have the statuses of the spec table (§5.4)', () => {
    expect(restStatusV1(a2aError('taskNotFound'))).toBe(404);
    for (const name of [
      'taskNotCancelable',
      'pushNotSupported',
      'streamingNotSupported',
      'extendedCardNotConfigured',
      'extensionRequired',
      'versionNotSupported',
    ] as const)
      expect(restStatusV1(a2aError(name)), name).toBe(400);
  });

  it('validation issues add a BadRequest with one field violation each', () => {
    const err = thrown(() => sendParamsOf(send([])));
    expect(errorDetails(err)).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_PARAMS', domain: 'a2a-protocol.org' },
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [{ field: 'message.parts', description: expect.stringMatching(/empty/) }],
      },
    ]);
  });

  it('an entry this copy of the library does not know is a plain 500 INTERNAL', () => {
    const alien = a2aError('internal');
    Object.defineProperty(alien, 'entry', { value: { id: 'fromTheFuture', code: -32099, type: 'FutureError', message: 'x' } });
    expect(restStatusV1(alien)).toBe(500);
    expect(reasonOf(alien)).toBe('FUTURE');
  });
});
