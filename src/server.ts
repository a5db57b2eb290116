/**
 * createServer: wires the store, the event log, the task runtime, the protocol layer and the
 * uWS front end into one running server.
 */
import type { InspectionEvent, Observer } from 'xstate';
import type { AgentDefinition } from './agent.js';
import { resolveSettings, type Settings, type SettingsInput } from './config.js';
import { hostPort, type FrontEndKind, type HttpOptions, type HttpServer, type RawRoute } from './http/exchange.js';
import { startFrontEnd } from './http/front-end.js';
import { nodeHandler, type NodeRequestHandler } from './http/node-server.js';
import { setupDebug } from './debug/index.js';
import { checkSkillSecurity, createAuthGate } from './auth/gate.js';
import { createLogger, type Logger } from './log.js';
import { applyHeapGrowth, applyPretenuring, heapGrowthPercentFor, type Pretenuring } from './heap-tuning.js';
import { cardExtensions, checkExtensions } from './protocol/extensions.js';
import { observeRoutes } from './observe/requests.js';
import { createOperations } from './protocol/operations.js';
import { checkCard, type CardOptions } from './protocol/card.js';
import { createCardSigner, type CardSigner, type CardSigningOptions } from './protocol/card-signing.js';
import type { AgentCard } from './agent.js';
import { createRouter } from './protocol/router.js';
import { V1_PUSH_BODY } from './protocol/v1/push.js';
import { PushConfigs } from './push/configs.js';
import { PushDispatcher, type PushStats } from './push/dispatcher.js';
import type { TaskEventLog } from './runtime/event-log.js';
import { TaskService } from './runtime/task-service.js';
import { openStore } from './store/open.js';
import { openCoordinator, openEventLog } from './cluster/open.js';
import type { Coordinator } from './runtime/coordinator.js';
import type { TaskStore } from './store/types.js';
import { measuredStore } from './store/measured.js';
import { createMetrics, type ServerMetrics } from './observe/metrics.js';
import { metricsRoute, startMetricsListener, type MetricsListener } from './http/metrics-endpoint.js';

export interface CreateServerOptions extends Partial<SettingsInput> {
  agent: AgentDefinition;
  /** A store instance instead of the `store` setting. */
  taskStore?: TaskStore;
  /** An event log instead of the in-memory one. */
  eventLog?: TaskEventLog;
  /** A coordinator instead of the one the `events` setting names. */
  coordinator?: Coordinator;
  logger?: Logger;
  /** Environment to read SERVICE_* settings from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Observer of every task actor (e.g. the Stately inspector's `inspect`). */
  inspector?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** Extra non-A2A routes served first (the debug page plugs in here). */
  rawRoutes?: RawRoute[];
  /**
   * Sign every card served (README "Signed cards"); instead of SERVICE_CARD_SIGNING_KEY (whose
   * `kid`, `jku` and `alg` settings fill what is not given here).
   */
  cardSigning?: CardSigningOptions;
}

/** With SERVICE_METRICS_PORT (or `metrics: { port }`), /metrics has a listener of its own. */
const metricsPortOf = (settings: Settings): number | undefined =>
  typeof settings.metrics === 'object' ? settings.metrics.port : settings.metricsPort;

