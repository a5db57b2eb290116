/**
 * The delivery outbox's tables (src/store/outbox-*.ts) and its batched writer (src/push/outbox.ts):
 * rows come back oldest first to the next holder only, a graceful close hands them over, a
 * PostgreSQL replica's rows are taken over once its lease has passed, and a delivery finished
 * before its row was written costs no write at all.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { newId } from '../../src/a2a/ids.js';
import { createLogger } from '../../src/log.js';
import { DeliveryOutbox, type RecordedJob } from '../../src/push/outbox.js';
import type { DeliveryJob } from '../../src/push/delivery.js';
import { MemoryTaskStore } from '../../src/store/memory.js';
import { inProcessOutbox } from '../../src/store/outbox-memory.js';
import type { OutboxRow, OutboxTable } from '../../src/store/outbox-table.js';
import { PostgresTaskStore } from '../../src/store/postgres.js';
import { SqliteTaskStore } from '../../src/store/sqlite.js';
import { tempDir } from '../support/server.js';
import { PG_URL, postgresMissing } from '../support/services.js';

const NO_PG = await postgresMissing('outbox suite (PostgreSQL cases)');
/**
 * Long enough that a live replica's renewals (three per lease) still land when a loaded machine
 * holds the event loop: a lease that lapses is a dead replica to the others, by design.
 */
const LEASE_MS = 2000;
const temp = tempDir();
const schemas: string[] = [];
afterAll(async () => {
  temp.cleanup();
  if (schemas.length === 0) return;
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await c.end();
});

const rows = (n: number): OutboxRow[] => Array.from({ length: n }, (_, i) => ({ id: newId(), job: `{"n":${i}}`, body: `body ${i}` }));

/** Two processes on one table: the first is opened again by `next` once it has stopped (or died). */
interface Kind {
  name: string;
  open(): Promise<{ table: OutboxTable; next(): Promise<OutboxTable>; close(): Promise<void> }>;
}

const KINDS: Kind[] = [
  {
    name: 'memory',
    open: async () => {
      const store = new MemoryTaskStore();
      return { table: inProcessOutbox(store), next: async () => inProcessOutbox(store), close: async () => {} };
    },
  },
  {
    name: 'sqlite',
    open: async () => {
      const path = join(temp.dir, `${newId()}.db`);
      let store = new SqliteTaskStore(path);
      return {
        table: await store.deliveryOutbox(),
        // One process owns the file: the next one opens it after the first has closed it.
        next: async () => {
          await store.close();
          store = new SqliteTaskStore(path);
          return store.deliveryOutbox();
        },
        close: () => store.close(),
      };
    },
  },
  {
    name: 'postgres',
    open: async () => {
      const schema = `a2actor_outbox_${process.pid}_${schemas.length}_${Date.now() % 100000}`;
      schemas.push(schema);
      const stores = [await PostgresTaskStore.open({ connectionString: PG_URL, schema })];
      return {
        table: await (stores[0] as PostgresTaskStore).deliveryOutbox(LEASE_MS),
        next: async () => {
          const store = await PostgresTaskStore.open({ connectionString: PG_URL, schema });
          stores.push(store);
          return store.deliveryOutbox(LEASE_MS);
        },
        close: async () => void (await Promise.all(stores.map((s) => s.close()))),
      };
    },
  },
];

describe.each(KINDS.filter((kind) => kind.name !== 'postgres' || !NO_PG))('outbox table: $name', (kind) => {
  it('the next process takes what a closed one left, oldest first, without the rows that were done', async () => {
    const { table, next, close } = await kind.open();
    const written = rows(5);
    await table.write(written.slice(0, 3), []);
    await table.write(written.slice(3), [written[1]?.id as string]);
    // Its own rows are not free for the process holding them.
    expect(await table.claim(100)).toEqual([]);
    await table.close();
    const second = await next();
    expect(await second.claim(2)).toEqual([written[0], written[2]]);
    expect(await second.claim(100)).toEqual([written[3], written[4]]);
    expect(await second.claim(100)).toEqual([]);
    await second.close();
    await close();
  });
});

describe.skipIf(NO_PG)('outbox table: postgres replicas', () => {
  it("a live replica's rows stay its own; a dead one's are taken once its lease has passed, by one replica", async () => {
    const { table: dead, next, close } = await (KINDS[2] as Kind).open();
    const [b, c] = [await next(), await next()];
    const written = rows(4);
    await dead.write(written, []);
    expect(await b.claim(100)).toEqual([]);
    // `dead` stops renewing (its process was killed): no close, no more renewals.
    (dead as unknown as { renewal: NodeJS.Timeout }).renewal.close();
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 200));
    const [byB, byC] = await Promise.all([b.claim(100), c.claim(100)]);
    expect([...byB, ...byC].sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual(written);
    await Promise.all([b.close(), c.close()]);
    await close();
  });

  it("six replicas taking a dead one's 300 rows at once take each row once", async () => {
    const { table: dead, next, close } = await (KINDS[2] as Kind).open();
    const replicas = await Promise.all(Array.from({ length: 6 }, () => next()));
    const written = rows(300);
    await dead.write(written, []);
    (dead as unknown as { renewal: NodeJS.Timeout }).renewal.close();
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 200));
    // Claims that meet in the database: without one claim at a time, rows came back twice.
    const taken = (await Promise.all(replicas.map((r) => r.claim(1000)))).flat();
    expect(taken.map((r) => r.id).sort()).toEqual(written.map((r) => r.id).sort());
    await Promise.all(replicas.map((r) => r.close()));
    await close();
  });
});

