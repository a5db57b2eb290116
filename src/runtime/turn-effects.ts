/**
 * The machine's effects for one turn of a task (machines/task.machine.ts names them; the
 * service provides these): the handler runs, its calls become machine events, each state
 * entered is recorded with its status message and timestamp, events go to the log and to
 * transition listeners (push), and the turn's end is written before anyone is told of it.
 */
import type { AgentContext, AgentDefinition, ArtifactChunk } from '../agent.js';
import type { Artifact, Message, StreamEvent, TaskArtifactUpdateEvent, TaskState } from '../a2a/schemas.js';
import { errorFields, type Logger } from '../log.js';
import { isInterruptedState, isTerminalState } from '../../machines/task.machine.js';
import { newId } from '../a2a/ids.js';
import { ERRORS, isA2AError } from '../a2a/errors.js';
import { continuesInBackground, createAgentContext, type AgentContextDriver } from './agent-context.js';
import { EVENT_SEQ_KEY, type TaskEventLog } from './event-log.js';
import type { LiveTask, RuntimeTaskEvent } from './live-task.js';
import type { LiveTasks } from './live-tasks.js';
import { isoAt, nextStatusMs } from './status-clock.js';
import type { TaskOwnership } from './task-ownership.js';
import { markFailed, transitionsOf } from './task-records.js';
import { agentMessage, applyArtifactChunk, statusEvent, taskView } from './task-views.js';
import type { TaskWriter } from './task-writes.js';
import type { Task } from '../a2a/schemas.js';
import { carryTrace, traceTurnEnd, turnTransition, withTurn } from '../observe/turns.js';
import { NO_METRICS, type Metrics } from '../observe/metrics.js';

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

const HANDLER_FAILED = 'The agent failed while handling this task.';
const RUNTIME_FAILED = 'The server failed while handling this task; it was marked failed.';

export type TransitionListener = (task: Task) => void;

/** A transition listener, and how it takes a transition it has nothing to do for. */
export interface TransitionSubscriber {
  /** Gets a copy of the task, its own to keep. */
  notify: TransitionListener;
  /**
   * Asked first, with the running task itself (to be read at once, never kept), once the task is
   * exposed: true when the listener has done all it needed (push: no configs for this turn), so
   * no copy is made for it.
   */
  handledWithoutCopy?: ((task: Task) => boolean) | undefined;
}

export interface TurnEffectsDeps {
  agent: AgentDefinition;
  live: LiveTasks;
  events: TaskEventLog;
  writer: TaskWriter;
  ownership: TaskOwnership;
  logger: Logger;
  transitionListeners: ReadonlySet<TransitionSubscriber>;
  /** Where transitions and turn durations are counted (default: nowhere). */
  metrics?: Metrics;
}

export class TurnEffects {
  /** What the agent context calls for the handler. */
  readonly driver: AgentContextDriver;
  private readonly metrics: Metrics;

  constructor(private readonly deps: TurnEffectsDeps) {
    this.metrics = deps.metrics ?? NO_METRICS;
    this.driver = {
      agentEvent: (live, event) => this.agentEvent(live, event),
      reply: (live, message) => this.reply(live, message),
    };
  }

  /**
   * One turn of the handler; it reports back to the machine with AGENT_DONE (AGENT_DETACHED if
   * it continues in the background) or AGENT_FAILED.
   * A handler that returns without a promise (the echo agent) is reported on at once: no
   * async frame and await hop for it.
   */
  runTurn(taskId: string): Promise<void> | undefined {
    const live = this.deps.live.get(taskId);
    if (!live || live.phase === 'closed') return undefined;
    const context = createAgentContext(live, this.driver);
    const started = performance.now();
    let result: Promise<void> | void;
    try {
      result = withTurn(live, taskId, live.task.contextId, this.deps.logger, () => this.deps.agent.handler(context));
    } catch (err) {
      this.turnSettled(live, context, started, true, err);
      return undefined;
    }
    if (!isThenable(result)) {
      this.turnSettled(live, context, started, false, undefined);
      return undefined;
    }
    return Promise.resolve(result).then(
      () => this.turnSettled(live, context, started, false, undefined),
      (err: unknown) => this.turnSettled(live, context, started, true, err),
    );
  }

  private turnSettled(live: LiveTask, context: AgentContext, started: number, failed: boolean, err: unknown): void {
    const settled = failed ? 'AGENT_FAILED' : continuesInBackground(context) ? 'AGENT_DETACHED' : 'AGENT_DONE';
    const failure = failed && !live.cancelRequested ? this.failureOf(live, err) : undefined;
    this.metrics.turnDone((performance.now() - started) / 1000);
    // After a terminal call the machine has already left `working`: nothing to report.
    if (!live.accepts(settled)) return;
    live.actor.send(settled === 'AGENT_FAILED' ? { type: settled, message: failure } : { type: settled });
  }

