/**
 * How a turn ends and a task leaves memory: the turn's end is written before anyone is told of
 * it (a paused or terminal task: its final write, then the actor stops; a task that rests in
 * the background: one write, and it stays), a resting task is set aside for a new message, and
 * whatever breaks in the runtime fails the one task it broke. A turn's final answer also waits
 * for the transition listeners to make safe what they were told (push: the deliveries recorded),
 * only when they have something pending. Each step moves the task's run (task-run.ts) and
 * nothing else decides where the task stands.
 *
 * Store writes are chained with plain promise handlers: these run for every task, and nothing
 * here throws to its caller (what breaks is kept to the task).
 */
import { errorFields, type Logger } from '../log.js';
import { traceTurnEnd } from '../observe/turns.js';
import { EVENT_SEQ_KEY, type TaskEventLog } from './event-log.js';
import type { LiveTask } from './live-task.js';
import type { LiveTasks } from './live-tasks.js';
import type { StatusPublisher } from './status-publisher.js';
import type { TaskOwnership } from './task-ownership.js';
import { markFailed } from './task-records.js';
import { agentMessage, statusEvent } from './task-views.js';
import type { TaskWriter } from './task-writes.js';
import type { TurnLimit } from './turn-limit.js';

const RUNTIME_FAILED = 'The server failed while handling this task; it was marked failed.';

export interface TurnEndDeps {
  live: LiveTasks;
  events: TaskEventLog;
  writer: TaskWriter;
  ownership: TaskOwnership;
  publisher: StatusPublisher;
  logger: Logger;
  /** The turn's time limit, if any: a task that leaves memory drops its turn's deadline. */
  limit?: TurnLimit<LiveTask> | undefined;
}

export class TurnEnds {
  constructor(private readonly deps: TurnEndDeps) {}

  /** The machine entered a paused or terminal state: ends the turn once the machine is done. */
  endLater(live: LiveTask): void {
    // The turn's final event waits for the store: nobody is told of an end that a crash could
    // still lose. After the machine has finished this transition (queueMicrotask would cost an
    // AsyncResource per task).
    void Promise.resolve(live).then(this.endTurnLater);
  }

  /** The machine's `turnDetached`: the turn ends with the task resting (once the machine is done). */
  restLater(live: LiveTask): void {
    void Promise.resolve(live).then(this.restLaterFn);
  }

  private readonly endTurnLater = (live: LiveTask): void => this.endTurn(live);
  private readonly restLaterFn = (live: LiveTask): void => this.rest(live);

  /** The turn ended (paused or terminal): one write of the full task, then the actor leaves. */
  private endTurn(live: LiveTask): void {
    if (!live.run.beginEnding()) return;
    let written: Promise<string | undefined>;
    try {
      this.deps.writer.cancelFlush(live);
      // The final event's number goes into the stored task, so the two always agree.
      (live.task.metadata ??= {})[EVENT_SEQ_KEY] = this.deps.events.lastSeq(live.id) + 1;
      written = this.deps.writer.writeFinal(live);
    } catch (err) {
      this.turnEndFailed(live, err);
      return;
    }
    written.then(
      (json) => this.finalWritten(live, json),
      (err: unknown) => this.turnEndFailed(live, err),
    );
  }

  /**
   * The turn ended with the task working: one write of the task as it stands, then the end of
   * the turn is told (rested). The task stays, and so does everything that serves it: its
   * actor, its event log, its lease. Background work may call in meanwhile: its events follow
   * the write in the task's chain of writes.
   */
  private rest(live: LiveTask): void {
    // A terminal call made in the same tick ended the task: its own end tells everyone.
    if (!live.inBackground) return;
    let written: Promise<boolean>;
    try {
      this.deps.writer.cancelFlush(live);
      live.run.expose();
      traceTurnEnd(live, 'working');
      // The turn's final event's number, as at any turn's end: that event changes nothing in
      // the task. Should background work log an event first and take the number, the progress
      // write its call schedules stores the task with the right one.
      (live.task.metadata ??= {})[EVENT_SEQ_KEY] = this.deps.events.lastSeq(live.id) + 1;
      written = this.deps.writer.writeAtRest(live);
    } catch (err) {
      this.turnBroke(live.id, err);
      return;
    }
    written.then(
      (stored) => this.rested(live, stored),
      (err: unknown) => this.turnBroke(live.id, err),
    );
  }

  /**
   * The rest write is over (`stored` or lost): streams of the turn end at a status marked final
   * (the task's status, unchanged: no transition, so push is not told), and a blocking send
   * gets the task, or learns it could not be stored. Unless the task has ended meanwhile: its
   * end then tells everyone.
   */
  private rested(live: LiveTask, stored: boolean): void {
    if (!live.inBackground) return;
    try {
      // Stored as it stands: the task is findable, no other write need make it so.
      if (stored) live.run.setVisibleWrite(live.run.visibleWrite ?? Promise.resolve());
      else this.deps.logger.error('store.final_write_lost', { taskId: live.id, state: live.task.status.state });
      this.deps.publisher.appendEvent(live, statusEvent(live.task, true));
    } catch (err) {
      this.turnBroke(live.id, err);
      return;
    }
    live.turnEnded(stored ? { kind: 'task' } : { kind: 'task', unstored: true });
  }

