/** Counting a PostgreSQL store's recorded webhook deliveries from outside the server. */
import pg from 'pg';

/** Rows in the delivery outbox of the store in `schema` (the database at `url`). */
export async function outboxRows(url: string, schema: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: string }>(`SELECT COUNT(*) AS n FROM ${schema}.a2actor_push_outbox`);
    return Number(rows[0]?.n);
  } finally {
    await c.end();
  }
}