  /**
   * The status message of a turn whose handler threw. A part the client did not accept
   * (output-modes.ts) is named, so the client learns why; anything else stays private to the
   * log, since an error's text may hold what the agent never meant to send.
   */
  private failureOf(live: LiveTask, err: unknown): Message {
    if (isA2AError(err) && err.entry === ERRORS.outputNotAccepted) {
      this.deps.logger.warn('agent.output_not_accepted', { taskId: live.id, reason: err.message });
      return agentMessage(err.message, live.id, live.task.contextId);
    }
    this.deps.logger.error('agent.handler_failed', { taskId: live.id, ...errorFields(err) });
    return agentMessage(HANDLER_FAILED, live.id, live.task.contextId);
  }

  private agentEvent(live: LiveTask, event: RuntimeTaskEvent): boolean {
    if (!live.accepts(event.type)) return false;
    live.expose();
    live.actor.send(event);
    return true;
  }

  /** Applies an artifact chunk to the task and logs its event. */
  private addArtifact(live: LiveTask, chunk: ArtifactChunk): void {
    // The parts are copied once, out of the handler's reach; the task and the event then share
    // this artifact (neither is ever changed in place).
    const artifact: Artifact = { artifactId: chunk.artifactId ?? newId(), parts: chunk.parts.slice() };
    if (chunk.name !== undefined) artifact.name = chunk.name;
    if (chunk.description !== undefined) artifact.description = chunk.description;
    if (chunk.metadata !== undefined) artifact.metadata = chunk.metadata;
    if (chunk.extensions !== undefined) artifact.extensions = chunk.extensions;
    applyArtifactChunk(live.task, artifact, chunk.append === true);
    const event: TaskArtifactUpdateEvent = { kind: 'artifact-update', taskId: live.id, contextId: live.task.contextId, artifact };
    if (chunk.append !== undefined) event.append = chunk.append;
    if (chunk.lastChunk !== undefined) event.lastChunk = chunk.lastChunk;
    this.appendEvent(live, event);
  }

  private reply(live: LiveTask, message: Message): void {
    if (live.phase !== 'running') return;
    if (!live.firstTurn || live.exposed) {
      // The task is already known to the client: the reply completes it.
      this.agentEvent(live, { type: 'COMPLETE', message });
      return;
    }
    // A direct reply replaces the task: it was never exposed, so nothing else saw it.
    const { taskId: _t, ...direct } = message;
    live.beginEnding();
    this.release(live);
    this.deps.events.close(live.id, { discard: true });
    this.deps.ownership.turnEnded(live.id);
    live.finish({ kind: 'message', message: direct });
  }

  /**
   * The machine's `stateEntered` action, with the message the entering event carried and, for
   * a completion with content, the final artifact (applied first: its event precedes the end).
   */
  stateEntered(taskId: string, state: TaskState, message: Message | undefined, artifact?: ArtifactChunk): void {
    const live = this.deps.live.get(taskId);
    if (!live) return;
    this.metrics.taskEntered(state);
    this.keepHeldCopy(live);
    if (artifact) this.addArtifact(live, artifact);
    turnTransition(live, taskId, live.task.contextId, live.task.status.state, state, this.deps.logger);
    const timestamp = this.nextLiveTimestamp(live);
    live.task.status = message ? { state, timestamp, message } : { state, timestamp };
    if (message) (live.task.history ??= []).push(message);
    transitionsOf(live.task).push({ state, timestamp });
    if (state === 'submitted') return;
    if (isTerminalState(state) || isInterruptedState(state)) {
      // The turn's final event waits for the store (endTurn): nobody is told of an end that a
      // crash could still lose. After the machine has finished this transition (queueMicrotask
      // would cost an AsyncResource per task).
      void Promise.resolve(live).then(this.endTurnLater);
      return;
    }
    this.publishStatus(live);
    this.deps.writer.scheduleFlush(live);
  }

  /**
   * The machine's `turnDetached` action: the handler returned and continues in the background.
   * As at any turn's end, the task is stored before anyone is told (after the machine has
   * finished this transition).
   */
  turnDetached(taskId: string): void {
    const live = this.deps.live.get(taskId);
    if (live) void Promise.resolve(live).then(this.restLater);
  }

