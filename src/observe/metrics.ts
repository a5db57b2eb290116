/**
 * The server's own metric families (`a2actor_*`) and the small interface the layers call to
 * feed them. Every layer may import this folder; it imports nothing of ours, so it never pulls
 * a layer into another. With metrics off the layers hold `NO_METRICS`, whose methods do
 * nothing. Label values are bounded: operations outside the A2A method list read `unknown`.
 */
import { Buckets, renderFamilies, type Family, type Labels, type Tally } from './exposition.js';
import { processMetricsText } from './process-metrics.js';

/** How a request came in: JSON-RPC at `POST /`, REST under /v1, the discovery card, or gRPC. */
export type Transport = 'jsonrpc' | 'rest' | 'card' | 'grpc';
/**
 * A webhook delivery's end, `retried` for an attempt that failed and is tried again, or
 * `replaced` for a waiting delivery a newer state of its task made unneeded (never sent).
 */
export type PushOutcome = 'delivered' | 'retried' | 'refused_url' | 'failed' | 'replaced';
export type StoreKind = 'memory' | 'sqlite' | 'postgres' | 'other';

/** What the layers report. Each call is a couple of number writes at most. */
export interface Metrics {
  /** A request answered: its operation, and `errorCode` (the A2A/JSON-RPC code) when it failed. */
  requestDone(transport: Transport, operation: string, errorCode: number | undefined, seconds: number): void;
  /** A task entered a state (every transition of the task machine). */
  taskEntered(state: string): void;
  /** The agent's handler ran one turn of a task for this long. */
  turnDone(seconds: number): void;
  /** A turn ran past SERVICE_TURN_TIMEOUT and its task was failed. */
  turnTimedOut(): void;
  sseEventWritten(): void;
  /** A stream was closed because its reader fell too far behind. */
  sseStreamCut(): void;
  /** A `Last-Event-ID` resume was answered from the event log, or from a snapshot of the task. */
  replayServed(from: 'log' | 'snapshot'): void;
  pushDelivery(outcome: PushOutcome): void;
  pushAttemptDone(seconds: number): void;
  /** A webhook origin's circuit breaker opened (true) or closed again (false). */
  pushCircuitChanged(open: boolean): void;
  storeOpDone(store: StoreKind, operation: string, seconds: number): void;
  /** The shared (Redis) event log: an append mirrored, or a Stream read, and whether it worked. */
  eventLogOpDone(operation: 'append' | 'read', ok: boolean, seconds: number): void;
  /** A task lease: claimed or not, renewed or lost, or the backend failed. */
  leaseOpDone(operation: 'claim' | 'renew', outcome: 'acquired' | 'held_elsewhere' | 'renewed' | 'lost' | 'error'): void;
}

const noop = (): void => {};
/** Metrics off: every report is dropped. */
export const NO_METRICS: Metrics = {
  requestDone: noop,
  taskEntered: noop,
  turnDone: noop,
  turnTimedOut: noop,
  sseEventWritten: noop,
  sseStreamCut: noop,
  replayServed: noop,
  pushDelivery: noop,
  pushAttemptDone: noop,
  pushCircuitChanged: noop,
  storeOpDone: noop,
  eventLogOpDone: noop,
  leaseOpDone: noop,
};

/** The A2A methods (JSON-RPC names) and our REST-only routes: the only `operation` values. */
const OPERATIONS = new Set([
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/list',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
  'agent/card',
  'health',
  'health/ready',
]);
/** The service spec's name for message/stream (served as the same method). */
const ALIASES: Readonly<Record<string, string>> = { 'message/sendStream': 'message/stream' };

const TASK_STATES = ['submitted', 'working', 'input-required', 'auth-required', 'completed', 'failed', 'canceled', 'rejected'];

/** Counters of one (transport, operation): per outcome, and the latency histogram. */
interface RequestSeries {
  readonly latency: Buckets;
  readonly outcomes: Map<string, Tally>;
}

/** What the scrape reads from the server as it stands (gauges are not kept, they are looked at). */
export interface ScrapeGauges {
  liveTasks: number;
  runningActors: number;
  openStreams: number;
  pushInFlight: number;
  pushQueued: number;
  /** Large request bodies waiting for the body budget, and their bytes being read or parsed. */
  bodiesWaiting: number;
  bodyBytesInFlight: number;
  /** Backend -> whether its readiness check passed (SERVICE readiness, same timeout). */
  ready: Readonly<Record<string, boolean>>;
}

export interface ServerMetrics extends Metrics {
  /** The whole exposition: our families, then the process's (CPU, memory, event loop, GC). */
  render(gauges: ScrapeGauges): Promise<string>;
}

