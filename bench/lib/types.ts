/**
 * The vocabulary shared by the orchestrator (bench/run.ts), the load generator process
 * (bench/load/generator.ts) and the server processes (bench/servers/*): what a workload asks
 * for, what a run measured, and the messages they exchange over the IPC channel.
 */

/**
 * The servers one run compares. `raw` is a bare uWS server: the ceiling of the machine.
 * `cluster` is ours as a service of two replicas (two processes) on PostgreSQL and Redis.
 * `node`: ours on the node front end (HTTP/1.1 of its own on node:net, memory store), what serves where no
 * native uWS build loads. `node-http`: ours on node:http's own server (`SERVICE_FRONT_END=node-http`),
 * what the node front end was until 2026-11-27 and what every mounted server runs on (W1, W2, W4).
 * `express`: ours with no listener of its own, `server.nodeHandler()` mounted at the root of an Express app.
 * `plain`: ours on the plain memory store (`memory-plain`, src/store/map-store.ts), run only when
 * named: it is the reference the packed memory store is measured against (W1, W5, W9).
 * `peer` is the official SDK 0.3.14 (the v0.3 workloads' peer), `peer-v1` the official SDK 1.3.0
 * in its native v1.0 mode (the v1.0 workloads' peer).
 */
export type ServerKind =
  'raw' | 'memory' | 'plain' | 'node' | 'node-http' | 'express' | 'auth' | 'metrics' | 'sqlite' | 'cluster' | 'peer' | 'peer-v1';
export const SERVER_KINDS: readonly ServerKind[] = [
  'raw',
  'memory',
  'plain',
  'node',
  'node-http',
  'express',
  'auth',
  'metrics',
  'sqlite',
  'cluster',
  'peer',
  'peer-v1',
];
/** What `--servers` runs when not given. */
export const DEFAULT_SERVER_KINDS: readonly ServerKind[] = SERVER_KINDS.filter((kind) => kind !== 'plain');

/**
 * W1..W8 from issue 5, W9 and SOAK from issue 19 (memory); C1/C6 are the raw server's ceilings
 * for POST and GET. W1v1, W2v1 and W4v1 are W1, W2 and W4 in A2A v1.0 (`SendMessage`,
 * `POST /message:send`, `SendStreamingMessage`), against the v1.0 peer.
 */
export type WorkloadId = 'C1' | 'C6' | 'W1' | 'W2' | 'W3' | 'W4' | 'W1v1' | 'W2v1' | 'W4v1' | 'W5' | 'W6' | 'W7' | 'W8' | 'W9' | 'SOAK';
/** What `--workloads` accepts. */
export const WORKLOAD_IDS: readonly WorkloadId[] = ['W1', 'W2', 'W3', 'W4', 'W1v1', 'W2v1', 'W4v1', 'W5', 'W6', 'W7', 'W8', 'W9', 'SOAK'];
/** What runs when `--workloads` is not given: the soak takes minutes, so it is asked for by name. */
export const DEFAULT_WORKLOAD_IDS: readonly WorkloadId[] = WORKLOAD_IDS.filter((id) => id !== 'SOAK');

/** How the load generator decides that one response is a success. */
export type Check =
  /** 200 with any JSON body that has `ok: true` (the raw server). */
  | 'raw'
  /** A JSON-RPC result that is a completed task with an artifact. */
  | 'rpc-completed'
  /** A REST send answer (A2A JSON or proto-JSON `{task}`) that is a completed task. */
  | 'rest-completed'
  /** A JSON-RPC result that is a task paused in `input-required` (W9). */
  | 'rpc-input-required'
  /** Each operation of the soak's mix checks its own answers (bench/load/soak.ts). */
  | 'mix'
  /** A JSON-RPC result that is a task. */
  | 'rpc-task'
  /** A JSON-RPC tasks/list result with a full page (`pageSize` tasks). */
  | 'rpc-page'
  /** An agent card. */
  | 'card'
  /** An SSE stream whose last event is a final status-update in `completed`. */
  | 'sse-completed'
  /** v1.0 JSON-RPC: a result `{task}` in `TASK_STATE_COMPLETED` with the echo artifact. */
  | 'v1-rpc-completed'
  /** v1.0 HTTP+JSON: a body `{task}` in `TASK_STATE_COMPLETED` with the echo artifact. */
  | 'v1-rest-completed'
  /**
   * v1.0 JSON-RPC stream: events `{task|statusUpdate|artifactUpdate}` carrying the echo artifact,
   * the last state `TASK_STATE_COMPLETED` when the server closes the stream (v1.0 has no `final`).
   */
  | 'v1-sse-completed';

