/**
 * Which process runs a task (docs/architecture.md, "Replicas"). One process needs no leases:
 * its live-task map already says what runs, and claims cost no round trip. Several replicas
 * take a Coordinator lease per turn, hand it over when the turn's after-effects are done, sweep
 * tasks whose replica vanished, and ask each other to cancel.
 */
import type { Settings } from '../config.js';
import { isInterruptedState, isTerminalState } from '../../machines/task.machine.js';
import { a2aError } from '../a2a/errors.js';
import type { Task, TaskState } from '../a2a/schemas.js';
import { errorFields, type Logger } from '../log.js';
import type { TaskStore } from '../store/types.js';
import { LocalCoordinator, type Coordinator } from './coordinator.js';
import { markCanceled, markFailed } from './task-records.js';
import { taskView } from './task-views.js';
import { sleep } from './wait.js';

const FAILED_ON_RESTART = 'The server stopped while this task was running; it was marked failed.';
/** How long a follow-up waits for the replica that ran the last turn to give the task up. */
const LEASE_WAIT_MS = 3000;

export interface OwnershipDeps {
  coordinator: Coordinator;
  store: TaskStore;
  logger: Logger;
  settings: Pick<Settings, 'cancelGrace' | 'cancelForceTimeout'>;
  /** Lease time-to-live (s): how long a dead replica's tasks stay claimed. */
  leaseTtl: number;
  /** Whether the task runs in this process now. */
  isLive: (taskId: string) => boolean;
  /** With replicas: runs after a turn ends, before its lease is given up (push drains there). */
  beforeHandOver?: ((taskId: string) => Promise<void>) | undefined;
}

export interface TaskOwnership {
  /**
   * A new task starts here. Its id is free by construction and nobody else knows it yet, so
   * with replicas its lease is taken only when the task is first stored unfinished
   * (`beforeStore`); the backend must be reachable now all the same (else 503).
   */
  claimNew(taskId: string): void;
  /**
   * The task is about to be stored in `state`, where other replicas can find it: from now on
   * it is held here, unless the state is final (nobody can continue, cancel or recover it).
   */
  beforeStore(taskId: string, state: TaskState): Promise<void> | undefined;
  /** Takes the task for a turn here; false if another replica keeps it. */
  claim(taskId: string): Promise<boolean>;
  /** Gives a claim up that led to no turn. */
  unclaim(taskId: string): Promise<void>;
  /** The turn ended here: let the task go once its after-effects are done. */
  turnEnded(taskId: string): void;
  /** Marks failed every submitted/working task that no process runs any more; how many. */
  failOrphans(): Promise<number>;
  /** Starts what must keep running (the orphan sweep with replicas). */
  start(): void;
  /** A task that runs elsewhere (or nowhere): ask for its cancel and report how it stands. */
  cancelElsewhere(task: Task): Promise<Task>;
  close(): void;
}

/** What both kinds share: recovery, and cancelling a task this process does not run. */
abstract class OwnershipBase implements TaskOwnership {
  protected closed = false;
  constructor(protected readonly deps: OwnershipDeps) {}

  abstract claimNew(taskId: string): void;
  abstract beforeStore(taskId: string, state: TaskState): Promise<void> | undefined;
  abstract claim(taskId: string): Promise<boolean>;
  abstract unclaim(taskId: string): Promise<void>;
  abstract turnEnded(taskId: string): void;
  abstract start(): void;

  async failOrphans(): Promise<number> {
    const { coordinator, store, logger } = this.deps;
    let failed = 0;
    for (const candidate of await store.tasksInStates(['submitted', 'working'])) {
      if (this.deps.isLive(candidate.id) || (await coordinator.isOwned(candidate.id))) continue;
      if (!(await coordinator.acquire(candidate.id))) continue;
      try {
        // Read again under the lease: another replica may have finished it meanwhile.
        const task = await store.getTask(candidate.id);
        if (!task || (task.status.state !== 'submitted' && task.status.state !== 'working')) continue;
        markFailed(task, FAILED_ON_RESTART);
        await store.saveTask(task);
        logger.warn('runtime.orphan_failed', { taskId: task.id });
        failed++;
      } finally {
        await coordinator.release(candidate.id);
      }
    }
    return failed;
  }

  /**
   * Ask whichever replica runs the task to cancel it, and wait a short grace for the answer.
   * If that replica is gone, the force-cancel timeout still ends the task: once it has passed
   * with nobody holding the lease, the task is marked canceled here.
   */
  async cancelElsewhere(task: Task): Promise<Task> {
    const { coordinator, store, settings, logger } = this.deps;
    await coordinator.requestCancel(task.id);
    const settled = (t: Task | undefined) => !t || isTerminalState(t.status.state) || isInterruptedState(t.status.state);
    const graceEnd = Date.now() + settings.cancelGrace * 1000;
    let current: Task | undefined = task;
    while (Date.now() < graceEnd) {
      await sleep(50);
      current = await store.getTask(task.id);
      if (settled(current)) return current ? taskView(current) : taskView(task);
    }
    const forceAt = Date.now() + settings.cancelForceTimeout * 1000;
    void this.forceCancelOrphan(task.id, forceAt).catch((err) =>
      logger.warn('runtime.force_cancel_failed', { taskId: task.id, ...errorFields(err) }),
    );
    return taskView(current ?? task);
  }

