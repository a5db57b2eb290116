/**
 * The RPCs of a generated service as @grpc/grpc-js method definitions. Requests are decoded to
 * their proto-JSON (what the protocol layer's bindings read, as they read JSON-RPC params), and
 * answers are encoded from proto-JSON by the handler itself, so an answer that does not fit its
 * message is our error, reported as such, not a failure inside grpc-js.
 */
import { fromBinary, fromJsonString, toBinary, toJson, type DescMessage, type DescService } from '@bufbuild/protobuf';
import type { MethodDefinition } from '@grpc/grpc-js';

export interface GrpcMethod {
  /** The RPC's name in the proto (`SendMessage`). */
  readonly name: string;
  /** `/package.Service/Method`. */
  readonly path: string;
  readonly streaming: boolean;
  /** One answer (a unary result or a stream event) from its proto-JSON. */
  encode(json: unknown): Buffer;
  readonly definition: MethodDefinition<unknown, Buffer>;
}

/** Proto-JSON as a reader of the proto expects it: default values are left out. */
const decoder = (input: DescMessage) => (bytes: Buffer) => toJson(input, fromBinary(input, bytes));

/**
 * Fields the proto does not know are dropped: our objects carry the other version's fields too
 * (the card), and `undefined` members go with the JSON text.
 */
export const referenceEncoder = (output: DescMessage) => (json: unknown) =>
  Buffer.from(toBinary(output, fromJsonString(output, JSON.stringify(json), { ignoreUnknownFields: true })));

/** A hand-written encoder for an RPC's answers: the bytes, or `undefined` to leave them to the reference path. */
export type FastEncoder = (json: unknown) => Buffer | undefined;

const encoder = (output: DescMessage, fast: FastEncoder | undefined): ((json: unknown) => Buffer) => {
  const reference = referenceEncoder(output);
  return fast ? (json) => fast(json) ?? reference(json) : reference;
};

const passThrough = (bytes: Buffer): Buffer => bytes;

/** `fast` names the RPCs whose answers have a hand-written encoder (fast-encode.ts). */
export function methodsOf(service: DescService, fast: Readonly<Record<string, FastEncoder>> = {}): GrpcMethod[] {
  return service.methods.map((m) => {
    const path = `/${service.typeName}/${m.name}`;
    const streaming = m.methodKind === 'server_streaming';
    const decode = decoder(m.input);
    return {
      name: m.name,
      path,
      streaming,
      encode: encoder(m.output, Object.hasOwn(fast, m.name) ? fast[m.name] : undefined),
      definition: {
        path,
        requestStream: false,
        responseStream: streaming,
        originalName: m.localName,
        requestSerialize: () => {
          throw new Error('a server never sends requests');
        },
        requestDeserialize: decode,
        responseSerialize: passThrough,
        responseDeserialize: passThrough,
      },
    };
  });
}
