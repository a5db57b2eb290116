/**
 * The delivery outbox: every webhook delivery the dispatcher accepts is recorded with the store
 * (src/store/outbox-table.ts) until it is delivered or gives up, so deliveries queued when the
 * process stops (SIGTERM, kill -9) are sent by the next one, in the order they were accepted.
 *
 * Writes are batched, one at a time: the deliveries a transition fans out to are written
 * together, as one transaction, as soon as the code that told the transition is done (a
 * microtask later: with SQLite, before the answer that acknowledges the transition is released),
 * or with the next write while one is on its way (PostgreSQL: a group commit). Finished
 * deliveries are not urgent (a crash that forgets one sends it again): they go with the next
 * write, or at the end of the event loop's turn. A delivery finished before its row was written
 * is never written at all.
 *
 * `recorded` is how an answer waits for the deliveries it acknowledges: a promise for "every
 * delivery added so far has been written" (or its write has failed: the answer is not held while
 * the store is away, the failed rows are written by the next attempt), or undefined when nothing
 * is waiting to be written, so a server whose tasks have no webhooks makes no promise at all.
 *
 * Delivery is at least once: an attempt cut short by a stop is made again after the restart.
 */
import { newId } from '../a2a/ids.js';
import type { TaskState } from '../a2a/schemas.js';
import { errorFields, type Logger } from '../log.js';
import type { OutboxRow, OutboxTable } from '../store/outbox-table.js';
import type { DeliveryJob } from './delivery.js';

/** A delivery read back from the outbox: its row id travels with it, so it can be marked done. */
export type RecordedJob = DeliveryJob & { outboxId: string };

/** What a row's `job` column holds: the delivery without its body (kept in a column of its own). */
interface StoredJob {
  taskId: string;
  configId: string;
  state: TaskState;
  terminal: boolean;
  url: string;
  contentType?: string | undefined;
  token?: string | undefined;
  authorization?: string | undefined;
}

/** Rows per store write, and per claim: a backlog of large bodies is moved in slices. */
const ROWS_PER_WRITE = 500;
/** A write that failed (the database is away) is tried again after this. */
const RETRY_WRITE_MS = 1000;

function rowOf(id: string, job: DeliveryJob): OutboxRow {
  const { url, body, contentType, token, authorization } = job.request;
  // The trace link is not kept: a delivery sent after a restart starts a trace of its own.
  const stored: StoredJob = { taskId: job.taskId, configId: job.configId, state: job.state, terminal: job.terminal, url };
  if (contentType !== undefined) stored.contentType = contentType;
  if (token !== undefined) stored.token = token;
  if (authorization !== undefined) stored.authorization = authorization;
  return { id, job: JSON.stringify(stored), body };
}

function jobOf(row: OutboxRow): RecordedJob {
  const { taskId, configId, state, terminal, url, contentType, token, authorization } = JSON.parse(row.job) as StoredJob;
  return { taskId, configId, state, terminal, request: { url, body: row.body, contentType, token, authorization }, outboxId: row.id };
}

/** A row not written yet; `seq` numbers every add, so a waiter knows which rows it waits for. */
interface PendingRow {
  row: OutboxRow;
  seq: number;
  /** A write of it failed already: waiters no longer wait for it. */
  tried: boolean;
}

/** An answer waiting for every row added up to `through`. */
interface Waiter {
  through: number;
  resolve: () => void;
}

export class DeliveryOutbox {
  /** Added since the last write began, oldest first (failed rows go back to the front). */
  private added = new Map<string, PendingRow>();
  /** The number of the last row added. */
  private lastSeq = 0;
  /** The oldest row of the write on its way, until that write has succeeded or failed. */
  private inFlightFrom: number | undefined;
  /** Answers waiting for rows, in the order they came (so `through` never goes down). */
  private readonly waiters: Waiter[] = [];
  /** Done since the last write began, of rows already written (or being written). */
  private done = new Set<string>();
  private writing: Promise<void> | undefined;
  /** A write is due at the end of the current microtask run (`soon`) or of the event loop's turn. */
  private due: 'soon' | 'later' | undefined;
  private closed = false;

  constructor(
    private readonly table: OutboxTable,
    private readonly logger: Logger,
  ) {}

  /** Records an accepted delivery (written a microtask later, with the rest of its fan-out); its id, for `finished`. */
  add(job: DeliveryJob): string {
    const id = newId();
    this.added.set(id, { row: rowOf(id, job), seq: ++this.lastSeq, tried: false });
    this.schedule('soon');
    return id;
  }

  /**
   * Resolves once every delivery added so far is written, or a write of it has failed;
   * undefined when there is nothing to wait for.
   */
  recorded(): Promise<void> | undefined {
    // Closing writes what is left, and then no answer is held.
    if (this.closed || this.oldestUnsettled() === undefined) return undefined;
    return new Promise((resolve) => this.waiters.push({ through: this.lastSeq, resolve }));
  }

