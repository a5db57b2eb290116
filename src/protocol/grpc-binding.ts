/**
 * What one version's gRPC service runs (grpc-v03.ts, v1/grpc.ts): its RPCs by name over the one
 * `Operations`, each with the operation it is (for authorization), taking and answering
 * proto-JSON; and how a stream event is written. The gRPC layer (src/grpc/) only frames them.
 */
import type { StreamEvent } from '../a2a/schemas.js';
import type { StreamMethod, UnaryMethod } from './jsonrpc.js';

export interface GrpcBinding {
  unary: ReadonlyMap<string, UnaryMethod>;
  streaming: ReadonlyMap<string, StreamMethod>;
  /** One stream event as the proto-JSON of the version's `StreamResponse`. */
  event(event: StreamEvent): unknown;
}