export interface A2AServer {
  /** `http://host:port` */
  readonly url: string;
  readonly port: number;
  /** Where /metrics is served: the server's own URL, or its own listener's (undefined: metrics off). */
  readonly metricsUrl: string | undefined;
  readonly settings: Settings;
  /**
   * The heap growth createServer set (src/heap-tuning.ts): the percent, 0 for V8's own factor,
   * or `node-flag` when node was started with `--heap-growing-percent` (that value stays).
   */
  readonly heapGrowthPercent: number | 'node-flag';
  /**
   * V8's allocation-site pretenuring as createServer left it (src/heap-tuning.ts): `off`, `v8`
   * (V8's own), or `node-flag` when node was started with either form of the flag.
   */
  readonly pretenuring: Pretenuring;
  /** Which front end serves: `uws` (a native uWebSockets.js build), `node` (node:http), `none` (mounted only). */
  readonly frontEnd: FrontEndKind;
  /** The front end is native uWS (kept for earlier callers; see `frontEnd`). */
  readonly native: boolean;
  readonly service: TaskService;
  readonly store: TaskStore;
  /** Live counters: tasks, actors, subscriptions, open streams (leak checks, metrics). */
  stats(): {
    liveTasks: number;
    runningActors: number;
    pendingFlushes: number;
    eventLogs: number;
    subscribers: number;
    openStreams: number;
    frontEnd: FrontEndKind;
    /** Webhook delivery: workers, queued deliveries, attempts in flight. */
    push: PushStats;
  };
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
   * (`app.use('/a2a', server.nodeHandler())`, the mount path read from `req.baseUrl`), Fastify
   * or Hono's node adapter, or a bare `http.createServer` (give `mountPath` if the app does not
   * strip it). The card's URLs include the mount path. Start the server with
   * `frontEnd: 'none'` when the app is its only way in.
   */
  nodeHandler(opts?: { mountPath?: string }): NodeRequestHandler;
}

/**
 * The card signer from the `cardSigning` option or the SERVICE_CARD_SIGNING_* settings, tried
 * once on the checked card so that a key jose cannot sign with stops the start, not a request.
 */