export interface RequestTemplate {
  method: 'GET' | 'POST';
  path: string;
  /**
   * The body; every occurrence of {@link MESSAGE_ID} is replaced by a fresh id per request
   * (idempotency would otherwise answer a repeated messageId with the first task).
   */
  body?: string;
  /** Sent with every request of the workload (v1.0: `A2A-Version`, REST's content type). */
  headers?: Readonly<Record<string, string>>;
}

export const MESSAGE_ID = '__MESSAGE_ID__';
/** Replaced once by the URL of the generator's webhook receiver (W7). */
export const PUSH_URL = '__PUSH_URL__';

export interface LoadSpec {
  /**
   * `http://127.0.0.1:port` of every process serving: one, or one per replica. Connection i
   * goes to `origins[i % origins.length]` for the whole run (round-robin per connection, as a
   * TCP load balancer spreads keep-alive clients).
   */
  origins: readonly string[];
  request: RequestTemplate;
  check: Check;
  /** Tasks a full `rpc-page` holds. */
  pageSize?: number;
  /** Requests in flight at once (one per connection), over all origins together. */
  connections: number;
  /** Requests before the window opens: JIT, connection set-up, caches. Not measured. */
  warmupMs: number;
  /** The measured window (time mode). */
  durationMs: number;
  /**
   * Count mode: issue exactly this many requests (no warm-up) and measure them all, stopping at
   * `durationMs` at the latest. Used to fill a store (W5, W8).
   */
  totalRequests?: number;
  /** W7: a webhook receiver the generator runs on 127.0.0.1 and counts deliveries at. */
  pushReceiver?: boolean;
  /**
   * SOAK: run the soak's mix of operations (bench/load/soak.ts) on `connections` clients for
   * `durationMs` instead of `request`.
   */
  mix?: 'soak';
  /** Sent with every request (the auth server kind's bearer token). */
  headers?: Readonly<Record<string, string>>;
}

export interface Percentiles {
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

export interface LoadResult {
  /** Successful requests completed inside the window. */
  requests: number;
  /** Failed requests (transport error, unexpected status, failed check) inside the window. */
  errors: number;
  /** Up to five distinct error descriptions, for diagnosis. */
  errorSamples: string[];
  windowMs: number;
  /** `requests` per second of window. */
  rps: number;
  /** Full request latency, milliseconds (for SSE: until the stream ended). */
  latencyMs: Percentiles;
  /** SSE only: time to the first event, milliseconds. */
  firstEventMs?: Percentiles;
  /** Webhook deliveries received in the window (W7). */
  deliveries?: number;
  /** Webhook deliveries received over the whole run, until they stopped coming (W7). */
  deliveriesTotal?: number;
  /** The generator's own CPU use over the window, in percent of one core: 100 = saturated. */
  generatorCpuPercent: number;
  /** Successful requests over the whole run, warm-up and drain included (tasks a send run created). */
  completedTotal: number;
}

/** Generator -> orchestrator. The window messages let the orchestrator sample server CPU at the edges. */
export type GeneratorMessage =
  { type: 'window-start' } | { type: 'window-end' } | { type: 'result'; result: LoadResult } | { type: 'failed'; error: string };

/** Orchestrator -> generator: one run at a time; the generator exits when the channel closes. */
export type GeneratorCommand = { type: 'run'; spec: LoadSpec };

/** Server process -> orchestrator. */
export type ServerMessage =
  | { type: 'ready'; url: string; description: string }
  | { type: 'settled'; rssBytes: number; heapUsedBytes: number }
  | { type: 'memory'; usage: MemoryUsage };

/** process.memoryUsage() of a server as it stands, no GC forced (the soak's curve). */
export interface MemoryUsage {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** Orchestrator -> server process. */
export type ServerCommand = { type: 'settle' } | { type: 'memory' } | { type: 'stop' };

/**
 * The in-process cost micro's variants (bench/micro/feature-cost.ts): the W1 path as createServer
 * wires it by default, with bearer auth on, and with metrics on.
 */
export const FEATURE_VARIANTS = ['plain', 'auth', 'metrics'] as const;
export type FeatureVariant = (typeof FEATURE_VARIANTS)[number];

/** CPU µs per W1 task bearer auth and metrics may add (issue 19): the suite's rows and bench:feature-cost hold them to it. */
export const FEATURE_COST_TARGET_MICROS: Readonly<Record<Exclude<FeatureVariant, 'plain'>, number>> = { auth: 5, metrics: 3 };
