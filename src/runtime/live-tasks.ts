/** The tasks whose actor runs in this process, by id, and how many actors that is. */
import type { LiveTask, LiveTaskHandle } from './live-task.js';
import { CallerCounts } from './caller-quotas.js';
import { TaskSupervisor } from './task-supervisor.js';
import { agentMessage } from './task-views.js';
import { waitFor } from './wait.js';

const STOPPED_BY_SHUTDOWN = 'The server stopped before this task finished; it was canceled.';
/** How long a graceful shutdown waits for canceled handlers before their machines end them. */
const SHUTDOWN_CANCEL_WAIT_MS = 1000;

export class LiveTasks {
  /** Handles, not the tasks: see LiveTaskHandle. */
  private readonly byId = new Map<string, LiveTaskHandle>();
  private actors = 0;
  /** Live tasks per owner (the per-caller quota, caller-quotas.ts). */
  private readonly perOwner = new CallerCounts();
  /** The parent of every task actor here (src/runtime/task-actors.ts spawns them). */
  readonly supervisor = new TaskSupervisor();

  get(id: string): LiveTask | undefined {
    return this.byId.get(id)?.live;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The live record if a turn runs now and is not ending (what subscribers attach to). */
  running(id: string): LiveTask | undefined {
    const live = this.byId.get(id)?.live;
    return live?.run.isRunning === true ? live : undefined;
  }

  add(live: LiveTask): void {
    this.byId.set(live.id, live.handle);
    this.perOwner.add(live.owner);
  }

  /** How many live tasks `owner` (a principal id; none without auth) has here. */
  heldBy(owner: string | undefined): number {
    return this.perOwner.of(owner);
  }

  /** Its actor was started. */
  started(): void {
    this.actors++;
  }

  /** Stops the task's actor and forgets the task (once: its handle is emptied). */
  release(live: LiveTask): void {
    if (live.handle.live === undefined) return;
    this.supervisor.stop(live.actor);
    this.actors--;
    this.perOwner.remove(live.owner);
    if (this.byId.get(live.id) === live.handle) this.byId.delete(live.id);
    live.handle.live = undefined;
  }

  get size(): number {
    return this.byId.size;
  }

  get runningActors(): number {
    return this.actors;
  }

  all(): LiveTask[] {
    const tasks: LiveTask[] = [];
    for (const { live } of this.byId.values()) if (live) tasks.push(live);
    return tasks;
  }

  /**
   * Graceful shutdown of what runs here: turns get `graceMs` to end on their own; then they are
   * canceled (the handler's signal fires, the status message says the server stopped), and a
   * handler that ignores that too is ended `canceled` by its machine a moment later, as the
   * force-cancel timer would. Then the final writes (at most `writeWindowMs`).
   */
  async drain(graceMs: number, writeWindowMs: number): Promise<void> {
    await this.untilIdle(graceMs);
    for (const live of this.all()) {
      if (!live.accepts('CANCEL')) continue;
      live.actor.send({ type: 'CANCEL', message: agentMessage(STOPPED_BY_SHUTDOWN, live.id, live.task.contextId) });
    }
    await this.untilIdle(SHUTDOWN_CANCEL_WAIT_MS);
    // In `cancelling`, the handler's settling ends the task `canceled`: it is not waited for.
    for (const live of this.all()) if (live.accepts('AGENT_FAILED')) live.actor.send({ type: 'AGENT_FAILED' });
    await this.untilIdle(writeWindowMs + SHUTDOWN_CANCEL_WAIT_MS);
  }

  /** Resolves once no task is live here, or after `ms`. */
  private async untilIdle(ms: number): Promise<void> {
    if (this.byId.size === 0) return;
    await waitFor(Promise.all(this.all().map((l) => l.settled)), ms);
  }
}
