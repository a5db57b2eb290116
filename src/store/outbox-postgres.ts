/**
 * The delivery outbox in PostgreSQL (outbox-table.ts), shared by every replica. Each row names
 * the replica that holds it; each replica renews one lease row of its own, so holding thousands
 * of deliveries costs one small write per renewal, not one per row. A replica takes rows whose
 * holder's lease has passed (it died) or is gone (it stopped gracefully and gave them back),
 * one claim at a time, so two replicas never take the same row.
 */
import type pg from 'pg';
import { inTransaction } from './pg-transaction.js';
import { newId } from '../a2a/ids.js';
import { byId, type OutboxRow, type OutboxTable } from './outbox-table.js';

/** Any number the table's creation locks on; the same for every replica. */
const CREATE_LOCK = 0x2a2ac71;
/** The lock claims queue on (`claim`). */
const CLAIM_LOCK = 0x2a2ac72;

const CREATE = `CREATE TABLE IF NOT EXISTS a2actor_push_outbox (
    id TEXT COLLATE "C" PRIMARY KEY,
    owner TEXT NOT NULL,
    job TEXT NOT NULL,
    body TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS a2actor_push_outbox_owner ON a2actor_push_outbox (owner);
  CREATE TABLE IF NOT EXISTS a2actor_push_outbox_leases (owner TEXT PRIMARY KEY, until TIMESTAMPTZ NOT NULL)`;

/** One batch: rows added (held by this replica) and rows done, one statement. */
const WRITE = `WITH added AS (
    INSERT INTO a2actor_push_outbox (id, owner, job, body)
    SELECT id, $4, job, body FROM unnest($1::text[], $2::text[], $3::text[]) AS r(id, job, body)
    ON CONFLICT (id) DO NOTHING
  )
  DELETE FROM a2actor_push_outbox WHERE id = ANY($5::text[])`;

const CLAIM = `UPDATE a2actor_push_outbox o SET owner = $1
  FROM (
    SELECT r.id FROM a2actor_push_outbox r
    WHERE r.owner <> $1
      AND NOT EXISTS (SELECT 1 FROM a2actor_push_outbox_leases l WHERE l.owner = r.owner AND l.until > now())
    ORDER BY r.id LIMIT $2
    FOR UPDATE OF r SKIP LOCKED
  ) free
  WHERE o.id = free.id
  RETURNING o.id, o.job, o.body`;

const RENEW = `INSERT INTO a2actor_push_outbox_leases (owner, until) VALUES ($1, now() + $2 * interval '1 millisecond')
  ON CONFLICT (owner) DO UPDATE SET until = EXCLUDED.until`;

export class PostgresOutboxTable implements OutboxTable {
  readonly takeOverEveryMs: number;
  private readonly owner = newId();
  private readonly renewal: NodeJS.Timeout;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly leaseMs: number,
  ) {
    this.takeOverEveryMs = leaseMs / 2;
    // Three renewals per lease: one lost to a slow database does not free this replica's rows.
    this.renewal = setInterval(() => void this.renew().catch(() => undefined), leaseMs / 3);
    this.renewal.unref();
  }

  /** Creates the tables if needed and takes this replica's lease. */
  static async open(pool: pg.Pool, leaseMs: number): Promise<PostgresOutboxTable> {
    await inTransaction(pool, async (client) => {
      // Replicas that start together: CREATE ... IF NOT EXISTS is not safe against itself.
      await client.query('SELECT pg_advisory_xact_lock($1)', [CREATE_LOCK]);
      await client.query(CREATE);
    });
    const table = new PostgresOutboxTable(pool, leaseMs);
    await table.renew();
    return table;
  }

  private async renew(): Promise<void> {
    await this.pool.query({ name: 'a2actor_outbox_renew', text: RENEW }, [this.owner, this.leaseMs]);
  }

  async write(added: readonly OutboxRow[], done: readonly string[]): Promise<void> {
    await this.pool.query({ name: 'a2actor_outbox_write', text: WRITE }, [
      added.map((r) => r.id),
      added.map((r) => r.job),
      added.map((r) => r.body),
      this.owner,
      done,
    ]);
  }

  /**
   * Takes free rows. Claims run one at a time across replicas (a transaction lock): in READ
   * COMMITTED, a claim that meets a row another claim just took re-checks only that row, not its
   * holder's lease, and would take it too. Claims are rare (start-up, then one per half lease),
   * so queueing them costs nothing.
   */
  async claim(limit: number): Promise<OutboxRow[]> {
    const { rows } = await inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [CLAIM_LOCK]);
      return client.query<OutboxRow>({ name: 'a2actor_outbox_claim', text: CLAIM }, [this.owner, limit]);
    });
    // Leases of replicas long gone: their rows are free either way.
    await this.pool.query(`DELETE FROM a2actor_push_outbox_leases WHERE until < now() - interval '1 hour'`);
    return rows.sort(byId);
  }

  async close(): Promise<void> {
    clearInterval(this.renewal);
    await this.pool.query('DELETE FROM a2actor_push_outbox_leases WHERE owner = $1', [this.owner]);
  }
}