  /**
   * A client's message came for a task resting in the background: its background work is told to
   * stop (the signal fires, and its later calls are not taken) and the task leaves memory as a
   * paused task does, stored as it stands, so that the message continues it as a new turn.
   * Resolves once it has left; false when it was not resting any more or could not be stored.
   */
  async setAside(live: LiveTask): Promise<boolean> {
    if (!live.inBackground || !live.run.beginEnding()) return false;
    let json: string | undefined;
    try {
      live.abortTurn();
      this.deps.writer.cancelFlush(live);
      // No event ends this turn: the next one numbers its events on from the last.
      (live.task.metadata ??= {})[EVENT_SEQ_KEY] = this.deps.events.lastSeq(live.id);
      json = await this.deps.writer.writeFinal(live);
    } catch (err) {
      this.turnEndFailed(live, err);
      return false;
    }
    if (json === undefined) this.deps.logger.error('store.final_write_lost', { taskId: live.id, state: live.task.status.state });
    // No answer ends here; the listeners are not left keeping the task.
    void this.deps.publisher.recorded(live.id);
    live.run.close(json);
    this.leave(live);
    return json !== undefined;
  }

  /**
   * The final write is over (its JSON, or undefined if lost): the end is told, then, once what
   * the listeners were told is recorded, the task leaves (its waiting callers are answered).
   */
  private finalWritten(live: LiveTask, json: string | undefined): void {
    let recorded: Promise<void> | undefined;
    try {
      if (json === undefined) this.deps.logger.error('store.final_write_lost', { taskId: live.id, state: live.task.status.state });
      this.deps.publisher.publishStatus(live);
      recorded = this.deps.publisher.recorded(live.id);
    } catch (err) {
      this.turnEndFailed(live, err);
      return;
    }
    if (recorded === undefined) {
      this.closeAndLeave(live, json);
      return;
    }
    // A throw there would otherwise be a rejection nobody handles: it is logged as a turn's end that failed.
    void recorded
      .then(() => this.closeAndLeave(live, json))
      .catch((err: unknown) => this.deps.logger.error('runtime.turn_end_failed', { taskId: live.id, ...errorFields(err) }));
  }

  private closeAndLeave(live: LiveTask, json: string | undefined): void {
    live.run.close(json);
    this.leave(live);
  }

  private turnEndFailed(live: LiveTask, err: unknown): void {
    // Nothing is acknowledged here: the listeners are not waited for (nor left keeping the task).
    void this.deps.publisher.recorded(live.id);
    try {
      live.run.close(undefined);
      this.deps.logger.error('runtime.turn_end_failed', { taskId: live.id, ...errorFields(err) });
    } finally {
      this.leave(live);
    }
  }

  /** Whatever broke before, the task leaves memory and everyone waiting for it is answered. */
  private leave(live: LiveTask): void {
    try {
      this.release(live);
      // Paused tasks too: their events stay replayable for a while, and `_eventSeq` numbers the next turn.
      this.deps.events.close(live.id);
      this.deps.ownership.turnEnded(live.id);
      live.finish(live.run.status === 'closed.unstored' ? { kind: 'task', unstored: true } : { kind: 'task' });
    } catch (err) {
      this.turnBroke(live.id, err);
    }
  }

  /** A direct reply replaced the hidden task: it leaves memory and nothing of it is kept. */
  replaced(live: LiveTask): void {
    this.release(live);
    this.deps.events.close(live.id, { discard: true });
    this.deps.ownership.turnEnded(live.id);
    const message = live.run.replacedWith;
    if (message) live.finish({ kind: 'message', message });
  }

  /**
   * Something in the runtime (not the handler) broke during a task's turn: the task fails with
   * a logged reason, and every other task goes on.
   */
  turnBroke(taskId: string, err: unknown): void {
    this.deps.logger.error('runtime.turn_failed', { taskId, ...errorFields(err) });
    const live = this.deps.live.get(taskId);
    if (!live?.run.isRunning) return;
    live.abortTurn();
    if (live.accepts('AGENT_FAILED')) {
      live.actor.send({ type: 'AGENT_FAILED', message: agentMessage(RUNTIME_FAILED, live.id, live.task.contextId) });
      return;
    }
    // The machine has left `working` already: end the turn from where it stands.
    this.deps.publisher.keepHeldCopy(live);
    markFailed(live.task, RUNTIME_FAILED);
    this.endTurn(live);
  }

  /** The actor stops and the task leaves memory. */
  release(live: LiveTask): void {
    // A terminal call ended the task while its handler still runs: the limit has nothing left to end.
    this.deps.limit?.ended(live);
    traceTurnEnd(live, live.task.status.state);
    this.deps.writer.cancelFlush(live);
    this.deps.live.release(live);
  }
}
