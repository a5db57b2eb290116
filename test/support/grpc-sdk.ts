/**
 * The official SDK's gRPC client as the gRPC suites use it: discovered from the card at `url`
 * the way a user's client finds it, and the rejections it gives, read by their gRPC status.
 */
import { ClientFactory, DefaultAgentCardResolver, type Transport } from 'a2a-sdk-v1/client';
import { GrpcTransportFactory } from 'a2a-sdk-v1/client/grpc';

/** The client's gRPC transport to the agent whose card is at `url` (a factory for deadlines or TLS). */
export async function grpcTransport(url: string, factory = new GrpcTransportFactory()): Promise<Transport> {
  const client = await new ClientFactory({
    transports: [factory],
    cardResolver: new DefaultAgentCardResolver(),
    preferredTransports: ['GRPC'],
  }).createFromUrl(url);
  return client.transport;
}

/** The gRPC status code an SDK error carries. */
export const statusOf = (err: unknown): number | undefined => (err as { status?: number }).status;

/** What `p` rejects with; a fulfilled `p` fails the test. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}