  /** turnDetached's deferred rest: one function for every task. */
  private readonly restLater = (live: LiveTask): void => this.rest(live);

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
      live.expose();
      // Nobody streams a turn any more: later changes are stored as a blocking send's are.
      live.mode = 'progress';
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
   * gets the task. Unless the task has ended meanwhile: its end then tells everyone.
   */
  private rested(live: LiveTask, stored: boolean): void {
    if (!live.inBackground) return;
    try {
      live.unstored = !stored;
      if (stored) live.visibleWrite ??= Promise.resolve();
      else this.deps.logger.error('store.final_write_lost', { taskId: live.id, state: live.task.status.state });
      this.appendEvent(live, statusEvent(live.task, true));
    } catch (err) {
      this.turnBroke(live.id, err);
      return;
    }
    live.turnEnded({ kind: 'task' });
  }

  /** The machine's `statusUpdated` action (working -> working), with the STATUS event's message. */
  statusUpdated(taskId: string, message: Message | undefined): void {
    const live = this.deps.live.get(taskId);
    if (!live) return;
    const timestamp = this.nextLiveTimestamp(live);
    live.task.status = message ? { state: 'working', timestamp, message } : { state: 'working', timestamp };
    this.publishStatus(live);
    this.deps.writer.scheduleFlush(live);
  }

  /** The machine's `artifactAdded` action, with the ARTIFACT event's chunk. */
  artifactAdded(taskId: string, chunk: ArtifactChunk): void {
    const live = this.deps.live.get(taskId);
    if (!live) return;
    this.addArtifact(live, chunk);
    this.deps.writer.scheduleFlush(live);
  }

  /** The next status timestamp of a running task (its last one is kept as a number, not parsed again). */
  private nextLiveTimestamp(live: LiveTask): string {
    live.statusMs = nextStatusMs(live.statusMs);
    return isoAt(live.statusMs);
  }

  /** A status event to subscribers and, once the task is exposed, to transition listeners (push). */
  private publishStatus(live: LiveTask): void {
    this.appendEvent(live, statusEvent(live.task));
    const listeners = this.deps.transitionListeners;
    if (listeners.size === 0) return;
    if (!live.exposed) {
      // The turn's first status, before any agent call: told once the task is exposed, as it is now.
      if (live.heldStatus !== undefined) {
        // A second one held (no path does this today): the task as it is now is copied at once.
        const copy = this.copyForListeners(live);
        live.whenExposed(() => {
          for (const listener of listeners) this.tell(live, listener, copy);
        });
        return;
      }
      live.heldStatus = live.task.status;
      live.whenExposed(() => this.tellHeld(live));
      return;
    }
    this.tellListeners(live);
  }

  /** A listener with nothing to do (a task without push configs) costs no copy of the task. */
  private tellListeners(live: LiveTask): void {
    let copy: Task | undefined;
    for (const listener of this.deps.transitionListeners) {
      if (this.handledWithoutCopy(live, listener)) continue;
      this.tell(live, listener, (copy ??= this.copyForListeners(live)));
    }
  }

  /**
   * The task is about to change: a status still held for listeners keeps a copy of the task as
   * it was. Called before every change a task can undergo while it is not exposed (a state
   * entered without an agent call: the handler returned or threw, a cancel, a runtime failure).
   */
  private keepHeldCopy(live: LiveTask): void {
    if (live.heldStatus !== undefined && live.heldCopy === undefined) live.heldCopy = this.copyForListeners(live);
  }

  /**
   * The task was exposed: listeners are told of the held status. When the task has not changed
   * since (the agent's call exposed it), it is a transition of the exposed task like any other,
   * read from the task itself; otherwise each gets the copy kept when it changed.
   */
  private tellHeld(live: LiveTask): void {
    const copy = live.heldCopy;
    const unchanged = copy === undefined && live.task.status === live.heldStatus;
    live.heldStatus = undefined;
    live.heldCopy = undefined;
    if (unchanged) {
      this.tellListeners(live);
      return;
    }
    const told = copy ?? this.copyForListeners(live);
    for (const listener of this.deps.transitionListeners) this.tell(live, listener, told);
  }

  private copyForListeners(live: LiveTask): Task {
    const copy = taskView(live.task);
    carryTrace(copy, live);
    return copy;
  }

  private handledWithoutCopy(live: LiveTask, listener: TransitionSubscriber): boolean {
    try {
      return listener.handledWithoutCopy?.(live.task) === true;
    } catch (err) {
      this.deps.logger.error('runtime.transition_listener_failed', { taskId: live.id, ...errorFields(err) });
      return true;
    }
  }