describe('DeliveryOutbox', () => {
  const job = (n: number): DeliveryJob => ({
    taskId: 't',
    configId: 'c',
    state: 'working',
    terminal: false,
    request: { url: `http://127.0.0.1:9/${n}`, body: `{"n":${n}}`, token: 'tok' },
  });
  const logger = createLogger('silent');

  it('writes a fan-out as one batch after it is told; a delivery finished before its batch costs no write', async () => {
    const writes: Array<{ added: number; done: number }> = [];
    const inner = inProcessOutbox(new MemoryTaskStore());
    const table: OutboxTable = {
      write: (added, done) => {
        writes.push({ added: added.length, done: done.length });
        return inner.write(added, done);
      },
      claim: (limit) => inner.claim(limit),
      close: () => inner.close(),
    };
    const outbox = new DeliveryOutbox(table, logger);
    const gone = outbox.add(job(0));
    outbox.add(job(1));
    outbox.add(job(2));
    outbox.finished(gone);
    await Promise.resolve();
    expect(writes).toEqual([{ added: 2, done: 0 }]);
    await outbox.close();
  });

  /** A table whose writes wait until `release` is called, and fail when `fail` is set. */
  const heldTable = () => {
    const inner = inProcessOutbox(new MemoryTaskStore());
    const held: Array<() => void> = [];
    const state = { fail: false };
    const table: OutboxTable = {
      write: (added, done) =>
        new Promise<void>((resolve) => held.push(resolve)).then(() => {
          if (state.fail) throw new Error('database away');
          return inner.write(added, done);
        }),
      claim: (limit) => inner.claim(limit),
      close: () => inner.close(),
    };
    const release = async () => {
      for (const resolve of held.splice(0)) resolve();
      for (let i = 0; i < 5; i++) await Promise.resolve();
    };
    return { table, state, release, writes: () => held.length };
  };
  const settledYet = async (p: Promise<void>): Promise<boolean> => {
    let settled = false;
    void p.then(() => (settled = true));
    for (let i = 0; i < 5; i++) await Promise.resolve();
    return settled;
  };

  it('recorded: nothing to wait for makes no promise; rows added wait for their write, later ones for theirs', async () => {
    const { table, release } = heldTable();
    const outbox = new DeliveryOutbox(table, logger);
    expect(outbox.recorded()).toBeUndefined();
    outbox.add(job(0));
    const first = outbox.recorded() as Promise<void>;
    expect(first).toBeInstanceOf(Promise);
    await Promise.resolve();
    // Added while the first write is on its way: written by the next one.
    outbox.add(job(1));
    const second = outbox.recorded() as Promise<void>;
    expect(await settledYet(first)).toBe(false);
    await release();
    expect(await settledYet(first)).toBe(true);
    expect(await settledYet(second)).toBe(false);
    await release();
    expect(await settledYet(second)).toBe(true);
    expect(outbox.recorded()).toBeUndefined();
    // A delivery finished before its row was written leaves nothing to wait for.
    const gone = outbox.add(job(2));
    const third = outbox.recorded() as Promise<void>;
    outbox.finished(gone);
    expect(await settledYet(third)).toBe(true);
    await outbox.close();
  });

  it('recorded: a failed write does not hold the answer; its rows are written by the next attempt', async () => {
    const { table, state, release, writes } = heldTable();
    const outbox = new DeliveryOutbox(table, logger);
    outbox.add(job(0));
    const waiting = outbox.recorded() as Promise<void>;
    await Promise.resolve();
    state.fail = true;
    await release();
    expect(await settledYet(waiting)).toBe(true);
    // Still to be written, but already tried: nothing new to wait for.
    expect(outbox.recorded()).toBeUndefined();
    state.fail = false;
    const closing = outbox.close();
    while (writes() === 0) await new Promise((resolve) => setImmediate(resolve));
    await release();
    await closing;
  });

  it('a server started again on the same store resumes what the closed one left, as the jobs that were added', async () => {
    const store = new MemoryTaskStore();
    const first = new DeliveryOutbox(inProcessOutbox(store), logger);
    const ids = [first.add(job(0)), first.add(job(1)), first.add(job(2))];
    first.finished(ids[1] as string);
    await new Promise((resolve) => setImmediate(resolve));
    await first.close();
    const resumed: RecordedJob[] = [];
    const second = new DeliveryOutbox(inProcessOutbox(store), logger);
    expect(await second.resume((j) => resumed.push(j), new AbortController().signal)).toBe(2);
    expect(resumed).toEqual([
      { ...job(0), request: { ...job(0).request, contentType: undefined, authorization: undefined }, outboxId: ids[0] },
      { ...job(2), request: { ...job(2).request, contentType: undefined, authorization: undefined }, outboxId: ids[2] },
    ]);
    await second.close();
  });
});
