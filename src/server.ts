/**
 * createServer: wires the store, the event log, the task runtime, the protocol layer and the
 * front end into one running server, in stages (src/server/): each takes what the earlier ones
 * built and returns what it makes, so every value exists before anything uses it.
 *
 *   card -> observability -> backends (store, V8 tuning when asked, event log, coordinator)
 *   -> push -> runtime -> protocol (operations, the observed router) -> front end
 */
import type { AgentDefinition } from './agent.js';
import { resolveSettings, type Settings, type SettingsInput } from './config.js';
import { hostPort, type FrontEndKind, type RawRoute } from './http/exchange.js';
import type { NodeRequestHandler } from './http/node-server.js';
import { createLogger, type Logger } from './log.js';
import type { Pretenuring } from './heap-tuning.js';
import type { CardSigningOptions } from './protocol/card-signing.js';
import type { Coordinator } from './runtime/coordinator.js';
import type { TaskEventLog } from './runtime/event-log.js';
import type { TaskService } from './runtime/task-service.js';
import type { TaskStore } from './store/types.js';
import { backendsStage } from './server/backends.js';
import { cardStage } from './server/card.js';
import { frontEndStage, type ServerStats } from './server/front-end.js';
import { openGrpc, untilOrAfter } from './server/grpc.js';
import { observabilityStage, type Inspector } from './server/observability.js';
import { protocolStage } from './server/protocol.js';
import { pushStage, runtimeStage } from './server/runtime.js';

/** What `createServer` takes: the agent, any setting by its option name, and the seams below. */
export interface CreateServerOptions extends Partial<SettingsInput> {
  /** The agent to serve. */
  agent: AgentDefinition;
  /** A store instance instead of the `store` setting. */
  taskStore?: TaskStore;
  /** An event log instead of the in-memory one. */
  eventLog?: TaskEventLog;
  /** A coordinator instead of the one the `events` setting names. */
  coordinator?: Coordinator;
  /** Where the server logs (default: JSON lines on stderr at the `logLevel` setting). */
  logger?: Logger;
  /** Environment to read SERVICE_* settings from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Observer of every task actor (e.g. the Stately inspector's `inspect`). */
  inspector?: Inspector;
  /** Extra non-A2A routes served first (the debug page plugs in here). */
  rawRoutes?: RawRoute[];
  /**
   * Sign every card served (README "Signed cards"); instead of SERVICE_CARD_SIGNING_KEY (whose
   * `kid`, `jku` and `alg` settings fill what is not given here).
   */
  cardSigning?: CardSigningOptions;
  /**
   * Apply the `heapGrowthPercent` and `pretenuring` settings to this process's V8 flags (README
   * "What the server does to its process"). Off by default: the flags are process-wide, and a
   * server mounted in someone else's process must not change them. `a2actor serve` turns it on.
   */
  tuneHeap?: boolean;
}

/** A running server: what `createServer` resolves to. */
export interface A2AServer {
  /** `http://host:port` */
  readonly url: string;
  /** The port it listens on (the one chosen when the `port` setting is 0). */
  readonly port: number;
  /** The gRPC listener's port (undefined: gRPC is off). */
  readonly grpcPort: number | undefined;
  /** Where /metrics is served: the server's own URL, or its own listener's (undefined: metrics off). */
  readonly metricsUrl: string | undefined;
  /** Every setting as resolved from the options and the environment. */
  readonly settings: Settings;
  /**
   * The heap growth createServer set with `tuneHeap` (src/heap-tuning.ts): the percent, 0 for
   * V8's own factor (also when `tuneHeap` is off: the flag is left as it was), or `node-flag` when
   * node was started with `--heap-growing-percent` (that value stays).
   */
  readonly heapGrowthPercent: number | 'node-flag';
  /**
   * V8's allocation-site pretenuring as createServer left it (src/heap-tuning.ts): `off`, `v8`
   * (V8's own, and what a server without `tuneHeap` reports), or `node-flag` when node was
   * started with either form of the flag.
   */
  readonly pretenuring: Pretenuring;
  /** Which front end serves: `uws` (a native uWebSockets.js build), `node` (node:http), `none` (mounted only). */
  readonly frontEnd: FrontEndKind;
  /** The front end is native uWS (kept for earlier callers; see `frontEnd`). */
  readonly native: boolean;
  /**
   * The task runtime behind both transports, for this repository's tests and tools.
   * @internal
   */
  readonly service: TaskService;
  /** The task store in use. */
  readonly store: TaskStore;
  /** Live counters: tasks, actors, subscriptions, open streams (leak checks, metrics). */
  stats(): ServerStats;
  /**
   * Stops at once: running turns are abandoned (they are marked failed at the next start) and
   * open streams end where they are.
   */
  close(): Promise<void>;
  /**
   * Stops gracefully (what `a2actor serve` does on SIGTERM/SIGINT): no new connections, new
   * tasks refused with 503, running turns given `graceMs` (default SERVICE_SHUTDOWN_GRACE) to
   * end and then canceled, so every task is stored terminal or paused and every open stream and
   * blocking send gets its task's last event; then `close()`.
   */
  shutdown(opts?: { graceMs?: number }): Promise<void>;
  /**
   * The server as a node:http request handler, to mount in an existing app: Express
   * (`app.use('/a2a', server.nodeHandler())`, the mount path read from `req.baseUrl`), or a bare
   * `http.createServer` (give `mountPath` if the app does not strip it); Fastify, Hono and Koa
   * have adapters built on it (`a2aFastify`, `a2aHono`, `a2aKoa`). The card's URLs include the
   * mount path. A body the app already parsed (`express.json()`) is used. Start the server with
   * `frontEnd: 'none'` when the app is its only way in.
   */
  nodeHandler(opts?: { mountPath?: string }): NodeRequestHandler;
}

