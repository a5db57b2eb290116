/**
 * The machine's effects for one turn of a task (machines/task.machine.ts names them; the
 * service provides these): the handler runs, its calls become machine events, and each state
 * entered is recorded with its status message and timestamp. What is told goes through the
 * status publisher (status-publisher.ts); how the turn ends, through turn-end.ts.
 */
import type { AgentContext, AgentDefinition, ArtifactChunk } from '../agent.js';
import type { Artifact, Message, TaskArtifactUpdateEvent, TaskState } from '../a2a/schemas.js';
import { errorFields, type Logger } from '../log.js';
import { isInterruptedState, isTerminalState } from '../../machines/task.machine.js';
import { newId } from '../a2a/ids.js';
import { ERRORS, isA2AError } from '../a2a/errors.js';
import { continuesInBackground, createAgentContext, type AgentContextDriver } from './agent-context.js';
import type { TaskEventLog } from './event-log.js';
import { NO_SIZE_LIMITS, type SizeLimits } from './size-limits.js';
import type { LiveTask, RuntimeTaskEvent } from './live-task.js';
import type { LiveTasks } from './live-tasks.js';
import { isoAt, nextStatusMs } from './status-clock.js';
import { StatusPublisher, type TransitionListener, type TransitionSubscriber } from './status-publisher.js';
import type { TaskOwnership } from './task-ownership.js';
import { transitionsOf } from './task-records.js';
import { agentMessage, applyArtifactChunk } from './task-views.js';
import type { TaskWriter } from './task-writes.js';
import { TurnEnds } from './turn-end.js';
import { turnLimitOf, type TurnLimit } from './turn-limit.js';
import { turnTransition, withTurn } from '../observe/turns.js';
import { NO_METRICS, type Metrics } from '../observe/metrics.js';

export type { TransitionListener, TransitionSubscriber };

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

const HANDLER_FAILED = 'The agent failed while handling this task.';
const timedOut = (seconds: number): string =>
  `The agent's turn ran past the server's time limit of ${seconds} s (setting turnTimeout, SERVICE_TURN_TIMEOUT); the task was marked failed.`;

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
  /** What the agent's output may add to a task (size-limits.ts); default none. */
  sizeLimits?: SizeLimits;
  /** Seconds one turn of the handler may run (SERVICE_TURN_TIMEOUT); 0 or absent: no limit. */
  turnTimeout?: number;
}

export class TurnEffects {
  /** What the agent context calls for the handler. */
  readonly driver: AgentContextDriver;
  /** How turns end and tasks leave memory. */
  readonly ends: TurnEnds;
  /** The turn's time limit; undefined when there is none. */
  readonly limit: TurnLimit<LiveTask> | undefined;
  private readonly publisher: StatusPublisher;
  private readonly metrics: Metrics;