/** A tally per label value, in first-seen order (for the fixed sets, creation order). */
function tallies(keys: readonly string[] = []): Map<string, Tally> {
  return new Map(keys.map((k) => [k, { n: 0 }]));
}
const bump = (map: Map<string, Tally>, key: string): void => {
  const t = map.get(key);
  if (t) t.n++;
  else map.set(key, { n: 1 });
};

export function createMetrics(): ServerMetrics {
  const requests = new Map<Transport, Map<string, RequestSeries>>();
  const transitions = tallies(TASK_STATES);
  const turns = new Buckets();
  const turnTimeouts = { n: 0 };
  const sse = { events: { n: 0 }, cut: { n: 0 } };
  const replays = tallies(['log', 'snapshot']);
  const push = tallies(['delivered', 'retried', 'refused_url', 'failed', 'replaced']);
  const pushAttempts = new Buckets();
  /** Kept from the breakers' reports: the gauge needs no look into the dispatcher. */
  const openCircuits = { n: 0 };
  const store = new Map<string, { labels: Labels; buckets: Buckets }>();
  /** The same series by store kind, then operation, for the hot path's look-up. */
  const storeSeries = new Map<string, Map<string, { labels: Labels; buckets: Buckets }>>();
  const eventLog = new Map<string, Buckets>();
  const eventLogOutcomes = tallies();
  const leases = tallies();

  /** Series are keyed by canonical names only: a client inventing method names cannot grow the map. */
  const requestSeries = (transport: Transport, operation: string): RequestSeries => {
    let byOp = requests.get(transport);
    if (!byOp) requests.set(transport, (byOp = new Map()));
    let series = byOp.get(operation);
    if (!series) {
      const op = ALIASES[operation] ?? (OPERATIONS.has(operation) ? operation : 'unknown');
      series = byOp.get(op);
      if (!series) byOp.set(op, (series = { latency: new Buckets(), outcomes: tallies(['ok']) }));
    }
    return series;
  };

  const families = (g: ScrapeGauges): Family[] => {
    const reqCounts: { labels: Labels; value: number }[] = [];
    const reqLatency: { labels: Labels; buckets: Buckets }[] = [];
    for (const [transport, byOp] of requests) {
      for (const [operation, series] of byOp) {
        for (const [outcome, t] of series.outcomes) reqCounts.push({ labels: { transport, operation, outcome }, value: t.n });
        reqLatency.push({ labels: { transport, operation }, buckets: series.latency });
      }
    }
    const counts = (map: Map<string, Tally>, label: string) => [...map].map(([k, t]) => ({ labels: { [label]: k }, value: t.n }));
    const one = (value: number) => [{ labels: {}, value }];
    return [
      {
        name: 'a2actor_requests_total',
        help: 'A2A requests answered, by transport, operation and outcome (ok or the A2A error code).',
        type: 'counter',
        series: reqCounts,
      },
      {
        name: 'a2actor_request_duration_seconds',
        help: 'Time from a request reaching the protocol layer to its answer (a stream: until it starts).',
        type: 'histogram',
        series: reqLatency,
      },
      {
        name: 'a2actor_task_transitions_total',
        help: 'Task states entered, by state.',
        type: 'counter',
        series: counts(transitions, 'state'),
      },
      {
        name: 'a2actor_task_turn_duration_seconds',
        help: "Time the agent's handler ran for one turn of a task.",
        type: 'histogram',
        series: [{ labels: {}, buckets: turns }],
      },
      {
        name: 'a2actor_task_turn_timeouts_total',
        help: 'Turns that ran past the time limit (SERVICE_TURN_TIMEOUT): each failed its task.',
        type: 'counter',
        series: one(turnTimeouts.n),
      },
      { name: 'a2actor_tasks_live', help: 'Tasks with a turn in progress in this process.', type: 'gauge', series: one(g.liveTasks) },
      {
        name: 'a2actor_actors_running',
        help: 'Task actors (XState) running in this process.',
        type: 'gauge',
        series: one(g.runningActors),
      },
      { name: 'a2actor_sse_streams_open', help: 'SSE streams open now.', type: 'gauge', series: one(g.openStreams) },
      { name: 'a2actor_sse_events_total', help: 'Events written to SSE streams.', type: 'counter', series: one(sse.events.n) },
      {
        name: 'a2actor_sse_streams_cut_total',
        help: 'SSE streams closed because the reader fell too far behind.',
        type: 'counter',
        series: one(sse.cut.n),
      },
      {
        name: 'a2actor_sse_replays_total',
        help: 'Last-Event-ID resumes served, from the event log or from a task snapshot.',
        type: 'counter',
        series: counts(replays, 'from'),
      },
      {
        name: 'a2actor_push_deliveries_total',
        help: 'Webhook deliveries by outcome; retried counts attempts that failed and were tried again, replaced waiting deliveries a newer state made unneeded.',
        type: 'counter',
        series: counts(push, 'outcome'),
      },
      {
        name: 'a2actor_push_attempt_duration_seconds',
        help: 'Duration of one webhook POST attempt.',
        type: 'histogram',
        series: [{ labels: {}, buckets: pushAttempts }],
      },
      {
        name: 'a2actor_http_bodies_waiting',
        help: 'Large request bodies waiting for their turn in the body budget now.',
        type: 'gauge',
        series: one(g.bodiesWaiting),
      },
      {
        name: 'a2actor_http_body_bytes_in_flight',
        help: 'Bytes of large request bodies being read or parsed now, within the body budget.',
        type: 'gauge',
        series: one(g.bodyBytesInFlight),
      },
      { name: 'a2actor_push_in_flight', help: 'Webhook attempts in flight now.', type: 'gauge', series: one(g.pushInFlight) },
      { name: 'a2actor_push_queued', help: 'Webhook deliveries waiting now.', type: 'gauge', series: one(g.pushQueued) },
      {
        name: 'a2actor_push_circuits_open',
        help: 'Webhook origins whose circuit breaker is open or half-open now.',
        type: 'gauge',
        series: one(openCircuits.n),
      },
      {
        name: 'a2actor_store_operation_duration_seconds',
        help: 'Task store operations, by store kind and operation.',
        type: 'histogram',
        series: [...store.values()],
      },
      {
        name: 'a2actor_event_log_operations_total',
        help: 'Shared (Redis) event log operations, by operation and outcome.',
        type: 'counter',
        series: [...eventLogOutcomes].map(([k, t]) => {
          const [operation = '', outcome = ''] = k.split(' ');
          return { labels: { operation, outcome }, value: t.n };
        }),
      },
      {
        name: 'a2actor_event_log_operation_duration_seconds',
        help: 'Shared (Redis) event log operations, by operation.',
        type: 'histogram',
        series: [...eventLog].map(([operation, buckets]) => ({ labels: { operation }, buckets })),
      },
      {
        name: 'a2actor_lease_operations_total',
        help: 'Task lease claims and renewals (replicas), by outcome.',
        type: 'counter',
        series: [...leases].map(([k, t]) => {
          const [operation = '', outcome = ''] = k.split(' ');
          return { labels: { operation, outcome }, value: t.n };
        }),
      },
      {
        name: 'a2actor_backend_ready',
        help: 'Whether a backend passed its readiness check at this scrape (1) or not (0).',
        type: 'gauge',
        series: Object.entries(g.ready).map(([backend, up]) => ({ labels: { backend }, value: up ? 1 : 0 })),
      },
    ];
  };

  return {
    requestDone(transport, operation, errorCode, seconds) {
      const series = requestSeries(transport, operation);
      series.latency.observe(seconds);
      if (errorCode === undefined) (series.outcomes.get('ok') as Tally).n++;
      else bump(series.outcomes, String(errorCode));
    },
    taskEntered(state) {
      bump(transitions, TASK_STATES.includes(state) ? state : 'unknown');
    },
    turnDone(seconds) {
      turns.observe(seconds);
    },
    turnTimedOut() {
      turnTimeouts.n++;
    },
    sseEventWritten() {
      sse.events.n++;
    },
    sseStreamCut() {
      sse.cut.n++;
    },
    replayServed(from) {
      bump(replays, from);
    },
    pushDelivery(outcome) {
      bump(push, outcome);
    },
    pushAttemptDone(seconds) {
      pushAttempts.observe(seconds);
    },
    pushCircuitChanged(open) {
      openCircuits.n = Math.max(0, openCircuits.n + (open ? 1 : -1));
    },
    storeOpDone(kind, operation, seconds) {
      // Keyed by kind, then operation: no key string built per store call.
      let byOperation = storeSeries.get(kind);
      if (!byOperation) storeSeries.set(kind, (byOperation = new Map()));
      let series = byOperation.get(operation);
      if (!series) {
        byOperation.set(operation, (series = { labels: { store: kind, operation }, buckets: new Buckets() }));
        store.set(`${kind} ${operation}`, series);
      }
      series.buckets.observe(seconds);
    },
    eventLogOpDone(operation, ok, seconds) {
      let buckets = eventLog.get(operation);
      if (!buckets) eventLog.set(operation, (buckets = new Buckets()));
      buckets.observe(seconds);
      bump(eventLogOutcomes, `${operation} ${ok ? 'ok' : 'error'}`);
    },
    leaseOpDone(operation, outcome) {
      bump(leases, `${operation} ${outcome}`);
    },
    async render(gauges) {
      return renderFamilies(families(gauges)) + (await processMetricsText());
    },
  };
}
