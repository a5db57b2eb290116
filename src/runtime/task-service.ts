/**
 * TaskService: create, continue, get, list and cancel tasks. Each task that is running has one
 * XState actor (machines/task.machine.ts) with the runtime's effects provided; the machine's
 * `startAgentTurn` action starts one turn of the agent handler, which reports back with
 * AGENT_DONE or AGENT_FAILED. Paused and terminal tasks are persisted and their actors stopped,
 * so memory holds only work in progress. With replicas, a Coordinator lease says which replica
 * runs a task (see docs/architecture.md).
 */
import { createActor, type InspectionEvent, type Observer } from 'xstate';
import type { AgentDefinition, ArtifactChunk } from '../agent.js';
import type { Caller } from '../auth/types.js';
import type { Settings } from '../config.js';
import { errorFields, type Logger } from '../log.js';
import { a2aError, shown } from '../protocol/errors.js';
import type {
  ListTasksParams,
  Message,
  MessageSendParams,
  PushNotificationConfig,
  StreamEvent,
  Task,
  TaskState,
} from '../protocol/schemas.js';
import { decodePageToken, encodePageToken } from '../store/page-token.js';
import type { TaskStore } from '../store/types.js';
import {
  isInterruptedState,
  isTerminalState,
  taskMachine,
  type TaskMachineEventType,
} from '../../machines/task.machine.js';
import { LocalCoordinator, type Coordinator } from '../cluster/coordinator.js';
import { createAgentContext, type AgentContextDriver } from './agent-context.js';
import { EVENT_SEQ_KEY, eventSeqOf, type TaskEventLog } from './event-log.js';
import { LiveTask, type PersistMode, type TurnOutcome } from './live-task.js';
import { agentMessage, applyArtifactChunk, newId, statusEvent, taskView } from './task-views.js';
import { isoAt, nextStatusMs, nextStatusTimestamp } from './status-clock.js';
import { serializeOrFail } from './storable.js';

export interface TaskServiceOptions {
  agent: AgentDefinition;
  store: TaskStore;
  events: TaskEventLog;
  settings: Pick<
    Settings,
    'blockingTimeout' | 'cancelForceTimeout' | 'cancelGrace' | 'progressFlushInterval' | 'storeRetryWindow'
  >;
  logger: Logger;
  /**
   * Which replica runs which task, and cancel requests between replicas. Default: this process
   * alone. `leaseTtl` (s) is how long a dead replica's tasks stay claimed.
   */
  coordinator?: Coordinator;
  leaseTtl?: number;
  /**
   * With replicas: runs after a turn ends and before its lease is given up (push uses it to
   * let the turn's webhooks go out first, so the next turn's, maybe elsewhere, follow them).
   */
  beforeHandOver?: (taskId: string) => Promise<void>;
  /** Stately inspector (or any observer) of every task actor. */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
}

/** Registers a push config given inline with a message, before the task starts. */
export type InlinePushRegistrar = (taskId: string, config: PushNotificationConfig) => Promise<void>;
export type TransitionListener = (task: Task) => void;

/** `json`, when present, is the task's JSON text (the finished task, serialized once for store and reply). */
export type SendResult = { kind: 'task'; task: Task; json?: string } | { kind: 'message'; message: Message };
export type StartedTurn = { kind: 'existing'; task: Task } | { kind: 'live'; live: LiveTask };

const FAILED_ON_RESTART = 'The server stopped while this task was running; it was marked failed.';
const TASK_ELSEWHERE = 'the task is being continued on another replica';
/** How long a follow-up waits for the replica that ran the last turn to give the task up. */
const LEASE_WAIT_MS = 3000;
const HANDLER_FAILED = 'The agent failed while handling this task.';
const RUNTIME_FAILED = 'The server failed while handling this task; it was marked failed.';
const STOPPED_BY_SHUTDOWN = 'The server stopped before this task finished; it was canceled.';
/** How long a graceful shutdown waits for canceled handlers before their machines end them. */
const SHUTDOWN_CANCEL_WAIT_MS = 1000;

/**
 * Idempotency is per principal: the same messageId (or contextId) from two callers is two
 * messages. The owner's length makes the key unambiguous whatever either part contains.
 */
const ownedScope = (owner: string | undefined, scope: string): string => (owner === undefined ? scope : `${owner.length}:${owner}:${scope}`);

/** With auth on (`owner` set), a caller's reads see only tasks it created. */
const visibleTo = (live: LiveTask, owner: string | undefined): boolean => owner === undefined || live.owner === owner;

