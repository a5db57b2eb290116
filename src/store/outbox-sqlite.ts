/**
 * The delivery outbox in the SQLite file (outbox-table.ts). One process owns the file, so every
 * row an earlier process left is free for this one; each batch is one transaction.
 */
import { newId } from '../a2a/ids.js';
import { byId, type OutboxRow, type OutboxTable } from './outbox-table.js';
import type { SqliteDatabase, SqliteStatement } from './sqlite-driver.js';

export class SqliteOutboxTable implements OutboxTable {
  private readonly owner = newId();
  private readonly writeBatch: (added: readonly OutboxRow[], done: readonly string[]) => void;
  private readonly claimRows: SqliteStatement<OutboxRow>;

  constructor(db: SqliteDatabase) {
    // Its own table, created where it is first used: the task tables' migrations stay the store's.
    db.exec(`CREATE TABLE IF NOT EXISTS push_outbox (
      id TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      job TEXT NOT NULL,
      body TEXT NOT NULL
    )`);
    const insert = db.prepare('INSERT OR IGNORE INTO push_outbox (id, owner, job, body) VALUES (@id, @owner, @job, @body)');
    const remove = db.prepare('DELETE FROM push_outbox WHERE id = ?');
    this.writeBatch = db.transaction((added: readonly OutboxRow[], done: readonly string[]) => {
      for (const row of added) insert.run({ id: row.id, job: row.job, body: row.body, owner: this.owner });
      for (const id of done) remove.run(id);
    });
    this.claimRows = db.prepare<OutboxRow>(
      `UPDATE push_outbox SET owner = @owner
       WHERE id IN (SELECT id FROM push_outbox WHERE owner <> @owner ORDER BY id LIMIT @limit)
       RETURNING id, job, body`,
    );
  }

  async write(added: readonly OutboxRow[], done: readonly string[]): Promise<void> {
    this.writeBatch(added, done);
  }

  async claim(limit: number): Promise<OutboxRow[]> {
    // RETURNING gives no order: sorted here.
    // Plain objects: node:sqlite's rows have no prototype.
    return this.claimRows
      .all({ owner: this.owner, limit })
      .map(({ id, job, body }) => ({ id, job, body }))
      .sort(byId);
  }

  async close(): Promise<void> {}
}