  /** The oldest row no write has settled yet: in flight, or waiting untried. */
  private oldestUnsettled(): number | undefined {
    if (this.inFlightFrom !== undefined) return this.inFlightFrom;
    for (const pending of this.added.values()) if (!pending.tried) return pending.seq;
    return undefined;
  }

  private wakeWaiters(): void {
    if (this.waiters.length === 0) return;
    const oldest = this.oldestUnsettled();
    let woken = 0;
    while (woken < this.waiters.length && (oldest === undefined || (this.waiters[woken] as Waiter).through < oldest)) woken++;
    for (const waiter of this.waiters.splice(0, woken)) waiter.resolve();
  }

  /** The delivery was made, or gave up: its row goes. */
  finished(id: string): void {
    // Not written yet: nothing to undo (and nothing to wait for).
    if (this.added.delete(id)) {
      this.wakeWaiters();
      return;
    }
    this.done.add(id);
    this.schedule('later');
  }

  /**
   * Start-up: every delivery a stopped process left is taken and handed to `enqueue`, oldest
   * first, before anything new is accepted. With replicas, the same again every
   * `takeOverEveryMs` for the rows of a replica that died, until `stop` fires.
   */
  async resume(enqueue: (job: RecordedJob) => void, stop: AbortSignal): Promise<number> {
    const taken = await this.takeFree(enqueue);
    const every = this.table.takeOverEveryMs;
    if (every !== undefined && !stop.aborted) {
      let running = false;
      const timer = setInterval(() => {
        if (running) return;
        running = true;
        void this.takeFree(enqueue)
          .catch((err: unknown) => this.logger.warn('push.outbox_claim_failed', errorFields(err)))
          .finally(() => {
            running = false;
          });
      }, every);
      timer.unref();
      stop.addEventListener('abort', () => clearInterval(timer), { once: true });
    }
    return taken;
  }

  private async takeFree(enqueue: (job: RecordedJob) => void): Promise<number> {
    let taken = 0;
    for (;;) {
      const rows = await this.table.claim(ROWS_PER_WRITE);
      for (const row of rows) enqueue(jobOf(row));
      taken += rows.length;
      if (rows.length < ROWS_PER_WRITE) break;
    }
    if (taken > 0) this.logger.info('push.outbox_resumed', { deliveries: taken });
    return taken;
  }

  /** Writes what is left, then gives this process's rows back (a graceful stop). */
  async close(): Promise<void> {
    this.closed = true;
    await this.writing;
    // Slice by slice; a slice that fails is given up on (the process is stopping), not retried.
    try {
      while (this.added.size > 0 || this.done.size > 0) if (!(await this.write())) break;
      await this.table.close();
    } finally {
      // Nothing more will be written: no answer stays held.
      for (const waiter of this.waiters.splice(0)) waiter.resolve();
    }
  }

  private schedule(when: 'soon' | 'later'): void {
    // A write on its way schedules the next when it ends; closing writes what is left itself.
    if (this.writing || this.closed || this.due === 'soon' || this.due === when) return;
    this.due = when;
    if (when === 'soon') void Promise.resolve().then(this.writeDue);
    else setImmediate(this.writeDue);
  }

  private readonly writeDue = (): void => {
    this.due = undefined;
    if (this.writing || this.closed || (this.added.size === 0 && this.done.size === 0)) return;
    this.writing = this.write().then(() => {
      this.writing = undefined;
      if (this.added.size > 0) this.schedule('soon');
      else if (this.done.size > 0) this.schedule('later');
    });
  };

  /**
   * One batch; false if it failed: its rows then wait for the next (and a delivery finished
   * meanwhile cancels its row).
   */
  private async write(): Promise<boolean> {
    const taken: PendingRow[] = [];
    for (const pending of this.added.values()) {
      if (taken.length === ROWS_PER_WRITE) break;
      taken.push(pending);
    }
    for (const { row } of taken) this.added.delete(row.id);
    const added = taken.map((pending) => pending.row);
    const done = [...this.done];
    this.done.clear();
    // Taken from the front: nothing older is left waiting untried.
    this.inFlightFrom = taken.find((pending) => !pending.tried)?.seq;
    try {
      await this.table.write(added, done);
      this.inFlightFrom = undefined;
      this.wakeWaiters();
      return true;
    } catch (err) {
      this.logger.warn('push.outbox_write_failed', { added: added.length, done: done.length, ...errorFields(err) });
      for (const id of done) this.done.add(id);
      // Back to the front, in their order: the next write takes them first.
      const back = new Map<string, PendingRow>();
      for (const pending of taken) if (!this.done.delete(pending.row.id)) back.set(pending.row.id, { ...pending, tried: true });
      for (const [id, pending] of this.added) back.set(id, pending);
      this.added = back;
      this.inFlightFrom = undefined;
      this.wakeWaiters();
      if (!this.closed) await new Promise((resolve) => setTimeout(resolve, RETRY_WRITE_MS).unref());
      return false;
    }
  }
}
