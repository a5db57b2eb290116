/**
 * An A2A error as a gRPC status (spec §10.6): the code from the one error table (v1/errors.ts),
 * the message, and a `google.rpc.Status` in the `grpc-status-details-bin` trailer carrying the
 * same typed details as every other binding (an ErrorInfo, and a BadRequest for invalid fields),
 * which is what the official clients map to their error types.
 *
 * The codes are spec v1.0.1's §5.4 table: v1.0.0 gave UNIMPLEMENTED for PushNotificationNotSupported,
 * UnsupportedOperation and VersionNotSupported, and the v1.0.1 correction (a2aproject/A2A#1627)
 * made them FAILED_PRECONDITION, as the official SDK's server answers.
 */
import { createRegistry, fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf';
import { Metadata, status as GrpcCode, type StatusObject } from '@grpc/grpc-js';
import type { A2AError } from '../a2a/errors.js';
import { errorDetails, grpcStatusOf } from '../protocol/v1/errors.js';
import { BadRequestSchema, ErrorInfoSchema } from './gen/google/rpc/error_details_pb.js';
import { StatusSchema } from './gen/google/rpc/status_pb.js';

const DETAILS_KEY = 'grpc-status-details-bin';
const registry = createRegistry(ErrorInfoSchema, BadRequestSchema);

/** Headers an HTTP answer would carry (WWW-Authenticate, Retry-After) travel as trailers. */
function trailersOf(err: A2AError, code: number): Metadata {
  const metadata = new Metadata();
  for (const [name, value] of Object.entries(err.headers)) metadata.set(name.toLowerCase(), value);
  const details = fromJson(StatusSchema, { code, message: err.message, details: errorDetails(err) as JsonValue[] }, { registry });
  metadata.set(DETAILS_KEY, Buffer.from(toBinary(StatusSchema, details)));
  return metadata;
}

export function grpcStatus(err: A2AError): StatusObject {
  const code = GrpcCode[grpcStatusOf(err)];
  return { code, details: err.message, metadata: trailersOf(err, code) };
}