/** Serves an agent: resolves once it listens (or, with `frontEnd: 'none'`, is ready to mount). */
export async function createServer(options: CreateServerOptions): Promise<A2AServer> {
  const {
    agent,
    taskStore,
    eventLog,
    coordinator: givenCoordinator,
    logger: givenLogger,
    env,
    inspector,
    rawRoutes,
    cardSigning,
    tuneHeap = false,
    ...overrides
  } = options;
  const settings = resolveSettings(overrides, env);
  const logger = givenLogger ?? createLogger(settings.logLevel);
  const card = await cardStage(agent, settings, logger, cardSigning);
  const { debug, inspect, metrics } = await observabilityStage(settings, logger, inspector);
  const backends = await backendsStage({ taskStore, eventLog, coordinator: givenCoordinator, tuneHeap }, settings, logger, metrics);
  const { store, coordinator, heap } = backends;
  const push = await pushStage(backends, card.capabilities.pushNotifications, settings, logger, metrics);
  const service = runtimeStage(agent, backends, push, settings, logger, metrics, inspect);

  /** Closes what the stages below the front end opened; queued webhooks get `pushGraceMs`. */
  const closeBelowFrontEnd = async (pushGraceMs: number): Promise<void> => {
    await service.close();
    debug.close();
    await push.delivery?.close(pushGraceMs);
    await coordinator.close();
    await store.close();
  };
  // Bound before the protocol stage, so the card names the port actually bound.
  let grpc;
  try {
    grpc = await openGrpc(settings);
  } catch (err) {
    await closeBelowFrontEnd(0);
    throw err;
  }
  const servedCard = grpc ? { ...card, cardOptions: { ...card.cardOptions, grpcTarget: grpc.target } } : card;
  const { ops, route, admitHead } = protocolStage(service, push.configs, backends, servedCard, settings, logger, metrics);
  const { recovered } = await service.init();
  const front = await frontEndStage({
    settings,
    logger,
    metrics,
    route,
    admitHead,
    ops,
    service,
    backends,
    push,
    rawRoutes: [...debug.rawRoutes, ...(rawRoutes ?? [])],
    ...(grpc ? { grpcStreams: () => grpc.openStreams() } : {}),
    // A listener that cannot start leaves nothing of what was opened before it.
    closeOpened: () => {
      grpc?.close();
      return closeBelowFrontEnd(0);
    },
  });
  const { http, url } = front;
  grpc?.serve({ ops, gate: card.gate, logger, metrics, baseUrl: url || `http://${hostPort(settings.host, settings.port)}` });
  logger.info('server.started', {
    url,
    agent: agent.card.name,
    store: store.description,
    events: coordinator.description,
    frontEnd: front.description,
    heapGrowth: heap.heapGrowth === 'applied' ? `${heap.heapGrowthPercent}%` : heap.heapGrowth,
    pretenuring: heap.pretenuring,
    ...(heap.tuned ? {} : { heapTuning: 'off: V8 flags left as they were' }),
    metrics: front.metricsShown,
    ...(grpc ? { grpc: `${grpc.target} (${grpc.tls ? 'TLS' : 'plaintext'})` } : {}),
    capabilities: card.capabilities,
    ...(card.signer ? { cardSigning: { alg: card.signer.alg, ...(card.signer.kid ? { kid: card.signer.kid } : {}) } } : {}),
    recoveredTasks: recovered,
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      http.close();
      grpc?.close();
      await front.metricsListener?.close();
      front.closeMounted();
      // Queued webhook deliveries get a bounded grace period before the store goes away.
      await closeBelowFrontEnd(settings.shutdownGrace * 1000);
      logger.info('server.stopped', { url });
    })();
    return closing;
  };
  let draining: Promise<void> | undefined;
  const shutdown = (opts: { graceMs?: number } = {}): Promise<void> => {
    draining ??= (async () => {
      const graceMs = opts.graceMs ?? settings.shutdownGrace * 1000;
      logger.info('server.draining', { url, liveTasks: service.stats().liveTasks, graceMs });
      const drainEnds = Date.now() + graceMs;
      http.stopListening();
      const grpcStopped = grpc?.stopListening();
      await service.drain(graceMs);
      // Answers to blocking sends that the last turns just released go out first.
      await new Promise((resolve) => setImmediate(resolve));
      // gRPC calls end when their answer is written: wait for them within what is left of the grace.
      if (grpcStopped) await untilOrAfter(grpcStopped, drainEnds - Date.now());
      await close();
    })();
    return draining;
  };
  return {
    url,
    port: http.port,
    grpcPort: grpc?.port,
    metricsUrl: front.metricsUrl,
    settings,
    heapGrowthPercent: heap.heapGrowth === 'node-flag' ? 'node-flag' : heap.heapGrowthPercent,
    pretenuring: heap.pretenuring,
    frontEnd: http.frontEnd,
    native: http.frontEnd === 'uws',
    service,
    store,
    stats: front.stats,
    nodeHandler: (opts = {}) => front.mount(opts),
    close,
    shutdown,
  };
}
