/**
 * One gRPC call, the same way as one HTTP request: the caller authenticated and admitted by the
 * one admission (bearer tokens and API keys read from metadata, which gRPC lower-cases as HTTP/2
 * does headers), then the binding's method on the one `Operations`, then the answer or a status
 * rendered from the error table. Every call is observed like the other transports' requests:
 * a span continuing the caller's `traceparent`, metrics under transport `grpc`, refusals logged.
 */
import type {
  handleServerStreamingCall,
  handleUnaryCall,
  Metadata,
  ServerWritableStream,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { IncomingRequest } from '../agent.js';
import { a2aError, isA2AError, type A2AError, type ErrorEntry } from '../a2a/errors.js';
import type { ProtocolVersion } from '../a2a/versions.js';
import type { AuthGate } from '../auth/gate.js';
import type { Logger } from '../log.js';
import { observeRoutes } from '../observe/requests.js';
import type { Metrics } from '../observe/metrics.js';
import type { Admission } from '../protocol/admission.js';
import type { GrpcBinding } from '../protocol/grpc-binding.js';
import type { RpcContext, StreamMethod, UnaryMethod } from '../protocol/jsonrpc.js';
import { toA2AError } from '../protocol/reply.js';
import { requestedVersion } from '../protocol/version.js';
import { restStatusV1 } from '../protocol/v1/errors.js';
import type { GrpcMethod } from './codec.js';
import { grpcStatus } from './status.js';
import { GrpcFeedWriter } from './stream.js';

export interface GrpcCallDeps {
  admission: Admission;
  gate: AuthGate | undefined;
  logger: Logger;
  metrics: Metrics;
  /** The HTTP base URL the cards' URLs are built from. */
  baseUrl: string;
  /** A stream's cap on bytes waiting for a slow client (SERVICE_SSE_MAX_BUFFERED_BYTES). */
  maxBufferedBytes: number;
  /** The listener's open streams, both services' together. */
  openStreams: { count: number };
}

/** One service version: its RPCs, what each runs, and how its requests name their task. */
export interface GrpcServiceSpec {
  /** The A2A version the service speaks (its proto's). */
  version: ProtocolVersion;
  methods: readonly GrpcMethod[];
  binding: GrpcBinding;
  taskIdOf(params: unknown): string | undefined;
}

interface GrpcReply {
  kind: 'unary' | 'stream' | 'error';
  /** The HTTP status the outcome would have (spans mark server failures by it). */
  status: number;
  refused?: ErrorEntry;
}

interface GrpcTarget {
  transport: 'grpc';
  operation: string;
  taskId: string | undefined;
  run(): Promise<GrpcReply>;
}

interface GrpcRequest {
  method: string;
  path: string;
  headers: Readonly<Record<string, string>>;
  target: GrpcTarget;
}

const OK: GrpcReply = { kind: 'unary', status: 200 };
const STREAMING: GrpcReply = { kind: 'stream', status: 200 };
const refusedWith = (err: A2AError): GrpcReply => ({ kind: 'error', status: restStatusV1(err), refused: err.entry });

/** Text metadata as headers; binary (`-bin`) entries are not headers anyone reads. */
function headersOf(metadata: Metadata): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata.getMap())) if (typeof value === 'string') headers[key] = value;
  return headers;
}

const repeatedKeys = (metadata: Metadata): string[] => Object.keys(metadata.getMap()).filter((key) => metadata.get(key).length > 1);