  constructor(private readonly deps: TurnEffectsDeps) {
    this.metrics = deps.metrics ?? NO_METRICS;
    this.publisher = new StatusPublisher(deps.events, deps.transitionListeners, deps.logger);
    this.limit = turnLimitOf<LiveTask>(deps.turnTimeout, (live) => this.turnTimedOut(live));
    this.ends = new TurnEnds({ ...deps, publisher: this.publisher, limit: this.limit });
    this.driver = {
      agentEvent: (live, event) => this.agentEvent(live, event),
      reply: (live, message) => this.reply(live, message),
      sizeLimits: deps.sizeLimits ?? NO_SIZE_LIMITS,
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
    if (!live) return undefined;
    const context = createAgentContext(live, this.driver);
    this.limit?.started(live);
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
    this.limit?.ended(live);
    const failure = failed && !live.cancelRequested ? this.failureOf(live, err) : undefined;
    this.metrics.turnDone((performance.now() - started) / 1000);
    // After a terminal call (or the time limit) the machine has already left `working`: nothing to report.
    if (!live.accepts(settled)) return;
    live.actor.send(settled === 'AGENT_FAILED' ? { type: settled, message: failure } : { type: settled });
  }

  /**
   * The turn ran past its limit: the machine fails the task and fires the handler's signal; what
   * the handler does afterwards finds the task ended. Called from the limit's timer: nothing
   * thrown here may escape (it would end the process), so it fails the one task instead.
   */
  private turnTimedOut(live: LiveTask): void {
    const limit = this.limit;
    if (limit === undefined || !live.accepts('TURN_TIMEOUT')) return;
    try {
      this.deps.logger.warn('agent.turn_timeout', {
        taskId: live.id,
        contextId: live.task.contextId,
        ...(live.caller ? { principal: live.caller.principal.id } : {}),
        turnTimeout: limit.seconds,
      });
      this.metrics.turnTimedOut();
      live.actor.send({ type: 'TURN_TIMEOUT', message: agentMessage(timedOut(limit.seconds), live.id, live.task.contextId) });
    } catch (err) {
      this.ends.turnBroke(live.id, err);
    }
  }

  /**
   * The status message of a turn whose handler threw. A part the client did not accept
   * (output-modes.ts) is named, so the client learns why; anything else stays private to the
   * log, since an error's text may hold what the agent never meant to send.
   */
  private failureOf(live: LiveTask, err: unknown): Message {
    if (isA2AError(err) && (err.entry === ERRORS.outputNotAccepted || err.entry === ERRORS.contentTooLarge)) {
      this.deps.logger.warn('agent.output_not_accepted', { taskId: live.id, reason: err.message });
      return agentMessage(err.message, live.id, live.task.contextId);
    }
    this.deps.logger.error('agent.handler_failed', { taskId: live.id, ...errorFields(err) });
    return agentMessage(HANDLER_FAILED, live.id, live.task.contextId);
  }

  private agentEvent(live: LiveTask, event: RuntimeTaskEvent): boolean {
    if (!live.accepts(event.type)) return false;
    live.run.expose();
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
    this.publisher.appendEvent(live, event);
  }

  private reply(live: LiveTask, message: Message): void {
    // An ended task takes no reply, even in the moment before its final write begins (a handler
    // answering its signal after the time limit failed the task would otherwise replace it).
    if (!live.run.isRunning || isTerminalState(live.task.status.state)) return;
    const { taskId: _t, ...direct } = message;
    // A direct reply replaces a hidden task (nothing else saw it); a task already known to the
    // client is completed by it.
    if (live.run.replacedBy(direct)) this.ends.replaced(live);
    else this.agentEvent(live, { type: 'COMPLETE', message });
  }

  /**
   * The machine's `stateEntered` action, with the message the entering event carried and, for
   * a completion with content, the final artifact (applied first: its event precedes the end).
   */
  stateEntered(taskId: string, state: TaskState, message: Message | undefined, artifact?: ArtifactChunk): void {
    const live = this.deps.live.get(taskId);
    if (!live) return;
    this.metrics.taskEntered(state);
    this.publisher.keepHeldCopy(live);
    if (artifact) this.addArtifact(live, artifact);
    turnTransition(live, taskId, live.task.contextId, live.task.status.state, state, this.deps.logger);
    const timestamp = this.nextLiveTimestamp(live);
    live.task.status = message ? { state, timestamp, message } : { state, timestamp };
    if (message) (live.task.history ??= []).push(message);
    transitionsOf(live.task).push({ state, timestamp });
    if (state === 'submitted') return;
    if (isTerminalState(state) || isInterruptedState(state)) {
      this.ends.endLater(live);
      return;
    }
    this.publisher.publishStatus(live);
    this.deps.writer.scheduleFlush(live);
  }

  /**
   * The machine's `turnDetached` action: the handler returned and continues in the background.
   * As at any turn's end, the task is stored before anyone is told (turn-end.ts).
   */
  turnDetached(taskId: string): void {
    const live = this.deps.live.get(taskId);
    if (live) this.ends.restLater(live);
  }

  /** The machine's `statusUpdated` action (working -> working), with the STATUS event's message. */
  statusUpdated(taskId: string, message: Message | undefined): void {
    const live = this.deps.live.get(taskId);
    if (!live) return;
    const timestamp = this.nextLiveTimestamp(live);
    live.task.status = message ? { state: 'working', timestamp, message } : { state: 'working', timestamp };
    this.publisher.publishStatus(live);
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
}
