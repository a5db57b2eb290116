/**
 * The gRPC listener: an @grpc/grpc-js server on its own port (SERVICE_GRPC_PORT). With a
 * certificate and key it speaks TLS; without, plaintext, which is refused on a host that is not
 * loopback unless SERVICE_GRPC_ALLOW_PLAINTEXT says so: bearer tokens and API keys travel in
 * metadata, and plaintext beyond this machine would expose them.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';

export interface GrpcListenOptions {
  host: string;
  port: number;
  /** PEM text or a file path each; both or neither. */
  tlsCert?: string | undefined;
  tlsKey?: string | undefined;
  allowPlaintext: boolean;
  /** Largest request message accepted (SERVICE_MAX_BODY_BYTES): larger ones get RESOURCE_EXHAUSTED. */
  maxReceiveBytes: number;
}

export interface GrpcListener {
  readonly port: number;
  /** `host:port`, the target a gRPC client dials (what the card lists). */
  readonly target: string;
  readonly tls: boolean;
  serve(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void;
  /**
   * Takes no new calls (connections are told to go away) while the calls under way finish, as
   * the HTTP listener stops during a graceful shutdown; `close` then ends whatever is left.
   * Settles when the last call has ended.
   */
  stopListening(): Promise<void>;
  /** Stops at once: open calls are cancelled (their streams end, their tasks go on). */
  close(): void;
}

const LOOPBACK_NAMES = new Set(['localhost', 'ip6-localhost']);

/** 127.0.0.0/8, ::1 and localhost: addresses no other machine reaches. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (LOOPBACK_NAMES.has(bare.toLowerCase())) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
}

const pem = (value: string): Buffer => Buffer.from(value.includes('-----BEGIN') ? value : readFileSync(value, 'utf8'));

const hostPort = (host: string, port: number): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;

function credentialsOf(opts: GrpcListenOptions): ServerCredentials {
  const { tlsCert, tlsKey } = opts;
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new Error('gRPC TLS needs both SERVICE_GRPC_TLS_CERT and SERVICE_GRPC_TLS_KEY');
  }
  if (tlsCert !== undefined && tlsKey !== undefined) {
    return ServerCredentials.createSsl(null, [{ cert_chain: pem(tlsCert), private_key: pem(tlsKey) }], false);
  }
  if (!isLoopbackHost(opts.host) && !opts.allowPlaintext) {
    throw new Error(
      `gRPC on ${opts.host} without TLS would send credentials in plaintext: set SERVICE_GRPC_TLS_CERT and SERVICE_GRPC_TLS_KEY, ` +
        'listen on a loopback host (SERVICE_GRPC_HOST), or set SERVICE_GRPC_ALLOW_PLAINTEXT=true behind a TLS-terminating proxy',
    );
  }
  return ServerCredentials.createInsecure();
}

export async function listenGrpc(opts: GrpcListenOptions): Promise<GrpcListener> {
  const credentials = credentialsOf(opts);
  const server = new Server({
    'grpc.max_receive_message_length': opts.maxReceiveBytes,
    // Channelz keeps per-call and per-connection counters and timestamps in a registry global to
    // the process, read only through a channelz service, which we do not serve.
    'grpc.enable_channelz': 0,
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(hostPort(opts.host, opts.port), credentials, (err, bound) => {
      if (err)
        reject(
          new Error(`cannot listen for gRPC on ${hostPort(opts.host, opts.port)}: ${err.message} (SERVICE_GRPC_PORT)`, { cause: err }),
        );
      else resolve(bound);
    });
  });
  return {
    port,
    target: hostPort(opts.host, port),
    tls: opts.tlsCert !== undefined,
    serve: (definition, implementation) => server.addService(definition, implementation),
    stopListening: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
    close: () => server.forceShutdown(),
  };
}
