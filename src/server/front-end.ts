/**
 * Stage 7 of createServer: the ways in. The listener (uWS, node:http or none), /metrics on it or
 * on a listener of its own, and the handlers an app mounts (`server.nodeHandler()`). Every open
 * stream, the listener's or a mounted handler's, counts in the stats and closes with the server.
 */
import type { Settings } from '../config.js';
import { IDLE_BODY_BUDGET, type BodyBudgetStats } from '../http/body-budget.js';
import { hostPort, type HttpOptions, type HttpServer, type RawRoute } from '../http/exchange.js';
import { createHostGuard } from '../http/host-check.js';
import { startFrontEnd } from '../http/front-end.js';
import { metricsRoute, startMetricsListener, type MetricsListener } from '../http/metrics-endpoint.js';
import { nodeHandler, type NodeRequestHandler } from '../http/node-server.js';
import type { Logger } from '../log.js';
import type { ServerMetrics } from '../observe/metrics.js';
import type { Operations } from '../protocol/operations.js';
import type { PushStats } from '../push/dispatcher.js';
import type { TaskService } from '../runtime/task-service.js';
import type { BackendsStage } from './backends.js';
import type { PushStage } from './runtime.js';

/** Live counters of a server, for leak checks and metrics. */
export interface ServerStats {
  /** Tasks with a turn in progress. */
  liveTasks: number;
  /** Task actors running. */
  runningActors: number;
  /** Tasks whose coalesced progress write is due or under way. */
  pendingFlushes: number;
  /** Turns with a time limit (SERVICE_TURN_TIMEOUT) still counting. */
  turnDeadlines: number;
  /** Tasks whose events the event log holds. */
  eventLogs: number;
  /** Listeners of task events (streams, subscribes, blocking sends). */
  subscribers: number;
  /** SSE streams open now. */
  openStreams: number;
  /** Large bodies waiting for the body budget, and their bytes in flight (listener and mounts). */
  bodyBudget: BodyBudgetStats;
  /** Which front end serves. */
  frontEnd: HttpServer['frontEnd'];
  /** Webhook delivery: workers, queued deliveries, attempts in flight. */
  push: PushStats;
}

export interface FrontEndStage {
  readonly http: HttpServer;
  /** For the start-up line: which front end, and which uWS build when it is uWS. */
  readonly description: string;
  readonly metricsListener: MetricsListener | undefined;
  /** `http://host:port`, or '' when the server is only mounted. */
  readonly url: string;
  readonly metricsUrl: string | undefined;
  /** Where /metrics is, for the start-up line. */
  readonly metricsShown: string;
  stats(): ServerStats;
  mount(opts: { mountPath?: string }): NodeRequestHandler;
  /** Ends the open streams of every mounted handler. */
  closeMounted(): void;
}

/** What the front end serves and counts: the earlier stages' results. */
export interface FrontEndInputs {
  readonly settings: Settings;
  readonly logger: Logger;
  readonly metrics: ServerMetrics | undefined;
  readonly route: HttpOptions['route'];
  readonly admitHead: HttpOptions['admitHead'];
  readonly ops: Operations;
  readonly service: TaskService;
  readonly backends: BackendsStage;
  readonly push: PushStage;
  /** The debug page's routes, then the caller's own. */
  readonly rawRoutes: readonly RawRoute[];
  /** Closes what the earlier stages opened, when a listener cannot start. */
  readonly closeOpened: () => Promise<void>;
  /** Streams open on the gRPC listener, if there is one: counted in stats().openStreams. */
  readonly grpcStreams?: () => number;
}

/** With SERVICE_METRICS_PORT (or `metrics: { port }`), /metrics has a listener of its own. */
const metricsPortOf = (settings: Settings): number | undefined =>
  typeof settings.metrics === 'object' ? settings.metrics.port : settings.metricsPort;

const NO_PUSH: PushStats = { workers: 0, queued: 0, inFlight: 0, cachedTasks: 0 };

