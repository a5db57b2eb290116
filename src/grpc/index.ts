/**
 * The gRPC transport (loaded only when SERVICE_GRPC_PORT is set: @grpc/grpc-js and
 * @bufbuild/protobuf are optional). One listener serves both versions' services, which the
 * protos name apart: v0.3's `a2a.v1.A2AService` and v1.0's `lf.a2a.v1.A2AService`.
 */
import type { ServiceDefinition } from '@grpc/grpc-js';
import type { DescService } from '@bufbuild/protobuf';
import { v03GrpcBinding, v03TaskIdOf } from '../protocol/grpc-v03.js';
import type { Operations } from '../protocol/operations.js';
import { v1GrpcBinding, v1TaskIdOf } from '../protocol/v1/grpc.js';
import { grpcImplementation, type GrpcCallDeps, type GrpcServiceSpec } from './calls.js';
import { methodsOf, type FastCodec } from './codec.js';
import { fastSendMessageRequestV1 } from './fast-decode.js';
import { fastTaskOrMessageV1 } from './fast-encode.js';
import { A2AService as V03Service } from './gen/a2a/v0_3/a2a_pb.js';
import { A2AService as V1Service } from './gen/a2a/v1_0/a2a_pb.js';
import type { GrpcListener } from './listener.js';

export { listenGrpc, type GrpcListener, type GrpcListenOptions } from './listener.js';

/**
 * v1.0's answers most calls get (a task or a message) skip the reflective encoding, and its
 * sends skip the reflective decoding.
 */
const V1_FAST: Readonly<Record<string, FastCodec>> = {
  SendMessage: { decode: fastSendMessageRequestV1, encode: fastTaskOrMessageV1 },
  SendStreamingMessage: { decode: fastSendMessageRequestV1, encode: fastTaskOrMessageV1 },
  SubscribeToTask: { encode: fastTaskOrMessageV1 },
};

function serveVersion(
  listener: GrpcListener,
  service: DescService,
  spec: Omit<GrpcServiceSpec, 'methods'>,
  deps: GrpcCallDeps,
  fast: Readonly<Record<string, FastCodec>> = {},
): void {
  const methods = methodsOf(service, fast);
  const definition: ServiceDefinition = Object.fromEntries(methods.map((m) => [m.name, m.definition]));
  listener.serve(definition, grpcImplementation({ ...spec, methods }, deps));
}

/** Both A2A services on the listener, over the one `Operations`. */
export function serveA2A(listener: GrpcListener, ops: Operations, deps: GrpcCallDeps): void {
  serveVersion(listener, V03Service, { version: '0.3', binding: v03GrpcBinding(ops), taskIdOf: v03TaskIdOf }, deps);
  serveVersion(listener, V1Service, { version: '1.0', binding: v1GrpcBinding(ops), taskIdOf: v1TaskIdOf }, deps, V1_FAST);
}
