/**
 * Every store write of a running task, in order: the coalesced progress writes (every running
 * task's, streamed or sent), the one write that makes a task visible before its id is handed
 * out, and the turn's final write, retried while the store is away.
 */
import type { Settings } from '../config.js';
import { a2aError } from '../a2a/errors.js';
import type { Task } from '../a2a/schemas.js';
import { errorFields, type Logger } from '../log.js';
import type { TaskStore } from '../store/types.js';
import type { LiveTask, LiveTaskHandle } from './live-task.js';
import type { TaskOwnership } from './task-ownership.js';
import { serializeOrFail } from './storable.js';
import { taskView } from './task-views.js';
import { sleep } from './wait.js';
import { promiseOf } from '../promise-of.js';

const toVoid = (): void => undefined;

export class TaskWriter {
  /** Running tasks with a progress write due (their handles: see LiveTaskHandle), and the ticker that writes them. */
  private readonly dirty = new Set<LiveTaskHandle>();
  /** Tasks whose progress write is still on its way to the store. */
  private readonly flushing = new Set<LiveTaskHandle>();
  private flushTicker: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly store: TaskStore,
    private readonly logger: Logger,
    private readonly settings: Pick<Settings, 'progressFlushInterval' | 'storeRetryWindow'>,
    /** One process holds its tasks already; replicas take a new task's lease before storing it unfinished. */
    private readonly ownership: Pick<TaskOwnership, 'beforeStore'> = { beforeStore: () => undefined },
  ) {}

  get pendingFlushes(): number {
    return this.dirty.size;
  }

  /**
   * A running task's progress reaches the store in coalesced writes, so that a crash loses at
   * most one window of what clients saw (a stream's chunks, a poller's statuses): a task marks
   * itself dirty and one shared ticker (running only while some task is dirty) writes every
   * dirty task each SERVICE_PROGRESS_FLUSH_INTERVAL. No timer and no write per change: a turn
   * that ends within the window is written once, by its end. A hidden task's write waits until
   * it is exposed (nobody has seen it yet).
   */
  scheduleFlush(live: LiveTask): void {
    const run = live.run;
    if (!run.flushDue()) return;
    run.whenExposed(() => {
      if (run.status !== 'exposed.flushDue') return;
      this.dirty.add(live.handle);
      if (!this.flushTicker) {
        this.flushTicker = setInterval(() => this.flushDirty(), this.settings.progressFlushInterval * 1000);
        this.flushTicker.unref();
      }
    });
  }

  /**
   * One progress write per task in flight: a store slower than the window delays the task's next
   * write to a later tick (which then carries everything since) instead of queueing copies of it.
   */
  private flushDirty(): void {
    const idle = this.dirty.size === 0;
    for (const handle of this.dirty) {
      const live = handle.live;
      if (live && this.flushing.has(handle)) continue;
      this.dirty.delete(handle);
      if (!live) continue;
      live.run.flushed();
      if (live.run.isRunning) this.flush(live);
    }
    if (idle && this.flushTicker) {
      clearInterval(this.flushTicker);
      this.flushTicker = undefined;
    }
  }

  private flush(live: LiveTask): void {
    const handle = live.handle;
    this.flushing.add(handle);
    void this.write(live, taskView(live.task), 'store.progress_write_failed').then(() => this.flushing.delete(handle));
  }

  cancelFlush(live: LiveTask): void {
    live.run.flushed();
    this.dirty.delete(live.handle);
  }

  /**
   * A task is in the store before its id reaches any client: after a crash it then comes back
   * failed with the restart reason instead of unknown, and with replicas a request that lands
   * on another replica finds it. One write; a streamed task gets no other until its turn ends
   * (spec rule 4). Once the turn is ending, its final write (already queued) is the one.
   */
  ensureVisible(live: LiveTask): Promise<void> {
    const run = live.run;
    if (!run.isRunning) return run.writes === undefined ? Promise.resolve() : run.writes.then(toVoid);
    const asked = run.visibleWrite;
    if (asked) return asked;
    const visible = this.write(live, taskView(live.task), 'store.write_failed').then((stored) => {
      if (stored) return;
      run.setVisibleWrite(undefined);
      throw a2aError('unavailable', 'the task store is not reachable; the task runs on and is stored when it is back');
    });
    run.setVisibleWrite(visible);
    return visible;
  }

  /**
   * Every write of one task goes through one chain: a store with a connection pool could
   * otherwise commit an earlier progress write after the turn's final one. A task's first write
   * (a blocking send's only one: its final write) has nothing to wait for and goes to the store
   * at once, without a link in the chain.
   */
  private write(live: LiveTask, snapshot: Task, failure: string, json?: string): Promise<boolean> {
    const previous = live.run.writes;
    const result =
      previous === undefined ? this.save(live, snapshot, failure, json) : previous.then(() => this.save(live, snapshot, failure, json));
    live.run.queueWrite(result);
    return result;
  }

  /**
   * One write to the store; false (and logged) if it failed. On every task's path: the store's
   * promise is taken through promiseOf (a store that throws at once is a failed write like any
   * other), with one handler each way and no async frame.
   */
  private save(live: LiveTask, snapshot: Task, failure: string, json: string | undefined): Promise<boolean> {
    const key = live.run.messageKey;
    // Stored unfinished, the task is held here first (other replicas would take it for an orphan).
    const saved = promiseOf(() => {
      const held = this.ownership.beforeStore(live.id, snapshot.status.state);
      return held
        ? held.then(() => this.store.saveTask(snapshot, key, json, live.owner))
        : this.store.saveTask(snapshot, key, json, live.owner);
    });
    return saved.then(
      () => {
        live.run.messageRecorded(key);
        return true;
      },
      (err: unknown) => this.failed(live, snapshot, failure, err),
    );
  }

  private failed(live: LiveTask, snapshot: Task, failure: string, err: unknown): false {
    this.logger.error(failure, { taskId: live.id, state: snapshot.status.state, ...errorFields(err) });
    return false;
  }

  /**
   * The turn's final write, tried again while the store is away (SERVICE_STORE_RETRY_WINDOW):
   * the JSON stored, or undefined if it was lost. On every task's path (promiseOf): a first
   * attempt that succeeds, the usual case, costs one promise handler.
   */
  writeFinal(live: LiveTask): Promise<string | undefined> {
    const giveUpAt = Date.now() + this.settings.storeRetryWindow * 1000;
    return promiseOf(() => {
      // The task no longer changes (the turn is over): one serialization serves every attempt
      // and, once stored, the reply. A task that cannot be serialized is failed, not lost.
      const json = serializeOrFail(live.task, this.logger);
      const jsonIfStored = (stored: boolean): string | undefined => (stored ? json : undefined);
      return this.write(live, live.task, 'store.write_failed', json).then((stored) =>
        stored ? json : this.retry(live, live.task, json, giveUpAt).then(jsonIfStored),
      );
    });
  }

  /**
   * The write of a turn that ends with its task still working (its handler continues in the
   * background), tried again like a final write: a blocking send answers only once the task is
   * stored. The task goes on changing, so this is a copy of it as it stands, and its JSON is not
   * kept for the reply. Later changes are stored by progress writes, after this one.
   */
  writeAtRest(live: LiveTask): Promise<boolean> {
    const giveUpAt = Date.now() + this.settings.storeRetryWindow * 1000;
    const snapshot = taskView(live.task);
    return this.write(live, snapshot, 'store.write_failed').then((stored) => stored || this.retry(live, snapshot, undefined, giveUpAt));
  }

  private async retry(live: LiveTask, snapshot: Task, json: string | undefined, giveUpAt: number): Promise<boolean> {
    for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
      if (this.closed || Date.now() + delay > giveUpAt) return false;
      await sleep(delay);
      if (await this.write(live, snapshot, 'store.write_failed', json)) return true;
    }
  }

  close(): void {
    this.closed = true;
    if (this.flushTicker) clearInterval(this.flushTicker);
    this.flushTicker = undefined;
    this.dirty.clear();
  }
}