export async function frontEndStage(inputs: FrontEndInputs): Promise<FrontEndStage> {
  const { settings, logger, metrics, service, backends, push } = inputs;
  /** The listener once it has started: before that nothing is served, so nothing reads it. */
  const listener: { started?: HttpServer } = {};
  /** Handlers mounted in host apps: their open streams count and close with the server's. */
  const mounted: ReturnType<typeof nodeHandler>['exchange'][] = [];
  const stats = (): ServerStats => {
    const e = backends.events.stats();
    return {
      ...service.stats(),
      eventLogs: e.logs,
      subscribers: e.subscribers,
      openStreams:
        (listener.started?.openStreams() ?? 0) + mounted.reduce((n, m) => n + m.openStreams(), 0) + (inputs.grpcStreams?.() ?? 0),
      bodyBudget: [listener.started, ...mounted].reduce<BodyBudgetStats>((sum, front) => {
        const own = front?.bodyBudget() ?? IDLE_BODY_BUDGET;
        return { waiting: sum.waiting + own.waiting, inFlightBytes: sum.inFlightBytes + own.inFlightBytes };
      }, IDLE_BODY_BUDGET),
      frontEnd: listener.started?.frontEnd ?? 'none',
      push: push.delivery?.stats() ?? { ...NO_PUSH },
    };
  };
  /**
   * The exposition: gauges are read from the server as it stands, and readiness is checked at
   * each scrape (with the readiness endpoint's own timeout) rather than cached from the last
   * probe: nothing guarantees a probe runs, and one ping per backend per scrape is cheap.
   */
  const renderWith = (m: ServerMetrics) => async (): Promise<string> => {
    const { checks } = (await inputs.ops.readiness()).body;
    const now = stats();
    return m.render({
      liveTasks: now.liveTasks,
      runningActors: now.runningActors,
      openStreams: now.openStreams,
      pushInFlight: now.push.inFlight,
      pushQueued: now.push.queued,
      bodiesWaiting: now.bodyBudget.waiting,
      bodyBytesInFlight: now.bodyBudget.inFlightBytes,
      ready: { store: checks.store === 'ok', events: checks.events === 'ok' },
    });
  };
  const renderMetrics = metrics ? renderWith(metrics) : undefined;
  const metricsPort = metrics ? metricsPortOf(settings) : undefined;
  const hostPolicy = { allowedHosts: settings.allowedHosts, trustedProxies: settings.trustedProxies };
  const httpOptions: HttpOptions = {
    host: settings.host,
    port: settings.port,
    maxBodyBytes: settings.maxBodyBytes,
    bodyBudget: { budgetBytes: settings.bodyBudgetBytes, maxWaiting: settings.bodyQueue, readTimeoutMs: settings.bodyReadTimeout * 1000 },
    route: inputs.route,
    ...(inputs.admitHead ? { admitHead: inputs.admitHead } : {}),
    rawRoutes: [...(renderMetrics && metricsPort === undefined ? [metricsRoute(renderMetrics)] : []), ...inputs.rawRoutes],
    sse: { heartbeatMs: settings.sseHeartbeat * 1000, maxBufferedBytes: settings.sseMaxBufferedBytes },
    logger,
    hostGuard: createHostGuard({ ...hostPolicy, listenHost: settings.host }),
    ...(metrics ? { metrics } : {}),
  };

  let started;
  try {
    started = await startFrontEnd(settings.frontEnd, httpOptions);
  } catch (err) {
    await inputs.closeOpened();
    throw err;
  }
  const { http, description } = started;
  listener.started = http;
  let metricsListener: MetricsListener | undefined;
  if (renderMetrics && metricsPort !== undefined) {
    try {
      metricsListener = await startMetricsListener(settings.host, metricsPort, renderMetrics);
    } catch (err) {
      http.close();
      await inputs.closeOpened();
      throw err;
    }
  }
  const url = http.frontEnd === 'none' ? '' : `http://${hostPort(settings.host, http.port)}`;
  const metricsUrl = metricsListener
    ? `http://${hostPort(settings.host, metricsListener.port)}/metrics`
    : renderMetrics && url
      ? `${url}/metrics`
      : undefined;
  return {
    http,
    description,
    metricsListener,
    url,
    metricsUrl,
    metricsShown: metricsUrl ?? (renderMetrics ? 'mounted app /metrics' : 'off'),
    stats,
    mount(opts) {
      // A host app listens where it likes: `auto` is decided by each connection's local address.
      const mountOptions = { ...httpOptions, hostGuard: createHostGuard(hostPolicy) };
      const { handler, exchange } = nodeHandler(mountOptions, hostPort(settings.host, settings.port), opts);
      mounted.push(exchange);
      return handler;
    },
    closeMounted() {
      for (const m of mounted) m.closeStreams();
    },
  };
}