  private async forceCancelOrphan(taskId: string, at: number): Promise<void> {
    const { coordinator, store } = this.deps;
    await sleep(Math.max(0, at - Date.now()), { unref: true });
    if (this.closed || this.deps.isLive(taskId) || (await coordinator.isOwned(taskId))) return;
    if (!(await coordinator.acquire(taskId))) return;
    try {
      const task = await store.getTask(taskId);
      if (!task || isTerminalState(task.status.state)) return;
      markCanceled(task);
      await store.saveTask(task);
    } finally {
      await coordinator.release(taskId);
    }
  }

  close(): void {
    this.closed = true;
  }
}

/** One process: a new id is free by construction and the live map says what runs. */
class LocalOwnership extends OwnershipBase {
  claimNew(): void {}
  /** Nothing to wait for: no promise (a write would await one per task). */
  beforeStore(): undefined {
    return undefined;
  }
  async claim(): Promise<boolean> {
    return true;
  }
  async unclaim(): Promise<void> {}
  turnEnded(): void {}
  start(): void {}
}

/** Several replicas on one store and one Coordinator (Redis). */
class ClusteredOwnership extends OwnershipBase {
  /** Turns that ended here and whose lease is not given up yet. */
  private readonly handOvers = new Map<string, Promise<void>>();
  /**
   * New tasks running here that no other replica can know of yet, so nobody holds their lease.
   * A task that is first stored finished (most blocking sends) never needs one: two round trips
   * to Redis saved per task. One stored unfinished takes it first: the orphan sweep and the
   * force-cancel of other replicas act on an unfinished stored task that nobody holds.
   */
  private readonly unleased = new Set<string>();
  private sweeper: NodeJS.Timeout | undefined;

  claimNew(taskId: string): void {
    if (!this.deps.coordinator.connected) throw a2aError('unavailable', 'coordination (Redis) is not reachable');
    this.unleased.add(taskId);
  }

  async beforeStore(taskId: string, state: TaskState): Promise<void> {
    if (isTerminalState(state) || !this.unleased.has(taskId)) return;
    // The id is new and unknown elsewhere: nobody else can hold it (a failure throws, and the write waits).
    await this.deps.coordinator.acquire(taskId);
    this.unleased.delete(taskId);
  }

  async claim(taskId: string): Promise<boolean> {
    // A turn that just ended here gives its lease up first (its webhooks may still be going).
    await this.handOvers.get(taskId);
    // The replica that ran the last turn may hold the lease a moment longer for the same reason.
    const giveUpAt = Date.now() + LEASE_WAIT_MS;
    for (;;) {
      if (await this.deps.coordinator.acquire(taskId)) return true;
      if (Date.now() >= giveUpAt) return false;
      await sleep(25);
    }
  }

  unclaim(taskId: string): Promise<void> {
    return this.deps.coordinator.release(taskId);
  }

  /** Gives the lease up once the turn's after-effects are done; a next turn here waits for it. */
  turnEnded(taskId: string): void {
    // Never stored unfinished: no lease was taken, so none is handed over.
    if (this.unleased.delete(taskId)) return;
    const done = (async () => {
      await this.deps.beforeHandOver?.(taskId).catch(() => {});
      // A turn that started here meanwhile keeps the lease (it waited for this hand-over).
      if (!this.deps.isLive(taskId)) await this.unclaim(taskId);
    })()
      .catch((err: unknown) => this.deps.logger.warn('runtime.lease_release_failed', { taskId, ...errorFields(err) }))
      .finally(() => {
        if (this.handOvers.get(taskId) === done) this.handOvers.delete(taskId);
      });
    this.handOvers.set(taskId, done);
  }

  /** The same sweep as start-up recovery, every half lease: work whose replica is gone fails. */
  start(): void {
    const every = Math.max(100, (this.deps.leaseTtl * 1000) / 2);
    this.sweeper = setInterval(() => {
      this.failOrphans().catch((err) => this.deps.logger.warn('runtime.orphan_sweep_failed', errorFields(err)));
    }, every);
    this.sweeper.unref();
  }

  override close(): void {
    super.close();
    this.unleased.clear();
    if (this.sweeper) clearInterval(this.sweeper);
  }
}

export const createOwnership = (deps: OwnershipDeps): TaskOwnership =>
  deps.coordinator instanceof LocalCoordinator ? new LocalOwnership(deps) : new ClusteredOwnership(deps);
