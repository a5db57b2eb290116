/**
 * The backend of the `cluster` server kind ("ours 2×pg"): ours as a service of two replicas on
 * the PostgreSQL and the Redis of this machine (loopback). Each run stores its tasks in a schema
 * of its own, named after the orchestrator's pid, and drops it when the replicas have stopped;
 * a schema whose run died without dropping it (its pid is gone) is dropped by the next run.
 *
 * The service's cost includes the database's: the processes of PostgreSQL (the postmaster and
 * every child: backends, WAL writer, checkpointer) and of redis-server are found here, from a
 * backend's pid and from INFO, so the orchestrator can read their CPU at the window's edges.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';

/** Replicas of ours in the cluster run, each its own process. */
export const CLUSTER_REPLICAS = 2;
/** Trust auth, user postgres, database test: what `.ci/run` starts. */
export const CLUSTER_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const CLUSTER_REDIS_URL = 'redis://127.0.0.1:6379';

const SCHEMA_PREFIX = 'a2actor_bench_';
const CONNECT_TIMEOUT_MS = 3_000;
/** Dropping a schema that holds a full run's tasks (100,000 and more) takes a few seconds. */
const QUERY_TIMEOUT_MS = 60_000;

/** PostgreSQL or Redis is not there: the cluster rows are skipped with this message, the run goes on. */
export class BackendUnavailable extends Error {}

export interface ClusterBackend {
  /** This run's schema: fresh, dropped by close(). */
  readonly schema: string;
  /** The `store` setting of every replica: PostgreSQL with `?schema=`. */
  readonly store: string;
  /** The `events` setting of every replica. */
  readonly events: string;
  /** PostgreSQL's and Redis's processes as they are now (empty if /proc does not show them). */
  processes(): number[];
  /** redis-server's process among them (its CPU is also reported apart from PostgreSQL's). */
  readonly redisPid: number | undefined;
  /** Drops the schema and every task the run stored in it. */
  close(): Promise<void>;
}

const reason = (err: unknown): string => (err instanceof Error ? err.message || err.name : String(err));

async function withPostgres<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: CLUSTER_POSTGRES_URL,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
  });
  // A connection lost mid-use surfaces through the failing query; the event must not crash us.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw new BackendUnavailable(`PostgreSQL at ${CLUSTER_POSTGRES_URL} is not reachable (${reason(err)})`);
  }
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** redis-server's pid, from INFO; rejects with BackendUnavailable if Redis does not answer. */
async function redisPid(): Promise<number | undefined> {
  const redis = new Redis(CLUSTER_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    const info = await redis.info('server');
    const match = /^process_id:(\d+)/m.exec(info);
    return match?.[1] === undefined ? undefined : Number(match[1]);
  } catch (err) {
    throw new BackendUnavailable(`Redis at ${CLUSTER_REDIS_URL} is not reachable (${reason(err)})`);
  } finally {
    redis.disconnect();
  }
}

/** `comm` and the parent of a process, from /proc/PID/stat; undefined once it is gone. */
function statOf(pid: number): { comm: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    // After comm: state, then ppid.
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    return { comm: stat.slice(stat.indexOf('(') + 1, close), ppid };
  } catch {
    return undefined;
  }
}

/** The children of a process: from /proc/PID/task/PID/children, or by scanning /proc. */
function childrenOf(parent: number): number[] {
  try {
    return readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => statOf(pid)?.ppid === parent);
  }
}

/** Drops the schemas of bench runs whose process is gone (a run killed before its clean-up). */
async function dropAbandoned(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'a2actor\\_bench\\_%'");
  for (const { nspname } of rows) {
    const owner = /^a2actor_bench_(\d+)_[a-z0-9_]+$/.exec(nspname)?.[1];
    if (owner === undefined || existsSync(`/proc/${owner}`)) continue;
    await client.query(`DROP SCHEMA IF EXISTS ${nspname} CASCADE`);
  }
}

/**
 * Checks that PostgreSQL and Redis answer, clears abandoned bench schemas and names this run's
 * schema (the replicas' store creates it at start-up). Rejects with BackendUnavailable if either
 * service is not there.
 */
export async function openClusterBackend(): Promise<ClusterBackend> {
  const schema = `${SCHEMA_PREFIX}${process.pid}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const postmaster = await withPostgres(async (client) => {
    await dropAbandoned(client);
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // A backend is a child of the postmaster: its parent is the database's root process.
    const backend = rows[0]?.pid;
    const parent = backend === undefined ? undefined : statOf(backend)?.ppid;
    return parent !== undefined && statOf(parent)?.comm.startsWith('postgres') ? parent : undefined;
  });
  const redisServer = await redisPid();
  const redis = redisServer !== undefined && statOf(redisServer)?.comm.startsWith('redis') ? redisServer : undefined;
  let closed = false;
  return {
    schema,
    store: `${CLUSTER_POSTGRES_URL}?schema=${schema}`,
    events: CLUSTER_REDIS_URL,
    redisPid: redis,
    processes: () => [
      ...(postmaster === undefined ? [] : [postmaster, ...childrenOf(postmaster)]),
      ...(redis === undefined ? [] : [redis]),
    ],
    async close() {
      if (closed) return;
      closed = true;
      await withPostgres((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    },
  };
}
