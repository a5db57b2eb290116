/**
 * Stage 6 of createServer: the protocol layer over the runtime. The operations both transports
 * and both versions serve, and the route the front end calls: the router, wrapped so every
 * request is logged, counted and traced.
 */
import type { AuthGate } from '../auth/gate.js';
import type { Settings } from '../config.js';
import type { Logger } from '../log.js';
import type { ServerMetrics } from '../observe/metrics.js';
import { observeRoutes } from '../observe/requests.js';
import type { CardOptions } from '../protocol/card.js';
import type { CardSigner } from '../protocol/card-signing.js';
import { createOperations, type Operations } from '../protocol/operations.js';
import { createRouter, type Router } from '../protocol/router.js';
import type { PushConfigs } from '../push/configs.js';
import type { TaskService } from '../runtime/task-service.js';
import type { BackendsStage } from './backends.js';

export interface ProtocolStage {
  readonly ops: Operations;
  readonly route: ReturnType<typeof routeOf>['route'];
  /** Asked before a body is read (the caller authenticated from the headers). */
  readonly admitHead: Router['admitHead'];
}

/** The router and its wrapping, kept together: the front end gets exactly this. */
function routeOf(ops: Operations, settings: Settings, logger: Logger, metrics: ServerMetrics | undefined, gate: AuthGate | undefined) {
  const limits = { maxJsonDepth: settings.maxJsonDepth, restDialect: settings.restDialect, maxRpcIdLength: settings.maxRpcIdLength };
  const router = createRouter(ops, logger, limits, gate);
  return { route: observeRoutes(router, logger, metrics), admitHead: router.admitHead };
}

export function protocolStage(
  service: TaskService,
  pushConfigs: PushConfigs,
  backends: BackendsStage,
  card: { readonly cardOptions: CardOptions; readonly signer: CardSigner | undefined; readonly gate: AuthGate | undefined },
  settings: Settings,
  logger: Logger,
  metrics: ServerMetrics | undefined,
): ProtocolStage {
  const { store, coordinator, events } = backends;
  const ops = createOperations({
    service,
    push: pushConfigs,
    card: card.cardOptions,
    maxJsonDepth: settings.maxJsonDepth,
    maxStreamsPerCaller: settings.maxStreamsPerCaller,
    limits: { listMaxBytes: settings.listMaxBytes, maxMessageBytes: settings.maxMessageBytes },
    logger,
    ...(card.signer ? { signer: card.signer } : {}),
    readiness: {
      store: () => store.ping?.() ?? Promise.resolve(),
      events: () => Promise.all([coordinator.ping(), events.ping?.()]).then(() => undefined),
    },
  });
  return { ops, ...routeOf(ops, settings, logger, metrics, card.gate) };
}