async function cardSignerOf(given: CardSigningOptions | undefined, settings: Settings, sample: AgentCard): Promise<CardSigner | undefined> {
  const key = given?.key ?? settings.cardSigningKey;
  if (key === undefined) return undefined;
  const kid = given?.kid ?? settings.cardSigningKid;
  const jku = given?.jku ?? settings.cardSigningJku;
  const alg = given?.alg ?? settings.cardSigningAlg;
  const signer = createCardSigner({ key, ...(kid ? { kid } : {}), ...(jku ? { jku } : {}), ...(alg ? { alg } : {}) });
  try {
    await signer.sign(sample);
  } catch (err) {
    throw new TypeError(`card signing key: a test signature failed (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  }
  return signer;
}

/** A backend's URL as it may be shown: no user name or password. */
function withoutCredentials(spec: string): string {
  try {
    const url = new URL(spec);
    if (!url.username && !url.password) return spec;
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return spec;
  }
}

/** A backend that failed at start-up, named with its URL (credentials left out). */
const backendError = (what: string, spec: string, err: unknown): Error =>
  new Error(`the ${what} ${withoutCredentials(spec)} could not be opened: ${err instanceof Error ? err.message : String(err)}`, {
    cause: err,
  });

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
    ...overrides
  } = options;
  const settings = resolveSettings(overrides, env);
  const logger = givenLogger ?? createLogger(settings.logLevel);
  // Checked before anything opens: a declaration the card could not honour stops here.
  checkSkillSecurity(agent.card.skills, agent.auth);
  checkExtensions(agent.capabilities?.extensions);
  const gate = agent.auth ? createAuthGate(agent.auth, logger) : undefined;
  const declared = agent.capabilities ?? {};
  const capabilities = {
    streaming: (declared.streaming ?? false) && settings.streaming,
    pushNotifications: (declared.pushNotifications ?? false) && settings.pushNotifications,
    stateTransitionHistory: declared.stateTransitionHistory ?? true,
    ...(declared.extensions && declared.extensions.length > 0 ? { extensions: cardExtensions(declared.extensions) } : {}),
  };
  const cardOptions: CardOptions = {
    agent,
    capabilities,
    preferredTransport: settings.preferredTransport,
    ...(gate ? { security: gate.card } : {}),
  };
  // So is a card that breaks the A2A rules, and a signing key that cannot sign it.
  const signer = await cardSignerOf(cardSigning, settings, checkCard(cardOptions));
  // The /chat page and the Stately inspector; an `inspector` given here wins over `inspect`.
  const debug = await setupDebug({ ...settings, inspect: settings.inspect && !inspector }, logger);
  const inspect = inspector ?? debug.inspect;
  const metrics = settings.metrics === false ? undefined : createMetrics();
  let store: TaskStore;
  try {
    store = taskStore ?? (await openStore(settings.store));
  } catch (err) {
    throw backendError('store', settings.store, err);
  }
  // Process-wide, before the load: bounds the garbage V8 lets pile up between full collections.
  const heapGrowthPercent = heapGrowthPercentFor(settings.heapGrowthPercent, store);
  const heapGrowth = applyHeapGrowth(heapGrowthPercent);
  const pretenuring = applyPretenuring(settings.pretenuring);
  const events =
    eventLog ??
    (await openEventLog(settings, logger, metrics).catch(async (err: unknown) => {
      await store.close();
      throw backendError('event log', settings.events, err);
    }));
  let coordinator: Coordinator;
  try {
    coordinator = givenCoordinator ?? (await openCoordinator(settings.events, settings.leaseTtl, logger, metrics));
  } catch (err) {
    await store.close();
    throw backendError('event log', settings.events, err);
  }
  // Timed store operations; `server.store` stays the adapter itself.
  const timedStore = metrics ? measuredStore(store, metrics) : store;
  const service = new TaskService({
    agent,
    store: timedStore,
    metrics,
    events,
    settings,
    logger,
    coordinator,
    leaseTtl: settings.leaseTtl,
    // With replicas a turn's webhooks go out (2 s at most) before another replica may run the next.
    beforeHandOver: (taskId) => pushDelivery?.drained(taskId, 2000) ?? Promise.resolve(),
    ...(inspect ? { inspect } : {}),
  });
  const push = new PushConfigs(timedStore, settings.pushMaxConfigsPerTask);
  // Webhook delivery: every transition of an exposed task goes to the task's configs.
  const pushDelivery = capabilities.pushNotifications
    ? new PushDispatcher({ configs: push, settings, logger, metrics, bodies: { '1.0': V1_PUSH_BODY } })
    : undefined;
  if (pushDelivery) {
    push.onChange((taskId) => pushDelivery.invalidate(taskId));
    service.setInlinePushRegistrar(async (taskId, config) => {
      pushDelivery.registeredInline(taskId);
      await push.set(taskId, config);
    });
    service.onTransition((task) => pushDelivery.notify(task), { handledWithoutCopy: (task) => pushDelivery.handledWithoutCopy(task) });
  }
  const ops = createOperations({
    service,
    push,
    card: cardOptions,
    maxJsonDepth: settings.maxJsonDepth,
    logger,
    ...(signer ? { signer } : {}),
    readiness: {
      store: () => store.ping?.() ?? Promise.resolve(),
      events: () => Promise.all([coordinator.ping(), events.ping?.()]).then(() => undefined),
    },
  });
  const router = createRouter(ops, logger, { maxJsonDepth: settings.maxJsonDepth, restDialect: settings.restDialect }, gate);
  /**
   * The exposition: gauges are read from the server as it stands, and readiness is checked at
   * each scrape (with the readiness endpoint's own timeout) rather than cached from the last
   * probe: nothing guarantees a probe runs, and one ping per backend per scrape is cheap.
   */
  const renderWith = (m: ServerMetrics) => async (): Promise<string> => {
    const { checks } = (await ops.readiness()).body;
    const stats = server.stats();
    return m.render({
      liveTasks: stats.liveTasks,
      runningActors: stats.runningActors,
      openStreams: stats.openStreams,
      pushInFlight: stats.push.inFlight,
      pushQueued: stats.push.queued,
      ready: { store: checks.store === 'ok', events: checks.events === 'ok' },
    });
  };
  const renderMetrics = metrics ? renderWith(metrics) : undefined;
  const metricsPort = metrics ? metricsPortOf(settings) : undefined;

  const { recovered } = await service.init();
  const httpOptions: HttpOptions = {
    host: settings.host,
    port: settings.port,
    maxBodyBytes: settings.maxBodyBytes,
    route: observeRoutes(router, logger, metrics),
    rawRoutes: [
      ...(renderMetrics && metricsPort === undefined ? [metricsRoute(renderMetrics)] : []),
      ...debug.rawRoutes,
      ...(rawRoutes ?? []),
    ],
    sse: { heartbeatMs: settings.sseHeartbeat * 1000, maxBufferedBytes: settings.sseMaxBufferedBytes },
    logger,
    ...(metrics ? { metrics } : {}),
  };
  /** Handlers mounted in host apps: their open streams count and close with the server's. */
  const mounted: ReturnType<typeof nodeHandler>['exchange'][] = [];
  /** A listener that cannot start leaves nothing of what was opened before it. */
  const closeOpened = async () => {
    await service.close();
    debug.close();
    await pushDelivery?.close(0);
    await coordinator.close();
    await store.close();
  };
  let http: HttpServer;
  let frontEnd: string;
  try {
    ({ http, description: frontEnd } = await startFrontEnd(settings.frontEnd, httpOptions));
  } catch (err) {
    await closeOpened();
    throw err;
  }
  let metricsListener: MetricsListener | undefined;
  if (renderMetrics && metricsPort !== undefined) {
    try {
      metricsListener = await startMetricsListener(settings.host, metricsPort, renderMetrics);
    } catch (err) {
      http.close();
      await closeOpened();
      throw err;
    }
  }
  const url = http.frontEnd === 'none' ? '' : `http://${hostPort(settings.host, http.port)}`;
  const metricsUrl = metricsListener
    ? `http://${hostPort(settings.host, metricsListener.port)}/metrics`
    : renderMetrics && url
      ? `${url}/metrics`
      : undefined;
  logger.info('server.started', {
    url,
    agent: agent.card.name,
    store: store.description,
    events: coordinator.description,
    frontEnd,
    heapGrowth: heapGrowth === 'applied' ? `${heapGrowthPercent}%` : heapGrowth,
    pretenuring,
    metrics: metricsUrl ?? (renderMetrics ? 'mounted app /metrics' : 'off'),
    capabilities,
    ...(signer ? { cardSigning: { alg: signer.alg, ...(signer.kid ? { kid: signer.kid } : {}) } } : {}),
    recoveredTasks: recovered,
  });

  let closing: Promise<void> | undefined;
  let draining: Promise<void> | undefined;
  const server: A2AServer = {
    url,
    port: http.port,
    metricsUrl,
    settings,
    heapGrowthPercent: heapGrowth === 'node-flag' ? 'node-flag' : heapGrowthPercent,
    pretenuring,
    frontEnd: http.frontEnd,
    native: http.frontEnd === 'uws',
    service,
    store,
    stats() {
      const e = events.stats();
      const push = pushDelivery?.stats() ?? { workers: 0, queued: 0, inFlight: 0, cachedTasks: 0 };
      return {
        ...service.stats(),
        eventLogs: e.logs,
        subscribers: e.subscribers,
        openStreams: http.openStreams() + mounted.reduce((n, m) => n + m.openStreams(), 0),
        frontEnd: http.frontEnd,
        push,
      };
    },
    nodeHandler(opts = {}) {
      const { handler, exchange } = nodeHandler(httpOptions, hostPort(settings.host, settings.port), opts);
      mounted.push(exchange);
      return handler;
    },
    close() {
      closing ??= (async () => {
        http.close();
        await metricsListener?.close();
        for (const m of mounted) m.closeStreams();
        await service.close();
        debug.close();
        // Queued webhook deliveries get a bounded grace period before the store goes away.
        await pushDelivery?.close(settings.shutdownGrace * 1000);
        await coordinator.close();
        await store.close();
        logger.info('server.stopped', { url });
      })();
      return closing;
    },
    shutdown(opts = {}) {
      draining ??= (async () => {
        const graceMs = opts.graceMs ?? settings.shutdownGrace * 1000;
        logger.info('server.draining', { url, liveTasks: service.stats().liveTasks, graceMs });
        http.stopListening();
        await service.drain(graceMs);
        // Answers to blocking sends that the last turns just released go out first.
        await new Promise((resolve) => setImmediate(resolve));
        await server.close();
      })();
      return draining;
    },
  };
  return server;
}