  private tell(live: LiveTask, listener: TransitionSubscriber, copy: Task): void {
    try {
      listener.notify(copy);
    } catch (err) {
      this.deps.logger.error('runtime.transition_listener_failed', { taskId: live.id, ...errorFields(err) });
    }
  }

  /** Logs an event and stamps its number on the task, so every snapshot says what it reflects. */
  private appendEvent(live: LiveTask, event: StreamEvent): void {
    const seq = this.deps.events.append(live.id, event);
    (live.task.metadata ??= {})[EVENT_SEQ_KEY] = seq;
  }

  /** stateEntered's deferred endTurn: one function for every task, not a closure per task. */
  private readonly endTurnLater = (live: LiveTask): void => this.endTurn(live);

  /**
   * The turn ended (paused or terminal): one write of the full task, then the actor leaves. Not
   * async: an async frame and its await cost every task about 450 bytes; the two handlers on the
   * final write do the same work. Nothing here throws: what breaks is kept to the task.
   */
  private endTurn(live: LiveTask): void {
    if (!live.beginEnding()) return;
    let written: Promise<boolean>;
    try {
      this.deps.writer.cancelFlush(live);
      live.expose();
      // The final event's number goes into the stored task, so the two always agree.
      (live.task.metadata ??= {})[EVENT_SEQ_KEY] = this.deps.events.lastSeq(live.id) + 1;
      written = this.deps.writer.writeFinal(live);
    } catch (err) {
      this.turnEndFailed(live, err);
      return;
    }
    written.then(
      (stored) => this.finalWritten(live, stored),
      (err: unknown) => this.turnEndFailed(live, err),
    );
  }

  /**
   * A client's message came for a task resting in the background: its background work is told to
   * stop (the signal fires, and its later calls are not taken) and the task leaves memory as a
   * paused task does, stored as it stands, so that the message continues it as a new turn.
   * Resolves once it has left; false when it was not resting any more or could not be stored.
   */
  setAside(live: LiveTask): Promise<boolean> {
    if (!live.inBackground || !live.beginEnding()) return Promise.resolve(false);
    let written: Promise<boolean>;
    try {
      live.abortTurn();
      this.deps.writer.cancelFlush(live);
      // No event ends this turn: the next one numbers its events on from the last.
      (live.task.metadata ??= {})[EVENT_SEQ_KEY] = this.deps.events.lastSeq(live.id);
      written = this.deps.writer.writeFinal(live);
    } catch (err) {
      this.turnEndFailed(live, err);
      return Promise.resolve(false);
    }
    return written.then(
      (stored) => {
        if (!stored) this.deps.logger.error('store.final_write_lost', { taskId: live.id, state: live.task.status.state });
        this.leave(live);
        return stored;
      },
      (err: unknown) => {
        this.turnEndFailed(live, err);
        return false;
      },
    );
  }

  /** The final write is over (`stored` or lost): the end is told, then the task leaves. */
  private finalWritten(live: LiveTask, stored: boolean): void {
    try {
      live.unstored = !stored;
      if (!stored) this.deps.logger.error('store.final_write_lost', { taskId: live.id, state: live.task.status.state });
      this.publishStatus(live);
    } catch (err) {
      this.turnEndFailed(live, err);
      return;
    }
    this.leave(live);
  }

  private turnEndFailed(live: LiveTask, err: unknown): void {
    try {
      live.unstored = true;
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
      live.finish({ kind: 'task' });
    } catch (err) {
      this.turnBroke(live.id, err);
    }
  }

  /**
   * Something in the runtime (not the handler) broke during a task's turn: the task fails with
   * a logged reason, and every other task goes on.
   */
  turnBroke(taskId: string, err: unknown): void {
    this.deps.logger.error('runtime.turn_failed', { taskId, ...errorFields(err) });
    const live = this.deps.live.get(taskId);
    if (!live || live.phase !== 'running') return;
    live.abortTurn();
    if (live.accepts('AGENT_FAILED')) {
      live.actor.send({ type: 'AGENT_FAILED', message: agentMessage(RUNTIME_FAILED, live.id, live.task.contextId) });
      return;
    }
    // The machine has left `working` already: end the turn from where it stands.
    this.keepHeldCopy(live);
    markFailed(live.task, RUNTIME_FAILED);
    this.endTurn(live);
  }

  /** The actor stops and the task leaves memory. */
  release(live: LiveTask): void {
    traceTurnEnd(live, live.task.status.state);
    this.deps.writer.cancelFlush(live);
    this.deps.live.release(live);
  }
}
