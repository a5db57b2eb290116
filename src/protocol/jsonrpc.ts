/**
 * JSON-RPC 2.0 at `POST /` (wire reference §2). Validation order: parse (-32700), envelope
 * (-32600), method (-32601), params (-32602), then the method's own A2A errors. Errors are
 * HTTP 200 except the version check (400) and authentication (401).
 */
import type { IncomingRequest } from '../agent.js';
import type { Caller, Operation } from '../auth/types.js';
import type { Admission } from './admission.js';
import { promiseOf } from '../promise-of.js';
import type { Logger } from '../log.js';
import { A2AError, a2aError, errorBody, ERRORS, shown } from '../a2a/errors.js';
import { rpcStatus } from './error-status.js';
import type { Operations } from './operations.js';
import { isObject } from './params.js';
import { toJsonText } from './json-text.js';
import { toA2AError, type Reply } from './reply.js';
import type { TaskFeed } from '../runtime/task-feed.js';
import type { StreamEvent } from '../a2a/schemas.js';

export type RpcId = string | number | null;

export interface RpcContext {
  request: IncomingRequest;
  /** The authenticated caller (auth on), else undefined. */
  caller: Caller | undefined;
  /** Where the request was served: its base URL is read (and worked out) only for the extended card. */
  location: { readonly baseUrl: string };
  lastEventId: string | undefined;
  /** The extensions the request activated (X-A2A-Extensions). */
  extensions: readonly string[];
}

/** A method: the operation it is (for authorization) and what it does. */
export type UnaryMethod = readonly [Operation, (params: unknown, ctx: RpcContext) => Promise<unknown>];
export type StreamMethod = readonly [Operation, (params: unknown, ctx: RpcContext) => Promise<TaskFeed>];

/**
 * One protocol version's JSON-RPC: its methods over the one `Operations`, how its errors and
 * stream events are written. The envelope, validation order and admission are the same for all.
 */
export interface RpcBinding {
  methods(ops: Operations): { unary: ReadonlyMap<string, UnaryMethod>; streaming: ReadonlyMap<string, StreamMethod> };
  /** The `error` member for an A2A error. */
  errorBody(err: A2AError): unknown;
  /** One stream event's `result` JSON; `json`: the event's own JSON text when the event log already made it. */
  eventJson(event: StreamEvent, json: string | undefined): string;
}

/** Method name -> [operation, implementation] for methods named as the operation they are. */
export const methodTable = <F>(entries: readonly (readonly [Operation, F])[]): Map<string, readonly [Operation, F]> =>
  new Map(entries.map(([operation, fn]) => [operation, [operation, fn] as const]));

/** A2A v0.3 (wire reference §2): slash-separated method names, results as bare A2A objects. */
export const V03_RPC: RpcBinding = {
  methods(ops) {
    // Maps, not object literals: a method named `constructor` or `__proto__` must find nothing.
    // Each method is named as the operation it is (what `authorize` is asked about).
    const unary = methodTable<UnaryMethod[1]>([
      ['message/send', (p, ctx) => ops.sendMessage(p, ctx.caller, ctx.extensions)],
      ['tasks/get', (p, ctx) => ops.getTask(p, ctx.caller)],
      ['tasks/list', (p, ctx) => ops.listTasks(p, ctx.caller)],
      ['tasks/cancel', (p, ctx) => ops.cancelTask(p, ctx.caller)],
      ['tasks/pushNotificationConfig/set', (p, ctx) => ops.setPushConfig(p, ctx.caller)],
      ['tasks/pushNotificationConfig/get', (p, ctx) => ops.getPushConfig(p, ctx.caller)],
      ['tasks/pushNotificationConfig/list', (p, ctx) => ops.listPushConfigs(p, ctx.caller)],
      ['tasks/pushNotificationConfig/delete', (p, ctx) => ops.deletePushConfig(p, ctx.caller)],
      ['agent/getAuthenticatedExtendedCard', (_p, ctx) => ops.extendedCard(ctx.request, ctx.location.baseUrl)],
    ]);
    const streamMessage: StreamMethod[1] = (p, ctx) => ops.streamMessage(p, ctx.caller, ctx.extensions);
    const streaming = methodTable<StreamMethod[1]>([
      ['message/stream', streamMessage],
      ['tasks/resubscribe', (p, ctx) => ops.resubscribe(p, ctx.lastEventId, ctx.caller)],
    ]);
    // The service spec's name for message/stream (wire reference §6 #5): both are served.
    streaming.set('message/sendStream', ['message/stream', streamMessage]);
    return { unary, streaming };
  },
  errorBody,
  eventJson: (event, json) => json ?? toJsonText(event),
};

