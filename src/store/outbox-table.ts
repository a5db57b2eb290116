/**
 * Where the delivery outbox (src/push/outbox.ts) keeps its rows: a table beside the tasks, in
 * the same database. The store knows rows, not deliveries: what a row says is the push layer's.
 *
 * Each row is held by one process (its owner). A process takes the rows whose owner is gone:
 * with SQLite that is every row an earlier process left (one process owns the file); with
 * PostgreSQL, the rows of a replica that stopped renewing its lease, or gave it back on a
 * graceful stop. So each row is sent by one replica at a time.
 */

/** One recorded delivery. */
export interface OutboxRow {
  /** Time-ordered (UUID v7): rows are taken in id order, which is the order they were accepted. */
  id: string;
  /** The delivery without its body, as the push layer wrote it. */
  job: string;
  /** The request body. */
  body: string;
}

export interface OutboxTable {
  /** Rows added and ids done, in one transaction (an id is never in both). */
  write(added: readonly OutboxRow[], done: readonly string[]): Promise<void>;
  /** Up to `limit` rows whose owner is gone, now held by this process, oldest first. */
  claim(limit: number): Promise<OutboxRow[]>;
  /**
   * With several processes on one table: how often to look again for rows a stopped one left
   * (they are free once its lease has passed). Absent: one process, nothing to look for after start-up.
   */
  readonly takeOverEveryMs?: number;
  /** A graceful stop: this process's rows are free for the next one at once. */
  close(): Promise<void>;
}

/** Oldest first (ids are time ordered, compared as bytes). */
export const byId = (a: OutboxRow, b: OutboxRow): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
