/**
 * The gRPC stage of createServer, in two steps around the protocol stage: `openGrpc` binds the
 * port first (so the card can name the port actually bound, also when SERVICE_GRPC_PORT is 0),
 * then `serve` puts both A2A services on it over the one `Operations`. Nothing here runs, and
 * neither @grpc/grpc-js nor @bufbuild/protobuf is loaded, unless SERVICE_GRPC_PORT is set.
 */
import type { AuthGate } from '../auth/gate.js';
import type { Settings } from '../config.js';
import { loadBackend } from '../load-backend.js';
import type { Logger } from '../log.js';
import { NO_METRICS, type Metrics } from '../observe/metrics.js';
import { createAdmission } from '../protocol/admission.js';
import type { Operations } from '../protocol/operations.js';

type GrpcModule = typeof import('../grpc/index.js');

export interface GrpcStage {
  /** `host:port`: what the card lists as the `GRPC` interface. */
  readonly target: string;
  readonly port: number;
  readonly tls: boolean;
  serve(inputs: { ops: Operations; gate: AuthGate | undefined; logger: Logger; metrics: Metrics | undefined; baseUrl: string }): void;
  /** Server streams open now (counted with the HTTP listener's in stats().openStreams). */
  openStreams(): number;
  /** A graceful shutdown: no new calls, the ones under way finish; settles when the last has. */
  stopListening(): Promise<void>;
  close(): void;
}

/** `done` settled, or `ms` passed (the timer holds no process open). */
export async function untilOrAfter(done: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms));
    timer.unref();
  });
  await Promise.race([done, late]);
  clearTimeout(timer);
}

export const GRPC_PACKAGES = ['@grpc/grpc-js', '@bufbuild/protobuf'] as const;

export async function openGrpc(settings: Settings): Promise<GrpcStage | undefined> {
  if (settings.grpcPort === undefined) return undefined;
  const grpc: GrpcModule = await loadBackend(() => import('../grpc/index.js'), GRPC_PACKAGES, 'gRPC (SERVICE_GRPC_PORT)');
  const listener = await grpc.listenGrpc({
    host: settings.grpcHost ?? settings.host,
    port: settings.grpcPort,
    tlsCert: settings.grpcTlsCert,
    tlsKey: settings.grpcTlsKey,
    allowPlaintext: settings.grpcAllowPlaintext,
    maxReceiveBytes: settings.maxBodyBytes,
  });
  const openStreams = { count: 0 };
  return {
    target: listener.target,
    port: listener.port,
    tls: listener.tls,
    serve({ ops, gate, logger, metrics, baseUrl }) {
      grpc.serveA2A(listener, ops, {
        admission: createAdmission(ops, logger, gate),
        gate,
        logger,
        metrics: metrics ?? NO_METRICS,
        baseUrl,
        maxBufferedBytes: settings.sseMaxBufferedBytes,
        openStreams,
      });
    },
    openStreams: () => openStreams.count,
    stopListening: () => listener.stopListening(),
    close: () => listener.close(),
  };
}