const isRpcId = (v: unknown): v is RpcId => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

/** What a JSON-RPC request may carry. */
export interface RpcLimits {
  /** Characters of a string `id` (SERVICE_MAX_RPC_ID_LENGTH): it is echoed in every answer and stream event. */
  maxIdLength: number;
}

const DEFAULT_RPC_LIMITS: RpcLimits = { maxIdLength: 256 };

/** The response object, written by hand: members in the order clients expect, the result spliced in. */
const envelope = (id: RpcId, body: { result: unknown } | { error: unknown }): string =>
  'result' in body
    ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${toJsonText(body.result)}}`
    : `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${JSON.stringify(body.error)}}`;

function rpcError(id: RpcId, err: A2AError, binding: RpcBinding = V03_RPC): Reply {
  return {
    kind: 'json',
    status: rpcStatus(err),
    body: envelope(id, { error: binding.errorBody(err) }),
    headers: { ...err.headers },
    refused: err.entry,
  };
}

/** A JSON-RPC error reply for an error found before dispatch (content type, parse, version, framing, size). */
export const jsonRpcErrorReply = (id: RpcId, err: A2AError, binding?: RpcBinding): Reply => rpcError(id, err, binding);

/** A JSON-RPC notification was carried out: nothing to say (JSON-RPC 2.0 §4.1). */
const NO_CONTENT: Reply = { kind: 'empty', status: 204 };

export function createJsonRpcHandler(
  ops: Operations,
  logger: Logger,
  admission: Admission,
  binding: RpcBinding = V03_RPC,
  limits: RpcLimits = DEFAULT_RPC_LIMITS,
) {
  const { unary, streaming } = binding.methods(ops);
  const rpcError = (id: RpcId, err: A2AError): Reply => jsonRpcErrorReply(id, err, binding);
  /** An error reply, as the promise every request is answered with. */
  const refuse = (id: RpcId, err: A2AError): Promise<Reply> => Promise.resolve(rpcError(id, err));

  const { maxIdLength } = limits;
  /** An id that is too long is not echoed: JSON-RPC 2.0 §5 answers null when the id cannot be determined. */
  const isUsableId = (v: unknown): v is RpcId => isRpcId(v) && (typeof v !== 'string' || v.length <= maxIdLength);
  /** The id of a request body, when it has a usable one (for errors found early). */
  const idOf = (body: unknown): RpcId => (isObject(body) && isUsableId(body.id) ? body.id : null);

  /**
   * A notification (a valid request without `id`) is carried out and answered 204 with no body.
   * One that cannot be carried out (unknown method, bad params) is still answered with its
   * error and a null id: A2A clients and checks expect an answer to those (wire reference §2.1).
   */
  async function notify(method: string, params: unknown, ctx: RpcContext): Promise<Reply> {
    try {
      const stream = streaming.get(method);
      if (stream) {
        await admission.admit(stream[0], ctx);
        // Nobody reads a stream of a notification: the call's effect stays, the stream goes.
        (await stream[1](params, ctx)).cancel();
        return NO_CONTENT;
      }
      const fn = unary.get(method);
      if (!fn) return rpcError(null, a2aError('methodNotFound', shown(method)));
      await admission.admit(fn[0], ctx);
      await fn[1](params, ctx);
      return NO_CONTENT;
    } catch (err) {
      return rpcError(null, toA2AError(err, logger, method));
    }
  }

  /** One SSE error event: how a streaming method refuses once the request is admitted to it. */
  const streamError = (id: RpcId, err: A2AError): Reply => ({
    kind: 'stream-error',
    data: envelope(id, { error: binding.errorBody(err) }),
    refused: err.entry,
  });

  /** A streaming method's answer: the feed, or its refusal (JSON or one SSE error event). */
  async function openStream(stream: StreamMethod, id: RpcId, method: string, params: unknown, ctx: RpcContext): Promise<Reply> {
    try {
      await admission.admit(stream[0], ctx);
    } catch (err) {
      const a2a = toA2AError(err, logger, method);
      // A 403 is plain JSON; a missing required extension is refused like a bad param.
      return a2a.entry === ERRORS.extensionRequired ? streamError(id, a2a) : rpcError(id, a2a);
    }
    let feed: TaskFeed;
    try {
      feed = await stream[1](params, ctx);
    } catch (err) {
      const a2a = toA2AError(err, logger, method);
      // Capability and quota refusals are plain JSON (clients read a JSON body for them, and a
      // 429 and its Retry-After need the status line); every other error of a streaming method
      // is one SSE error event (wire reference §2.3).
      return a2a.entry === ERRORS.streamingNotSupported || a2a.entry === ERRORS.tooManyRequests ? rpcError(id, a2a) : streamError(id, a2a);
    }
    // The envelope's head once per stream; an event the log already serialized is spliced in.
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
    return { kind: 'stream', feed, frame: (event, json) => `${head}${binding.eventJson(event, json)}}` };
  }

  /**
   * A unary method's answer: the method's own promise, mapped once. The hot path (message/send),
   * so `promiseOf` rather than an async frame; without auth nothing is waited for before the call.
   */
  const call = (fn: UnaryMethod, id: RpcId, method: string, params: unknown, ctx: RpcContext): Promise<Reply> =>
    promiseOf(() => {
      const admitted = admission.admit(fn[0], ctx);
      return admitted ? admitted.then(() => fn[1](params, ctx)) : fn[1](params, ctx);
    }).then(
      (value): Reply => ({ kind: 'json', status: 200, body: envelope(id, { result: value }) }),
      (err: unknown): Reply => rpcError(id, toA2AError(err, logger, method)),
    );

  return {
    idOf,

    /** Whether a request body names one of this binding's methods. */
    isMethod(body: unknown): boolean {
      const method = isObject(body) ? body.method : undefined;
      return typeof method === 'string' && (streaming.has(method) || unary.has(method));
    },

    /** The method a request body names when it is one of ours; `unknown` otherwise (never client text). */
    operationOf(body: unknown): string {
      const method = isObject(body) ? body.method : undefined;
      return typeof method === 'string' && (streaming.has(method) || unary.has(method)) ? method : 'unknown';
    },

    /** Validates the envelope, then calls the method; never throws (every refusal is a reply). */
    handle(body: unknown, ctx: RpcContext): Promise<Reply> {
      if (Array.isArray(body))
        return refuse(null, a2aError('invalidRequest', 'batch requests are not supported: send one request object per call'));
      if (!isObject(body)) return refuse(null, a2aError('invalidRequest', 'a JSON-RPC request is a JSON object'));
      const id = idOf(body);
      if (body.jsonrpc !== '2.0') return refuse(id, a2aError('invalidRequest', 'jsonrpc must be "2.0"'));
      if (typeof body.method !== 'string') return refuse(id, a2aError('invalidRequest', 'method must be a string'));
      if ('id' in body && !isRpcId(body.id)) return refuse(null, a2aError('invalidRequest', 'id must be a string, an integer or null'));
      if (typeof body.id === 'string' && body.id.length > maxIdLength) {
        return refuse(null, a2aError('invalidRequest', `id is longer than ${maxIdLength} characters (SERVICE_MAX_RPC_ID_LENGTH)`));
      }
      if (body.params !== undefined && !isObject(body.params)) return refuse(id, a2aError('invalidParams', 'params must be an object'));
      const method = body.method;
      const params = body.params ?? {};
      if (!('id' in body)) return notify(method, params, ctx);
      const stream = streaming.get(method);
      if (stream) return openStream(stream, id, method, params, ctx);
      const fn = unary.get(method);
      if (!fn) return refuse(id, a2aError('methodNotFound', shown(method)));
      return call(fn, id, method, params, ctx);
    },
  };
}

export type JsonRpcHandler = ReturnType<typeof createJsonRpcHandler>;
