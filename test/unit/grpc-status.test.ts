/**
 * Every error of the one table becomes a gRPC status rendered from it: the code of its
 * `google.rpc.Code` name, its message, and a `grpc-status-details-bin` trailer whose
 * `google.rpc.Status` carries the same ErrorInfo as the other bindings (spec §10.6).
 */
import { fromBinary } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import { status as GrpcCode } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { A2AError, a2aError, ERRORS, type ErrorName } from '../../src/a2a/errors.js';
import { grpcStatus } from '../../src/grpc/status.js';
import { BadRequestSchema, ErrorInfoSchema } from '../../src/grpc/gen/google/rpc/error_details_pb.js';
import { StatusSchema } from '../../src/grpc/gen/google/rpc/status_pb.js';
import { grpcStatusOf, reasonOf } from '../../src/protocol/v1/errors.js';

const detailsOf = (err: A2AError) => {
  const [bin] = grpcStatus(err).metadata.get('grpc-status-details-bin');
  return fromBinary(StatusSchema, bin as Buffer);
};

describe('gRPC statuses from the error table', () => {
  it.each(Object.keys(ERRORS) as ErrorName[])('%s', (name) => {
    const err = a2aError(name, 'detail');
    const status = grpcStatus(err);
    expect(status.code).toBe(GrpcCode[grpcStatusOf(err)]);
    expect(status.code).not.toBe(GrpcCode.OK);
    expect(status.details).toBe(err.message);
    const details = detailsOf(err);
    expect(details.code).toBe(status.code);
    const info = anyUnpack(details.details[0]!, ErrorInfoSchema);
    expect(info).toMatchObject({ reason: reasonOf(err), domain: 'a2a-protocol.org' });
  });

  it('the spec examples: TaskNotFound is NOT_FOUND, TaskNotCancelable FAILED_PRECONDITION', () => {
    expect(grpcStatus(a2aError('taskNotFound')).code).toBe(GrpcCode.NOT_FOUND);
    expect(grpcStatus(a2aError('taskNotCancelable')).code).toBe(GrpcCode.FAILED_PRECONDITION);
    expect(grpcStatus(a2aError('unauthenticated')).code).toBe(GrpcCode.UNAUTHENTICATED);
    expect(grpcStatus(a2aError('forbidden')).code).toBe(GrpcCode.PERMISSION_DENIED);
  });

  it('invalid params carry their field violations as a google.rpc.BadRequest', () => {
    const err = a2aError('invalidParams', 'message.parts', { issues: [{ path: 'message.parts', message: 'must not be empty' }] });
    const badRequest = anyUnpack(detailsOf(err).details[1]!, BadRequestSchema);
    expect(badRequest?.fieldViolations).toMatchObject([{ field: 'message.parts', description: 'must not be empty' }]);
  });

  it('an HTTP header of the error (WWW-Authenticate) travels as a trailer', () => {
    const err = new A2AError(ERRORS.unauthenticated, undefined, undefined, { 'WWW-Authenticate': 'Bearer' });
    expect(grpcStatus(err).metadata.get('www-authenticate')).toEqual(['Bearer']);
  });
});
