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
export const referenceDecoder = (input: DescMessage) => (bytes: Buffer) => toJson(input, fromBinary(input, bytes));

/**
 * Fields the proto does not know are dropped: our objects carry the other version's fields too
 * (the card), and `undefined` members go with the JSON text.
 */
export const referenceEncoder = (output: DescMessage) => (json: unknown) =>
  Buffer.from(toBinary(output, fromJsonString(output, JSON.stringify(json), { ignoreUnknownFields: true })));

/** A hand-written encoder for an RPC's answers: the bytes, or `undefined` to leave them to the reference path. */
export type FastEncoder = (json: unknown) => Buffer | undefined;

/** A hand-written decoder for an RPC's requests: the proto-JSON, or `undefined` to leave them to the reference path. */
export type FastDecoder = (bytes: Buffer) => unknown;

/** The hand-written halves an RPC has (fast-encode.ts, fast-decode.ts). */
export interface FastCodec {
  encode?: FastEncoder;
  decode?: FastDecoder;
}

const encoder = (output: DescMessage, fast: FastEncoder | undefined): ((json: unknown) => Buffer) => {
  const reference = referenceEncoder(output);
  return fast ? (json) => fast(json) ?? reference(json) : reference;
};

const decoder = (input: DescMessage, fast: FastDecoder | undefined): ((bytes: Buffer) => unknown) => {
  const reference = referenceDecoder(input);
  return fast ? (bytes) => fast(bytes) ?? reference(bytes) : reference;
};

const passThrough = (bytes: Buffer): Buffer => bytes;

/** `fast` names the RPCs with a hand-written encoder for their answers or decoder for their requests. */
export function methodsOf(service: DescService, fast: Readonly<Record<string, FastCodec>> = {}): GrpcMethod[] {
  return service.methods.map((m) => {
    const path = `/${service.typeName}/${m.name}`;
    const streaming = m.methodKind === 'server_streaming';
    const hand = Object.hasOwn(fast, m.name) ? fast[m.name] : undefined;
    const decode = decoder(m.input, hand?.decode);
    return {
      name: m.name,
      path,
      streaming,
      encode: encoder(m.output, hand?.encode),
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
