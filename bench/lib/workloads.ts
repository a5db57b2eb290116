/**
 * The workloads of issue 5, as data: what each sends, how its answers are checked, which
 * servers it runs on, and why a server sits one out. Bodies are built once here; the generator
 * only swaps in a fresh messageId per request.
 */
import { MESSAGE_ID, PUSH_URL, type Check, type LoadSpec, type RequestTemplate, type ServerKind, type WorkloadId } from './types.js';

export interface Workload {
  id: WorkloadId;
  title: string;
  /** What one "request" is in the req/s column. */
  unit: string;
  check: Check;
  /** The raw-uWS row this one is a fraction of. */
  ceiling: 'C1' | 'C6' | undefined;
  /** Servers that run it; the others get `skipped[kind]` printed instead. */
  servers: readonly ServerKind[];
  /** The server ours is compared with on it: the SDK of the protocol version it speaks (default `peer`). */
  peer?: ServerKind;
  skipped: Partial<Record<ServerKind, string>>;
  /** A note printed under the table. */
  note?: string;
}

const TEXT = 'hello from the bench';

const rpc = (method: string, params: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

const userMessage = { kind: 'message', role: 'user', messageId: MESSAGE_ID, parts: [{ kind: 'text', text: TEXT }] };

/** v1.0 proto-JSON: the role as its enum name, a part's content by its field, no `kind` anywhere. */
const userMessageV1 = { messageId: MESSAGE_ID, role: 'ROLE_USER', parts: [{ text: TEXT }] };
/**
 * A v1.0 request names its version: the spec's "Versioning" reads a request without `A2A-Version`
 * as v0.3. REST sends the v1.0 media type, which both servers accept beside application/json.
 */
const V1_RPC_HEADERS = { 'a2a-version': '1.0' };
const V1_REST_HEADERS = { 'a2a-version': '1.0', 'content-type': 'application/a2a+json' };

export const requests = {
  rpcSend: (): RequestTemplate => ({ method: 'POST', path: '/', body: rpc('message/send', { message: userMessage }) }),
  // The peer's REST routes read proto-JSON only (`content`, `ROLE_USER`); ours reads both, so
  // both servers get this same body.
  restSend: (): RequestTemplate => ({
    method: 'POST',
    path: '/v1/message:send',
    body: JSON.stringify({ message: { messageId: MESSAGE_ID, role: 'ROLE_USER', content: [{ text: TEXT }] } }),
  }),
  rpcGet: (taskId: string): RequestTemplate => ({ method: 'POST', path: '/', body: rpc('tasks/get', { id: taskId }) }),
  /** W9: a new task the agent pauses in `input-required` (bench/agents/echo-agent.ts). */
  rpcAsk: (): RequestTemplate => ({
    method: 'POST',
    path: '/',
    body: rpc('message/send', { message: { ...userMessage, parts: [{ kind: 'text', text: 'ask What colour should the button be?' }] } }),
  }),
  rpcStream: (): RequestTemplate => ({ method: 'POST', path: '/', body: rpc('message/stream', { message: userMessage }) }),
  rpcSendWithPush: (): RequestTemplate => ({
    method: 'POST',
    path: '/',
    body: rpc('message/send', {
      message: userMessage,
      configuration: { blocking: true, pushNotificationConfig: { url: PUSH_URL, token: 'bench-token' } },
    }),
  }),
  rpcList: (pageSize: number): RequestTemplate => ({ method: 'POST', path: '/', body: rpc('tasks/list', { pageSize }) }),
  card: (): RequestTemplate => ({ method: 'GET', path: '/.well-known/agent-card.json' }),
  /** W1v1: blocking is v1.0's default (`returnImmediately` false), as in W1. */
  rpcSendV1: (): RequestTemplate => ({
    method: 'POST',
    path: '/',
    body: rpc('SendMessage', { message: userMessageV1 }),
    headers: V1_RPC_HEADERS,
  }),
  /** W2v1: the v1.0 binding's path is at the root, no `/v1` prefix. */
  restSendV1: (): RequestTemplate => ({
    method: 'POST',
    path: '/message:send',
    body: JSON.stringify({ message: userMessageV1 }),
    headers: V1_REST_HEADERS,
  }),
  rpcStreamV1: (): RequestTemplate => ({
    method: 'POST',
    path: '/',
    body: rpc('SendStreamingMessage', { message: userMessageV1 }),
    headers: V1_RPC_HEADERS,
  }),
};

/** The request each v1.0 workload sends. */
export const V1_REQUESTS = { W1v1: requests.rpcSendV1, W2v1: requests.restSendV1, W4v1: requests.rpcStreamV1 } as const;

const OURS: readonly ServerKind[] = ['memory', 'sqlite', 'cluster'];
/** The bearer token the `auth` server kind accepts (bench/servers/ours.ts). */
export const BENCH_BEARER_TOKEN = 'bench-bearer-token';

/** What every request to a server kind carries beyond the workload's own headers. */
export const headersFor = (kind: ServerKind): Pick<LoadSpec, 'headers'> =>
  kind === 'auth' ? { headers: { authorization: `Bearer ${BENCH_BEARER_TOKEN}` } } : {};
/** The request-path workloads: also on the node front end. */
const BOTH: readonly ServerKind[] = ['memory', 'node', 'sqlite', 'cluster', 'peer'];
/**
 * The v1.0 workloads: ours on the memory store, the server their CPU target is set for, and the
 * v1.0 peer. The 0.3.14 peer speaks v0.3 only.
 */
const V1_SERVERS: readonly ServerKind[] = ['memory', 'peer-v1'];
const V1_SKIPPED: Partial<Record<ServerKind, string>> = { peer: 'v0.3 only; the v1.0 rows compare with peer sdk v1' };

export const WORKLOADS: Record<WorkloadId, Workload> = {
  C1: { id: 'C1', title: 'ceiling: POST, fixed JSON', unit: 'req', check: 'raw', ceiling: undefined, servers: ['raw'], skipped: {} },
  C6: { id: 'C6', title: 'ceiling: GET, fixed JSON', unit: 'req', check: 'raw', ceiling: undefined, servers: ['raw'], skipped: {} },
  W1: {
    id: 'W1',
    title: 'JSON-RPC message/send',
    unit: 'task',
    check: 'rpc-completed',
    ceiling: 'C1',
    servers: [...BOTH, 'node-http', 'express', 'auth', 'metrics', 'plain'],
    skipped: {},
    note:
      'W1 also runs on "ours auth": the memory server with bearer auth on (static token), and on "ours metrics": with Prometheus metrics on ' +
      '(every other ours server runs with metrics off); their notes give the CPU cost over ours mem. "ours express" is ours mounted ' +
      '(server.nodeHandler()) at the root of an Express app, on node:http.',
  },
  W2: {
    id: 'W2',
    title: 'REST POST /v1/message:send',
    unit: 'task',
    check: 'rest-completed',
    ceiling: 'C1',
    servers: [...BOTH, 'node-http'],
    skipped: {},
    note: "W2 sends the same proto-JSON body to both servers: the peer's REST routes read only proto-JSON.",
  },
  W3: { id: 'W3', title: 'JSON-RPC tasks/get', unit: 'req', check: 'rpc-task', ceiling: 'C1', servers: BOTH, skipped: {} },
  W4: {
    id: 'W4',
    title: 'JSON-RPC message/stream',
    unit: 'stream',
    check: 'sse-completed',
    ceiling: 'C1',
    servers: [...BOTH, 'node-http'],
    skipped: {},
    note: 'W4 counts completed streams; p50/p99 are until the final event, "first event" is the time to the first one.',
  },
  W1v1: {
    id: 'W1v1',
    title: 'v1.0 JSON-RPC SendMessage',
    unit: 'task',
    check: 'v1-rpc-completed',
    ceiling: 'C1',
    servers: V1_SERVERS,
    peer: 'peer-v1',
    skipped: V1_SKIPPED,
    note:
      'W1v1, W2v1 and W4v1 are W1, W2 and W4 in A2A v1.0 (`A2A-Version: 1.0`, proto-JSON bodies, `TASK_STATE_COMPLETED`); ' +
      'their "x peer" columns compare with peer sdk v1, @a2a-js/sdk 1.3.0 in its native v1.0 mode.',
  },
  W2v1: {
    id: 'W2v1',
    title: 'v1.0 REST POST /message:send',
    unit: 'task',
    check: 'v1-rest-completed',
    ceiling: 'C1',
    servers: V1_SERVERS,
    peer: 'peer-v1',
    skipped: V1_SKIPPED,
  },
  W4v1: {
    id: 'W4v1',
    title: 'v1.0 JSON-RPC SendStreamingMessage',
    unit: 'stream',
    check: 'v1-sse-completed',
    ceiling: 'C1',
    servers: V1_SERVERS,
    peer: 'peer-v1',
    skipped: V1_SKIPPED,
    note: 'W4v1 counts streams the server closed after TASK_STATE_COMPLETED and the echo artifact (v1.0 marks no event final).',
  },
  W5: {
    id: 'W5',
    title: 'memory per 1,000 tasks',
    unit: 'task',
    check: 'rpc-completed',
    ceiling: undefined,
    servers: ['memory', 'plain', 'sqlite', 'peer'],
    skipped: {
      cluster:
        "its fill (100,000 tasks by default) takes minutes at the cluster's rate; RSS per task is a per-process figure (see ours sqlite)",
    },
    note: 'W5 drives message/send to N completed tasks on a freshly started server process; RSS is read after a forced GC before and after; "x peer" compares growth.',
  },
  W6: { id: 'W6', title: 'GET agent card', unit: 'req', check: 'card', ceiling: 'C6', servers: BOTH, skipped: {} },
  W7: {
    id: 'W7',
    title: 'push deliveries',
    unit: 'task',
    check: 'rpc-completed',
    ceiling: undefined,
    servers: OURS,
    skipped: { peer: 'no retrying delivery in the SDK' },
    note:
      "W7 sends a batch of tasks (a tenth of W5's) with an inline push config to a receiver in the generator and counts webhooks " +
      'until the last one arrived; p50/p99 are of the sends; CPU per delivery includes the sends.',
  },
  W8: {
    id: 'W8',
    title: 'JSON-RPC tasks/list, page of 50',
    unit: 'req',
    check: 'rpc-page',
    ceiling: 'C1',
    servers: OURS,
    skipped: { peer: 'no tasks/list in 0.3.14' },
    note: 'W8 lists over the store as W5 left it (at least the W5 task count; ours 2×pg, which skips W5, over what its other workloads stored).',
  },
  W9: {
    id: 'W9',
    title: 'memory per 1,000 paused tasks',
    unit: 'task',
    check: 'rpc-input-required',
    ceiling: undefined,
    servers: ['memory', 'plain', 'sqlite', 'peer'],
    skipped: { cluster: "RSS per task is a per-process figure (see ours sqlite); the cluster's leases are not what it measures" },
    note:
      'W9 sends `ask …` to N new tasks (--paused) on a freshly started server process, after N/5 more as a warm-up: each stays ' +
      'paused in input-required, waiting for a follow-up; RSS is read after a forced GC before and after the N; "x peer" compares growth.',
  },
  SOAK: {
    id: 'SOAK',
    title: 'soak: mixed load, RSS over time',
    unit: 'op',
    check: 'mix',
    ceiling: undefined,
    servers: ['memory', 'sqlite'],
    skipped: { peer: "the peer's echo agent has no stream or slow command", cluster: 'RSS over time is a per-process figure' },
    note:
      'SOAK runs 32 clients on a freshly started server process for --soak-minutes: 55% echo sends, 15% `stream 5`, 10% `ask` ' +
      'and its follow-up, 10% non-blocking `slow 300` canceled after 100 ms, 10% tasks/list (bench/load/soak.ts); RSS is read ' +
      'every 10 s with no forced GC; "settled" is the median of the last third of the samples, the target a peak within 1.5x of it.',
  },
};

/** The order workloads run in on one server process: W5 fills the store W8 lists. */
export const RUN_ORDER: readonly WorkloadId[] = [
  'C1',
  'C6',
  'W6',
  'W1',
  'W2',
  'W3',
  'W4',
  'W1v1',
  'W2v1',
  'W4v1',
  'W7',
  'W5',
  'W8',
  'W9',
  'SOAK',
];

/** Workloads that read the memory of a freshly started server process (its RSS growth or curve). */
export const FRESH_PROCESS: ReadonlySet<WorkloadId> = new Set(['W5', 'W9', 'SOAK']);
