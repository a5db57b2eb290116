/**
 * The delivery outbox of the memory stores (outbox-table.ts): rows live in this process, with
 * the store instance, so they survive a server that is closed and created again on the same
 * store (an embedder's restart), never the process. A row is free once the server that held it
 * has closed.
 */
import { newId } from '../a2a/ids.js';
import { byId, type OutboxRow, type OutboxTable } from './outbox-table.js';

interface Held {
  row: OutboxRow;
  owner: string;
}

interface Rows {
  byId: Map<string, Held>;
  /** Owners (servers) not closed yet. */
  live: Set<string>;
}

const rowsOfStore = new WeakMap<object, Rows>();

/** The outbox rows kept with this store instance, as one more server sees them. */
export function inProcessOutbox(store: object): OutboxTable {
  let rows = rowsOfStore.get(store);
  if (!rows) {
    rows = { byId: new Map(), live: new Set() };
    rowsOfStore.set(store, rows);
  }
  return new MemoryOutboxTable(rows);
}

class MemoryOutboxTable implements OutboxTable {
  private readonly owner = newId();

  constructor(private readonly rows: Rows) {
    rows.live.add(this.owner);
  }

  async write(added: readonly OutboxRow[], done: readonly string[]): Promise<void> {
    for (const row of added) this.rows.byId.set(row.id, { row, owner: this.owner });
    for (const id of done) this.rows.byId.delete(id);
  }

  async claim(limit: number): Promise<OutboxRow[]> {
    const free = [...this.rows.byId.values()].filter((held) => !this.rows.live.has(held.owner)).map((held) => held.row);
    const taken = free.sort(byId).slice(0, limit);
    for (const row of taken) (this.rows.byId.get(row.id) as Held).owner = this.owner;
    return taken;
  }

  async close(): Promise<void> {
    this.rows.live.delete(this.owner);
  }
}