export function grpcImplementation(spec: GrpcServiceSpec, deps: GrpcCallDeps): UntypedServiceImplementation {
  const { admission, gate, logger } = deps;
  const observed = observeRoutes<GrpcRequest, GrpcTarget, GrpcReply>(
    { resolve: (req) => req.target, dispatch: (target) => target.run() },
    logger,
    deps.metrics,
  );

  /** The caller, authenticated and admitted to `operation`; throws the refusal. */
  async function admitted(
    path: string,
    metadata: Metadata,
    headers: Record<string, string>,
    operation: UnaryMethod[0],
  ): Promise<RpcContext> {
    const request: IncomingRequest = { method: 'POST', path, headers };
    // The service names the version; an `a2a-version` sent with it must agree (spec §10.2).
    const asked = requestedVersion(headers['a2a-version']);
    if (isA2AError(asked)) throw asked;
    if (asked !== undefined && asked !== spec.version) {
      throw a2aError('versionNotSupported', `${path} speaks A2A ${spec.version}, the call asked for ${asked}`);
    }
    if (gate) {
      const repeated = repeatedKeys(metadata);
      const refusal = repeated.length > 0 ? gate.repeatedCredential(repeated) : undefined;
      if (refusal) throw refusal;
    }
    const authenticated = await admission.authenticate(request);
    if (isA2AError(authenticated)) throw authenticated;
    const extensions = admission.activate(headers);
    const ctx: RpcContext = {
      request,
      caller: authenticated,
      location: { baseUrl: deps.baseUrl },
      lastEventId: headers['last-event-id'],
      extensions,
    };
    await admission.admit(operation, ctx);
    return ctx;
  }

  const observe = (
    method: GrpcMethod,
    metadata: Metadata,
    operation: string,
    taskId: string | undefined,
    run: (headers: Record<string, string>) => Promise<GrpcReply>,
  ) => {
    const headers = headersOf(metadata);
    return observed({
      method: 'POST',
      path: method.path,
      headers,
      target: { transport: 'grpc', operation, taskId, run: () => run(headers) },
    });
  };

  const unary = (method: GrpcMethod, entry: UnaryMethod | undefined): handleUnaryCall<unknown, Buffer> => {
    return (call, callback) => {
      // Named by the operation, as metrics know it, whichever version's RPC it came by.
      const operation = entry ? entry[0] : 'unknown';
      void observe(method, call.metadata, operation, spec.taskIdOf(call.request), async (headers) => {
        try {
          if (!entry) throw a2aError('methodNotFound', method.name);
          const ctx = await admitted(method.path, call.metadata, headers, entry[0]);
          callback(null, method.encode(await entry[1](call.request, ctx)));
          return OK;
        } catch (err) {
          const refusal = toA2AError(err, logger, method.path);
          callback(grpcStatus(refusal));
          return refusedWith(refusal);
        }
      });
    };
  };

  const streaming = (method: GrpcMethod, entry: StreamMethod | undefined): handleServerStreamingCall<unknown, Buffer> => {
    return (call: ServerWritableStream<unknown, Buffer>) => {
      // Named by the operation, as metrics know it, whichever version's RPC it came by.
      const operation = entry ? entry[0] : 'unknown';
      void observe(method, call.metadata, operation, spec.taskIdOf(call.request), async (headers) => {
        try {
          if (!entry) throw a2aError('methodNotFound', method.name);
          const ctx = await admitted(method.path, call.metadata, headers, entry[0]);
          const feed = await entry[1](call.request, ctx);
          // The client left while the stream was being opened: the feed is released, never started.
          if (call.cancelled) {
            feed.cancel();
            return STREAMING;
          }
          const encode = (event: Parameters<GrpcBinding['event']>[0]) => method.encode(spec.binding.event(event));
          new GrpcFeedWriter(call, feed, { maxBufferedBytes: deps.maxBufferedBytes, logger, encode, open: deps.openStreams }).start();
          return STREAMING;
        } catch (err) {
          const refusal = toA2AError(err, logger, method.path);
          call.emit('error', grpcStatus(refusal));
          return refusedWith(refusal);
        }
      });
    };
  };

  const impl: UntypedServiceImplementation = {};
  for (const method of spec.methods) {
    impl[method.name] = method.streaming
      ? streaming(method, spec.binding.streaming.get(method.name))
      : unary(method, spec.binding.unary.get(method.name));
  }
  return impl;
}