export class TaskService {
  private readonly live = new Map<string, LiveTask>();
  /** (scope, messageId) -> task id for tasks in memory, ahead of the store's record. */
  private readonly liveMessageKeys = new Map<string, string>();
  private readonly transitionListeners = new Set<TransitionListener>();
  private inlinePushRegistrar: InlinePushRegistrar | undefined;
  private readonly machine;
  private readonly driver: AgentContextDriver;
  private runningActors = 0;
  private initialized = false;
  private closed = false;
  /** Shutting down: running turns may end, new ones are refused (503). */
  private draining = false;
  private readonly coordinator: Coordinator;
  /** Turns that ended here and whose lease is not given up yet. */
  private readonly handOvers = new Map<string, Promise<void>>();
  /** Running tasks with a progress write due, and the ticker that writes them. */
  private readonly dirty = new Set<LiveTask>();
  private flushTicker: NodeJS.Timeout | undefined;
  /** Several replicas share the store and the event log. */
  private readonly clustered: boolean;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly opts: TaskServiceOptions) {
    // An action that throws would put the actor in XState's error state and be rethrown from a
    // timer, ending the process: each action's failure is kept to its own task instead.
    const guarded =
      <A extends unknown[]>(fn: (taskId: string, ...args: A) => void) =>
      ({ context }: { context: { taskId: string } }, ...args: A): void => {
        try {
          fn(context.taskId, ...args);
        } catch (err) {
          this.turnBroke(context.taskId, err);
        }
      };
    this.machine = taskMachine.provide({
      actions: {
        stateEntered: guarded((taskId, params: { state: TaskState }) => this.onStateEntered(taskId, params.state)),
        statusUpdated: guarded((taskId) => this.onStatusUpdated(taskId)),
        artifactAdded: guarded((taskId) => {
          const live = this.live.get(taskId);
          if (live) this.scheduleFlush(live);
        }),
        abortAgent: guarded((taskId) => this.live.get(taskId)?.abortTurn()),
        // The handler starts after the machine's macrostep, so every call it makes is processed
        // at once (and `can()` answers for the state the call really meets).
        startAgentTurn: guarded((taskId) => {
          void Promise.resolve(taskId)
            .then((id) => this.runTurn(id))
            .catch((err: unknown) => this.turnBroke(taskId, err));
        }),
      },
      delays: { forceCancelTimeout: opts.settings.cancelForceTimeout * 1000 },
    });
    this.coordinator = opts.coordinator ?? new LocalCoordinator();
    this.clustered = !(this.coordinator instanceof LocalCoordinator);
    // A cancel that landed on another replica reaches the handler running here.
    this.coordinator.onCancelRequest((taskId) => {
      const live = this.liveTask(taskId);
      if (live?.accepts('CANCEL')) live.actor.send({ type: 'CANCEL' });
    });
    this.driver = {
      agentEvent: (live, type, effect) => this.agentEvent(live, type, effect),
      addArtifact: (live, chunk, defaultId) => this.addArtifact(live, chunk, defaultId),
      reply: (live, message) => this.reply(live, message),
    };
  }

  /**
   * Start-up recovery, then (with several replicas) the same sweep every half lease: work whose
   * replica is gone (nobody holds its lease) is marked failed; paused tasks stay resumable.
   */
  async init(): Promise<{ recovered: number }> {
    const recovered = await this.failOrphans();
    this.initialized = true;
    if (!(this.coordinator instanceof LocalCoordinator)) {
      const every = Math.max(100, ((this.opts.leaseTtl ?? 15) * 1000) / 2);
      this.sweeper = setInterval(() => {
        this.failOrphans().catch((err) => this.opts.logger.warn('runtime.orphan_sweep_failed', errorFields(err)));
      }, every);
      this.sweeper.unref();
    }
    return { recovered };
  }

  /** Marks failed every submitted/working task that no replica runs any more. */
  private async failOrphans(): Promise<number> {
    let failed = 0;
    for (const candidate of await this.opts.store.tasksInStates(['submitted', 'working'])) {
      if (this.live.has(candidate.id) || (await this.coordinator.isOwned(candidate.id))) continue;
      if (!(await this.coordinator.acquire(candidate.id))) continue;
      try {
        // Read again under the lease: another replica may have finished it meanwhile.
        const task = await this.opts.store.getTask(candidate.id);
        if (!task || (task.status.state !== 'submitted' && task.status.state !== 'working')) continue;
        this.markFailed(task, FAILED_ON_RESTART);
        await this.opts.store.saveTask(task);
        this.opts.logger.warn('runtime.orphan_failed', { taskId: task.id });
        failed++;
      } finally {
        await this.coordinator.release(candidate.id);
      }
    }
    return failed;
  }

  private markFailed(task: Task, reason: string): void {
    const timestamp = nextStatusTimestamp(task);
    const message = agentMessage(reason, task.id, task.contextId);
    task.status = { state: 'failed', timestamp, message };
    task.history = [...(task.history ?? []), message];
    this.transitionsOf(task).push({ state: 'failed', timestamp });
  }

  get ready(): boolean {
    return this.initialized && !this.closed;
  }

  onTransition(listener: TransitionListener): () => void {
    this.transitionListeners.add(listener);
    return () => this.transitionListeners.delete(listener);
  }

  setInlinePushRegistrar(registrar: InlinePushRegistrar): void {
    this.inlinePushRegistrar = registrar;
  }

  get events(): TaskEventLog {
    return this.opts.events;
  }

  /** Counters for leak checks and metrics. */
  stats(): { liveTasks: number; runningActors: number; pendingFlushes: number } {
    return { liveTasks: this.live.size, runningActors: this.runningActors, pendingFlushes: this.dirty.size };
  }

  // ---------------------------------------------------------------- message/send

  async sendMessage(params: MessageSendParams, caller?: Caller): Promise<SendResult> {
    const started = await this.startTurn(params, 'progress', caller);
    const historyLength = params.configuration?.historyLength;
    if (started.kind === 'existing') return { kind: 'task', task: taskView(started.task, { historyLength }) };
    const { live } = started;
    if (params.configuration?.blocking === false) {
      live.expose();
      const view = taskView(live.task, { historyLength });
      await this.ensureVisible(live);
      return { kind: 'task', task: view };
    }
    const outcome = await this.waitFor(live.waitTurnEnd(), this.opts.settings.blockingTimeout * 1000);
    if (outcome?.kind === 'message') return outcome;
    // A result the store could not keep is not acknowledged.
    if (outcome && live.unstored) throw a2aError('unavailable', 'the task ended but the task store could not record it');
    // The whole task, as stored: its JSON is the reply (no copy, no second serialization).
    if (outcome && historyLength === undefined && live.storedJson !== undefined) {
      return { kind: 'task', task: live.task, json: live.storedJson };
    }
    // Timed out (outcome undefined): the task is returned as it stands and keeps running.
    live.expose();
    const view = taskView(live.task, { historyLength });
    await this.ensureVisible(live);
    return { kind: 'task', task: view };
  }

  /**
   * Accepts a message: a new task, a follow-up on a paused one, or (same messageId again) the
   * task it already produced. The handler starts on the next microtask.
   */
  async startTurn(params: MessageSendParams, mode: PersistMode, caller?: Caller): Promise<StartedTurn> {
    this.assertReady();
    if (this.draining) throw a2aError('unavailable', 'the server is shutting down; try again shortly (or on another replica)');
    const message = params.message;
    const owner = caller?.principal.id;
    const scope = ownedScope(owner, message.taskId ?? message.contextId ?? '');
    const knownTaskId = await this.taskIdForMessage(scope, message.messageId);
    if (message.taskId) return this.continueTask(message.taskId, params, mode, { knownTaskId, scope, caller });
    if (knownTaskId) {
      const task = await this.findTask(knownTaskId, owner);
      if (task) return { kind: 'existing', task };
    }
    const taskId = newId();
    const contextId = message.contextId ?? newId();
    const stored: Message = { ...message, taskId, contextId };
    const task: Task = {
      kind: 'task',
      id: taskId,
      contextId,
      status: { state: 'submitted', timestamp: isoAt(Date.now()) },
      history: [stored],
      metadata: { stateTransitions: [] },
    };
    const live = new LiveTask(task, stored, { firstTurn: true, mode, caller });
    if (params.configuration?.pushNotificationConfig) await this.registerInlinePush(taskId, params);
    // A new id is free by construction; with replicas the lease tells the others it is taken.
    await this.claim(taskId);
    this.admit(live, scope, message.messageId);
    // A non-blocking send hands the task id out before the handler runs: the task exists from
    // now on, and a direct reply can no longer replace it (it completes it instead).
    if (mode === 'progress' && params.configuration?.blocking === false) live.expose();
    this.startActor(live, undefined);
    if (mode === 'stream') live.initialSnapshot = taskView(task);
    live.actor.send({ type: 'START' });
    return { kind: 'live', live };
  }

  private async continueTask(
    taskId: string,
    params: MessageSendParams,
    mode: PersistMode,
    { knownTaskId, scope, caller }: { knownTaskId: string | undefined; scope: string; caller: Caller | undefined },
  ): Promise<StartedTurn> {
    const message = params.message;
    const owner = caller?.principal.id;
    const found = await this.findTask(taskId, owner);
    if (!found) throw a2aError('taskNotFound', shown(taskId));
    if (message.contextId && message.contextId !== found.contextId) throw a2aError('contextMismatch');
    if (knownTaskId === taskId) return { kind: 'existing', task: found };
    this.assertAcceptsMessages(found);
    if (this.live.has(taskId)) throw a2aError('taskNotAcceptingMessages', 'task is working');
    // Exactly one replica continues a paused task: the one that takes its lease.
    if (!(await this.claim(taskId))) throw a2aError('taskNotAcceptingMessages', TASK_ELSEWHERE);
    let task: Task;
    try {
      // Read again under the lease: another replica may have continued it meanwhile.
      const fresh = await this.opts.store.getTask(taskId, owner);
      if (!fresh) throw a2aError('taskNotFound', shown(taskId));
      this.assertAcceptsMessages(fresh);
      if (this.live.has(taskId)) throw a2aError('taskNotAcceptingMessages', 'task is working');
      await this.registerInlinePush(taskId, params);
      if (this.live.has(taskId)) throw a2aError('taskNotAcceptingMessages', 'task is working');
      task = fresh;
    } catch (err) {
      await this.unclaim(taskId);
      throw err;
    }
    const state = task.status.state;
    const stored: Message = { ...message, taskId, contextId: task.contextId };
    (task.history ??= []).push(stored);
    const live = new LiveTask(task, stored, { firstTurn: false, mode, caller });
    live.exposed = true;
    this.admit(live, scope, message.messageId);
    this.startActor(live, state);
    // A streaming follow-up shows the task as its message found it, then the turn's events.
    if (mode === 'stream') live.initialSnapshot = taskView(task);
    live.actor.send({ type: 'FOLLOW_UP' });
    return { kind: 'live', live };
  }

  /**
   * The lease that makes this replica the one running a task. One process needs none: its
   * live-task map already says which tasks run (and costs no round trip per task).
   */
  private async claim(taskId: string): Promise<boolean> {
    if (!this.clustered) return true;
    // A turn that just ended here gives its lease up first (its webhooks may still be going).
    await this.handOvers.get(taskId);
    // The replica that ran the last turn may hold the lease a moment longer for the same reason.
    const giveUpAt = Date.now() + LEASE_WAIT_MS;
    for (;;) {
      if (await this.coordinator.acquire(taskId)) return true;
      if (Date.now() >= giveUpAt) return false;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  private unclaim(taskId: string): Promise<void> {
    return this.clustered ? this.coordinator.release(taskId) : Promise.resolve();
  }

  /** Only a task paused in input-required or auth-required takes a message (spec rules 1 and 2). */
  private assertAcceptsMessages(task: Task): void {
    const state = task.status.state;
    if (isTerminalState(state)) throw a2aError('taskTerminal', `task is ${state}`);
    if (!isInterruptedState(state)) throw a2aError('taskNotAcceptingMessages', `task is ${state}`);
  }

  private admit(live: LiveTask, scope: string, messageId: string): void {
    const key = `${scope}\u0000${messageId}`;
    this.live.set(live.id, live);
    this.liveMessageKeys.set(key, live.id);
    // Recorded with the task's first write (a task that is never written, replaced by a direct
    // reply, leaves no record); until then the in-memory key answers.
    live.messageKey = { scope, messageId };
    void live.settled.then(() => this.liveMessageKeys.delete(key));
  }

  private async taskIdForMessage(scope: string, messageId: string): Promise<string | undefined> {
    return this.liveMessageKeys.get(`${scope}\u0000${messageId}`) ?? (await this.opts.store.findTaskIdByMessage(scope, messageId));
  }

  private async registerInlinePush(taskId: string, params: MessageSendParams): Promise<void> {
    const config = params.configuration?.pushNotificationConfig;
    if (config && this.inlinePushRegistrar) await this.inlinePushRegistrar(taskId, config);
  }

  private startActor(live: LiveTask, restoreState: TaskState | undefined): void {
    // Event numbers continue where the task's last turn left them, whatever the log forgot.
    this.opts.events.open(live.id, { afterSeq: eventSeqOf(live.task), watched: live.mode === 'stream' });
    const input = { taskId: live.id };
    const inspect = this.opts.inspect;
    live.actor = createActor(this.machine, {
      input,
      ...(restoreState ? { snapshot: this.machine.resolveState({ value: restoreState, context: input }) } : {}),
      ...(inspect ? { inspect } : {}),
    });
    this.runningActors++;
    live.actor.start();
  }

  // ---------------------------------------------------------------- the running turn

  private async runTurn(taskId: string): Promise<void> {
    const live = this.live.get(taskId);
    if (!live || live.closed) return;
    const context = createAgentContext(live, this.driver);
    let settled: 'AGENT_DONE' | 'AGENT_FAILED' = 'AGENT_DONE';
    try {
      await this.opts.agent.handler(context);
    } catch (err) {
      settled = 'AGENT_FAILED';
      if (!live.cancelRequested) {
        this.opts.logger.error('agent.handler_failed', { taskId, ...errorFields(err) });
        live.pendingMessage = agentMessage(HANDLER_FAILED, live.id, live.task.contextId);
      }
    }
    // After a terminal call the machine has already left `working`: nothing to report.
    if (live.accepts(settled)) live.actor.send({ type: settled });
  }

  private agentEvent(live: LiveTask, type: TaskMachineEventType, effect?: () => void): boolean {
    if (!live.accepts(type)) return false;
    live.expose();
    effect?.();
    live.actor.send({ type });
    return true;
  }

  private addArtifact(live: LiveTask, chunk: ArtifactChunk, defaultId: () => string): void {
    const artifact = {
      artifactId: chunk.artifactId ?? defaultId(),
      parts: chunk.parts,
      ...(chunk.name !== undefined ? { name: chunk.name } : {}),
      ...(chunk.description !== undefined ? { description: chunk.description } : {}),
      ...(chunk.metadata !== undefined ? { metadata: chunk.metadata } : {}),
    };
    applyArtifactChunk(live.task, artifact, chunk.append === true);
    this.appendEvent(live, {
      kind: 'artifact-update',
      taskId: live.id,
      contextId: live.task.contextId,
      artifact,
      ...(chunk.append !== undefined ? { append: chunk.append } : {}),
      ...(chunk.lastChunk !== undefined ? { lastChunk: chunk.lastChunk } : {}),
    });
  }

  private reply(live: LiveTask, message: Message): void {
    if (live.closed || live.ending) return;
    if (!live.firstTurn || live.exposed) {
      // The task is already known to the client: the reply completes it.
      this.agentEvent(live, 'COMPLETE', () => {
        live.pendingMessage = message;
      });
      return;
    }
    // A direct reply replaces the task: it was never exposed, so nothing else saw it.
    const { taskId: _t, ...direct } = message;
    live.ending = true;
    this.release(live);
    this.opts.events.close(live.id, { discard: true });
    live.finish({ kind: 'message', message: direct });
  }

  private onStateEntered(taskId: string, state: TaskState): void {
    const live = this.live.get(taskId);
    if (!live) return;
    const timestamp = this.nextLiveTimestamp(live);
    const message = live.pendingMessage;
    live.pendingMessage = undefined;
    live.task.status = message ? { state, timestamp, message } : { state, timestamp };
    if (message) (live.task.history ??= []).push(message);
    this.transitionsOf(live.task).push({ state, timestamp });
    if (state === 'submitted') return;
    if (isTerminalState(state) || isInterruptedState(state)) {
      // The turn's final event waits for the store (endTurn): nobody is told of an end that a
      // crash could still lose. After the machine has finished this transition (queueMicrotask
      // would cost an AsyncResource per task).
      void Promise.resolve(live)
        .then((l) => this.endTurn(l))
        .catch((err: unknown) => this.turnBroke(live.id, err));
      return;
    }
    this.publishStatus(live);
    this.scheduleFlush(live);
  }

  private onStatusUpdated(taskId: string): void {
    const live = this.live.get(taskId);
    if (!live) return;
    const message = live.pendingMessage;
    live.pendingMessage = undefined;
    const timestamp = this.nextLiveTimestamp(live);
    live.task.status = message ? { state: 'working', timestamp, message } : { state: 'working', timestamp };
    this.publishStatus(live);
    this.scheduleFlush(live);
  }

  /** The next status timestamp of a running task (its last one is kept as a number, not parsed again). */
  private nextLiveTimestamp(live: LiveTask): string {
    live.statusMs = nextStatusMs(live.statusMs);
    return isoAt(live.statusMs);
  }

  /** A status event to subscribers and, once the task is exposed, to transition listeners (push). */
  private publishStatus(live: LiveTask): void {
    this.appendEvent(live, statusEvent(live.task));
    if (this.transitionListeners.size === 0) return;
    const copy = taskView(live.task);
    live.whenExposed(() => {
      for (const listener of this.transitionListeners) {
        try {
          listener(copy);
        } catch (err) {
          this.opts.logger.error('runtime.transition_listener_failed', { taskId: live.id, ...errorFields(err) });
        }
      }
    });
  }

  /** Logs an event and stamps its number on the task, so every snapshot says what it reflects. */
  private appendEvent(live: LiveTask, event: StreamEvent): void {
    const seq = this.opts.events.append(live.id, event);
    (live.task.metadata ??= {})[EVENT_SEQ_KEY] = seq;
  }

  private transitionsOf(task: Task): { state: TaskState; timestamp: string }[] {
    const metadata = (task.metadata ??= {});
    const existing = metadata.stateTransitions;
    if (Array.isArray(existing)) return existing as { state: TaskState; timestamp: string }[];
    const fresh: { state: TaskState; timestamp: string }[] = [];
    metadata.stateTransitions = fresh;
    return fresh;
  }

  // ---------------------------------------------------------------- persistence

  /**
   * Blocking sends persist progress in coalesced writes so polling clients see it (rule 4): a
   * task marks itself dirty and one shared ticker (running only while some task is dirty)
   * writes every dirty task each SERVICE_PROGRESS_FLUSH_INTERVAL. No timer per task.
   */
  private scheduleFlush(live: LiveTask): void {
    if (live.mode === 'stream' || live.flushPending) return;
    live.flushPending = true;
    live.whenExposed(() => {
      if (live.ending || live.closed) return;
      this.dirty.add(live);
      if (!this.flushTicker) {
        this.flushTicker = setInterval(() => this.flushDirty(), this.opts.settings.progressFlushInterval * 1000);
        this.flushTicker.unref();
      }
    });
  }

  private flushDirty(): void {
    for (const live of this.dirty) {
      live.flushPending = false;
      if (!live.ending && !live.closed) void this.write(live, taskView(live.task), 'store.progress_write_failed');
    }
    const idle = this.dirty.size === 0;
    this.dirty.clear();
    if (idle && this.flushTicker) {
      clearInterval(this.flushTicker);
      this.flushTicker = undefined;
    }
  }

  private cancelFlush(live: LiveTask): void {
    live.flushPending = false;
    this.dirty.delete(live);
  }

  /**
   * A task is in the store before its id reaches any client: after a crash it then comes back
   * failed with the restart reason instead of unknown, and with replicas a request that lands
   * on another replica finds it. One write; a streamed task gets no other until its turn ends
   * (spec rule 4). Once the turn is ending, its final write (already queued) is the one.
   */
  ensureVisible(live: LiveTask): Promise<void> {
    if (live.ending) return live.writes;
    live.visibleWrite ??= this.write(live, taskView(live.task), 'store.write_failed').then((stored) => {
      if (stored) return;
      live.visibleWrite = undefined;
      throw a2aError('unavailable', 'the task store is not reachable; the task runs on and is stored when it is back');
    });
    return live.visibleWrite;
  }

  /**
   * Every write of one task goes through one chain: a store with a connection pool could
   * otherwise commit an earlier progress write after the turn's final one.
   */
  private write(live: LiveTask, snapshot: Task, failure: string, json?: string): Promise<boolean> {
    const result = live.writes.then(async () => {
      const key = live.messageKey;
      try {
        // Awaited inside the try: a store that throws at once is a failed write like any other.
        await this.opts.store.saveTask(snapshot, key, json, live.owner);
      } catch (err) {
        this.opts.logger.error(failure, { taskId: live.id, state: snapshot.status.state, ...errorFields(err) });
        return false;
      }
      if (live.messageKey === key) live.messageKey = undefined;
      return true;
    });
    live.writes = result.then(() => undefined);
    return result;
  }

  /** The turn's final write, tried again while the store is away (SERVICE_STORE_RETRY_WINDOW). */
  private async writeFinal(live: LiveTask): Promise<boolean> {
    const giveUpAt = Date.now() + this.opts.settings.storeRetryWindow * 1000;
    // The task no longer changes (the turn is over): one serialization serves every attempt
    // and, once stored, the reply. A task that cannot be serialized is failed, not lost.
    const json = serializeOrFail(live.task, this.opts.logger);
    for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
      if (await this.write(live, live.task, 'store.write_failed', json)) {
        live.storedJson = json;
        return true;
      }
      if (this.closed || Date.now() + delay > giveUpAt) return false;
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  /** The turn ended (paused or terminal): one write of the full task, then the actor leaves. */
  private async endTurn(live: LiveTask): Promise<void> {
    if (live.ending) return;
    live.ending = true;
    try {
      this.cancelFlush(live);
      live.expose();
      // The final event's number goes into the stored task, so the two always agree.
      (live.task.metadata ??= {})[EVENT_SEQ_KEY] = this.opts.events.lastSeq(live.id) + 1;
      live.unstored = !(await this.writeFinal(live));
      if (live.unstored) this.opts.logger.error('store.final_write_lost', { taskId: live.id, state: live.task.status.state });
      this.publishStatus(live);
    } catch (err) {
      live.unstored = true;
      this.opts.logger.error('runtime.turn_end_failed', { taskId: live.id, ...errorFields(err) });
    } finally {
      // Whatever broke above, the task leaves memory and everyone waiting for it is answered.
      this.release(live);
      // Paused tasks too: their events stay replayable for a while, and `_eventSeq` numbers the next turn.
      this.opts.events.close(live.id);
      if (this.clustered) this.handOver(live.id);
      live.finish({ kind: 'task' });
    }
  }

  /**
   * Something in the runtime (not the handler) broke during a task's turn: the task fails with
   * a logged reason, and every other task goes on.
   */
  private turnBroke(taskId: string, err: unknown): void {
    this.opts.logger.error('runtime.turn_failed', { taskId, ...errorFields(err) });
    const live = this.live.get(taskId);
    if (!live || live.ending || live.closed) return;
    live.abortTurn();
    if (live.accepts('AGENT_FAILED')) {
      live.pendingMessage = agentMessage(RUNTIME_FAILED, live.id, live.task.contextId);
      live.actor.send({ type: 'AGENT_FAILED' });
      return;
    }
    // The machine has left `working` already: end the turn from where it stands.
    this.markFailed(live.task, RUNTIME_FAILED);
    void this.endTurn(live).catch((e: unknown) => this.opts.logger.error('runtime.turn_end_failed', { taskId, ...errorFields(e) }));
  }

  /** Gives the lease up once the turn's after-effects are done; a next turn here waits for it. */
  private handOver(taskId: string): void {
    const done = (async () => {
      await this.opts.beforeHandOver?.(taskId).catch(() => {});
      // A turn that started here meanwhile keeps the lease (it waited for this hand-over).
      if (!this.live.has(taskId)) await this.unclaim(taskId);
    })()
      .catch((err: unknown) => this.opts.logger.warn('runtime.lease_release_failed', { taskId, ...errorFields(err) }))
      .finally(() => {
        if (this.handOvers.get(taskId) === done) this.handOvers.delete(taskId);
      });
    this.handOvers.set(taskId, done);
  }

  private release(live: LiveTask): void {
    if (live.closed) return;
    live.closed = true;
    this.cancelFlush(live);
    live.actor.stop();
    this.runningActors--;
    if (this.live.get(live.id) === live) this.live.delete(live.id);
  }

  // ---------------------------------------------------------------- reads

  /**
   * The live record when running (never staler than the store), else the stored task. With
   * `owner`, another principal's task is not found, exactly like an unknown one.
   */
  private async findTask(id: string, owner: string | undefined): Promise<Task | undefined> {
    const live = this.live.get(id);
    if (live) {
      if (!visibleTo(live, owner)) return undefined;
      if (!live.ending) return live.task;
      await live.settled;
    }
    return this.opts.store.getTask(id, owner);
  }

  async getTask(id: string, historyLength?: number, owner?: string): Promise<Task> {
    this.assertReady();
    const task = await this.findTask(id, owner);
    if (!task) throw a2aError('taskNotFound', shown(id));
    return taskView(task, { historyLength });
  }

  /** The live task if one runs now (for subscribers). */
  liveTask(id: string): LiveTask | undefined {
    const live = this.live.get(id);
    return live && !live.ending ? live : undefined;
  }

  async listTasks(
    params: ListTasksParams,
    owner?: string,
  ): Promise<{ tasks: Task[]; nextPageToken: string; pageSize: number; totalSize: number }> {
    this.assertReady();
    const page = await this.opts.store.listTasks({
      pageSize: params.pageSize,
      ...(owner !== undefined ? { owner } : {}),
      ...(params.contextId !== undefined ? { contextId: params.contextId } : {}),
      ...(params.status !== undefined ? { status: params.status } : {}),
      ...(params.statusTimestampAfter !== undefined ? { statusTimestampAfter: params.statusTimestampAfter } : {}),
      ...(params.pageToken ? { afterId: decodePageToken(params.pageToken) } : {}),
    });
    const opts = { historyLength: params.historyLength, includeArtifacts: params.includeArtifacts };
    const tasks = page.tasks.map((stored) => {
      const live = this.live.get(stored.id);
      return taskView(live && !live.ending ? live.task : stored, opts);
    });
    return {
      tasks,
      nextPageToken: page.lastId ? encodePageToken(page.lastId) : '',
      pageSize: params.pageSize,
      totalSize: page.totalSize,
    };
  }

  // ---------------------------------------------------------------- cancel

  async cancelTask(id: string, owner?: string): Promise<Task> {
    this.assertReady();
    let live = this.liveTask(id);
    if (live && !visibleTo(live, owner)) throw a2aError('taskNotFound', shown(id));
    if (!live) {
      const task = await this.findTask(id, owner);
      if (!task) throw a2aError('taskNotFound', shown(id));
      const state = task.status.state;
      if (isTerminalState(state)) throw a2aError('taskNotCancelable', `task is ${state}`);
      live = this.liveTask(id);
      if (!live) {
        if (!isInterruptedState(state) || !(await this.claim(id))) return this.cancelElsewhere(task);
        // Paused in the store: wake its machine just to cancel it.
        const fresh = await this.opts.store.getTask(id, owner);
        const last = fresh?.history?.at(-1);
        if (!fresh || !last || !isInterruptedState(fresh.status.state) || this.live.has(id)) {
          await this.unclaim(id);
          return this.cancelTask(id, owner);
        }
        live = new LiveTask(fresh, last, { firstTurn: false, mode: 'progress', owner });
        live.exposed = true;
        this.live.set(id, live);
        this.startActor(live, fresh.status.state);
      }
    }
    live.expose();
    if (live.accepts('CANCEL')) live.actor.send({ type: 'CANCEL' });
    // A cooperative handler settles quickly; give it a short grace so the answer says `canceled`.
    await this.waitFor(live.settled, this.opts.settings.cancelGrace * 1000);
    return taskView(live.task);
  }

  /**
   * The task runs on another replica: ask it to cancel, and wait a short grace for the answer.
   * If that replica is gone, the force-cancel timeout still ends the task: once it has passed
   * with nobody holding the lease, the task is marked canceled here.
   */
  private async cancelElsewhere(task: Task): Promise<Task> {
    await this.coordinator.requestCancel(task.id);
    const settled = (t: Task | undefined) => !t || isTerminalState(t.status.state) || isInterruptedState(t.status.state);
    const graceEnd = Date.now() + this.opts.settings.cancelGrace * 1000;
    let current: Task | undefined = task;
    while (Date.now() < graceEnd) {
      await new Promise((r) => setTimeout(r, 50));
      current = await this.opts.store.getTask(task.id);
      if (settled(current)) return current ? taskView(current) : taskView(task);
    }
    const forceAt = Date.now() + this.opts.settings.cancelForceTimeout * 1000;
    void this.forceCancelOrphan(task.id, forceAt).catch((err) =>
      this.opts.logger.warn('runtime.force_cancel_failed', { taskId: task.id, ...errorFields(err) }),
    );
    return taskView(current ?? task);
  }

  private async forceCancelOrphan(taskId: string, at: number): Promise<void> {
    const timer = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
    await timer(Math.max(0, at - Date.now()));
    if (this.closed || this.live.has(taskId) || (await this.coordinator.isOwned(taskId))) return;
    if (!(await this.coordinator.acquire(taskId))) return;
    try {
      const task = await this.opts.store.getTask(taskId);
      if (!task || isTerminalState(task.status.state)) return;
      const timestamp = nextStatusTimestamp(task);
      task.status = { state: 'canceled', timestamp };
      this.transitionsOf(task).push({ state: 'canceled', timestamp });
      await this.opts.store.saveTask(task);
    } finally {
      await this.coordinator.release(taskId);
    }
  }

  // ---------------------------------------------------------------- helpers

  private assertReady(): void {
    if (!this.ready) throw a2aError('notInitialized');
  }

  /** Resolves with the promise's value, or undefined after `ms`; the timer never outlives it. */
  private waitFor<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), ms);
      const settle = (value: T | undefined): void => {
        clearTimeout(timer);
        resolve(value);
      };
      promise.then(settle, () => settle(undefined));
    });
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * Graceful shutdown: new turns are refused (503); running turns get `graceMs` to end on their
   * own; then they are canceled (the handler's signal fires, the status message says the server
   * stopped), and a handler that ignores that too is ended `canceled` by its machine a moment
   * later, as the force-cancel timer would. So every task is stored terminal or paused, and
   * every stream and blocking send gets the task's real end.
   */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    await this.untilIdle(graceMs);
    for (const live of [...this.live.values()]) {
      if (!live.accepts('CANCEL')) continue;
      live.pendingMessage = agentMessage(STOPPED_BY_SHUTDOWN, live.id, live.task.contextId);
      live.actor.send({ type: 'CANCEL' });
    }
    await this.untilIdle(SHUTDOWN_CANCEL_WAIT_MS);
    // In `cancelling`, the handler's settling ends the task `canceled`: it is not waited for.
    for (const live of [...this.live.values()]) if (live.accepts('AGENT_FAILED')) live.actor.send({ type: 'AGENT_FAILED' });
    // The final writes (retried while the store is away, at most its retry window).
    await this.untilIdle(this.opts.settings.storeRetryWindow * 1000 + SHUTDOWN_CANCEL_WAIT_MS);
  }

  /** Resolves once no task is live here, or after `ms`. */
  private async untilIdle(ms: number): Promise<void> {
    if (this.live.size === 0) return;
    await this.waitFor(Promise.all([...this.live.values()].map((l) => l.settled)), ms);
  }

  /** Stops every actor; running tasks stay `working` in the store and fail at the next start. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.flushTicker) clearInterval(this.flushTicker);
    this.dirty.clear();
    for (const live of [...this.live.values()]) {
      live.abortTurn();
      this.release(live);
      live.finish({ kind: 'task' });
    }
    this.opts.events.dispose();
  }
}

export type { TurnOutcome };
