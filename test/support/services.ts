/**
 * The PostgreSQL and Redis the suites run against, and whether they can. A contributor without
 * them gets one line per suite saying what is missing and how to set it up, and the suite does
 * not run, so `npm ci && npm test` passes on a fresh machine; under CI (env CI set) nothing is
 * probed and the suite runs regardless, so a missing service fails loudly and CI can never skip
 * it silently (browser.ts does the same for Chromium).
 *
 * Each suite states what it needs at its top (`const NO_PG = await postgresMissing('…')`) and
 * skips with `describe.skipIf(NO_PG)`. The probe is a real connection and query, bounded in time.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { Redis } from 'ioredis';

/** The shared PostgreSQL: its database `test`, where each suite makes schemas of its own. */
export const PG_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The shared Redis: suites use key prefixes of their own. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const PROBE_TIMEOUT_MS = 3000;

/** How to get what the suites expect (README "Development" has the same commands). */
const POSTGRES_SETUP =
  'sudo apt-get install postgresql && sudo service postgresql start && sudo -u postgres createdb test, then let postgres in ' +
  "from 127.0.0.1 without a password ('trust' for host 127.0.0.1/32 in pg_hba.conf, then sudo service postgresql reload) " +
  'or set TEST_POSTGRES_URL=postgres://postgres:PASSWORD@127.0.0.1:5432/test (README "Development")';
const REDIS_SETUP = 'sudo apt-get install redis-server && sudo service redis-server start (or set TEST_REDIS_URL=redis://127.0.0.1:PORT)';
const POSTGRES_SERVER_SETUP = 'sudo apt-get install postgresql (the suite runs servers of its own, as the postgres user: run it as root)';
const REDIS_SERVER_SETUP = 'sudo apt-get install redis-server (the suite runs servers of its own)';

/** A URL without its password, to print. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

const why = (err: unknown): string => {
  if (err instanceof AggregateError && err.errors.length > 0) return why(err.errors[0]);
  if (err instanceof Error) return (err as Error & { code?: string }).code ?? err.message;
  return String(err);
};

function skipping(suite: string, missing: string, setup: string): true {
  process.stderr.write(`${suite} not run: ${missing}. To run it: ${setup}. (Under CI, with CI set, it runs and fails instead.)\n`);
  return true;
}

/** Resolves with a failure's reason, or undefined once `attempt` succeeds (within the probe's time). */
async function reasonIfFails(attempt: () => Promise<void>): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${PROBE_TIMEOUT_MS} ms`), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([attempt().then(() => undefined, why), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function postgresReason(): Promise<string | undefined> {
  return reasonIfFails(async () => {
    const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
    } finally {
      await client.end().catch(() => {});
    }
  });
}

async function redisReason(): Promise<string | undefined> {
  return reasonIfFails(async () => {
    const redis = new Redis(REDIS_URL, {
      lazyConnect: true,
      connectTimeout: PROBE_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    // The connection's own error says why (ECONNREFUSED); connect() only says it closed.
    let cause: unknown;
    redis.on('error', (err: unknown) => void (cause ??= err));
    try {
      await redis.connect();
      await redis.ping();
    } catch (err) {
      throw cause ?? err;
    } finally {
      redis.disconnect();
    }
  });
}

/** Whether `suite` cannot run for want of the shared PostgreSQL (said on stderr); never under CI. */
export async function postgresMissing(suite: string): Promise<boolean> {
  if (process.env.CI) return false;
  const reason = await postgresReason();
  return reason !== undefined && skipping(suite, `no PostgreSQL at ${shown(PG_URL)} (${reason})`, POSTGRES_SETUP);
}

/** Whether `suite` cannot run for want of the shared Redis (said on stderr); never under CI. */
export async function redisMissing(suite: string): Promise<boolean> {
  if (process.env.CI) return false;
  const reason = await redisReason();
  return reason !== undefined && skipping(suite, `no Redis at ${shown(REDIS_URL)} (${reason})`, REDIS_SETUP);
}

/** Both, probed together: a replica suite needs the two (each missing one is said). */
export async function postgresOrRedisMissing(suite: string): Promise<boolean> {
  const [noPostgres, noRedis] = await Promise.all([postgresMissing(suite), redisMissing(suite)]);
  return noPostgres || noRedis;
}

/**
 * Whether `suite` cannot start PostgreSQL servers of its own (private-postgres.ts: the server's
 * programs, and `runuser` to run them as the postgres user); never under CI.
 */
export function postgresServerMissing(suite: string): boolean {
  if (process.env.CI) return false;
  if (existsSync('/usr/lib/postgresql') && spawnSync('runuser', ['--version']).status === 0) return false;
  return skipping(suite, 'no PostgreSQL server programs under /usr/lib/postgresql', POSTGRES_SERVER_SETUP);
}

/** Whether `suite` cannot start Redis servers of its own (private-redis.ts); never under CI. */
export function redisServerMissing(suite: string): boolean {
  if (process.env.CI) return false;
  if (spawnSync('redis-server', ['--version']).status === 0) return false;
  return skipping(suite, 'no redis-server program', REDIS_SERVER_SETUP);
}
