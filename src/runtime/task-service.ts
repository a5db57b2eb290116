/**
 * TaskService: create, continue, get, list and cancel tasks: the facade the protocol layer
 * calls. Each running task has one XState actor (machines/task.machine.ts) whose actions are the
 * turn's effects (turn-effects.ts); its writes go through one chain (task-writes.ts); which
 * process runs it is task-ownership.ts's business. Paused and terminal tasks are persisted and
 * their actors stopped, so memory holds only work in progress (a task whose handler continues in
 * the background is work in progress: it stays until that work or a cancel ends it).
 */
import type { InspectionEvent, Observer } from 'xstate';
import type { AgentDefinition } from '../agent.js';
import type { Caller } from '../auth/types.js';
import type { Settings } from '../config.js';
import type { Logger } from '../log.js';
import { a2aError, shown } from '../a2a/errors.js';
import { newId } from '../a2a/ids.js';
import type { Message, MessageSendParams, PushNotificationConfig, Task } from '../a2a/schemas.js';
import type { TaskListQuery, TaskPage, TaskStore } from '../store/types.js';
import { isInterruptedState, isTerminalState } from '../../machines/task.machine.js';
import { LocalCoordinator, type Coordinator } from './coordinator.js';
import type { TaskEventLog } from './event-log.js';
import { MessageIndex } from './message-index.js';
import { taskActorStarter, type ActorStarter, type RestoreState } from './task-actors.js';
import { LiveTask, type PersistMode, type TurnOptions, type TurnOutcome } from './live-task.js';
import { NO_STRINGS } from '../a2a/empty.js';
import { LiveTasks } from './live-tasks.js';
import { isoAt } from './status-clock.js';
import { createOwnership, type TaskOwnership } from './task-ownership.js';
import { messageInTask, taskView, type ViewOptions } from './task-views.js';
import { TaskWriter } from './task-writes.js';
import { TurnEffects, type TransitionListener, type TransitionSubscriber } from './turn-effects.js';
import { waitFor } from './wait.js';
import { NO_METRICS, type Metrics } from '../observe/metrics.js';

export interface TaskServiceOptions {
  agent: AgentDefinition;
  store: TaskStore;
  events: TaskEventLog;
  settings: Pick<Settings, 'blockingTimeout' | 'cancelForceTimeout' | 'cancelGrace' | 'progressFlushInterval' | 'storeRetryWindow'>;
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
  /** Where transitions, turns and replays are counted (default: nowhere). */
  metrics?: Metrics;
}

/** Registers a push config given inline with a message, before the task starts. */
export type InlinePushRegistrar = (taskId: string, config: PushNotificationConfig) => Promise<void>;
export type { TransitionListener, TransitionSubscriber };

/**
 * `json`, when present, is the task's JSON text (the finished task, serialized once for store and
 * reply), and `task` the very object it was made from, which no longer changes: a reply may read
 * either.
 */
export type SendResult = { kind: 'task'; task: Task; json?: string } | { kind: 'message'; message: Message };
export type StartedTurn = { kind: 'existing'; task: Task } | { kind: 'live'; live: LiveTask };

const TASK_ELSEWHERE = 'the task is being continued on another replica';
/** Where the actor of a task set aside from the background starts, to take the message. */
const RESTING: RestoreState = { working: 'background' };

/**
 * What the handler learns of the request besides its message. Nothing is built for the common
 * request that activates no extension and accepts any output; the modes are frozen because the
 * handler sees them as they are.
 */
function turnOptionsOf(params: MessageSendParams, extensions: readonly string[]): TurnOptions | undefined {
  const modes = params.configuration?.acceptedOutputModes;
  if (extensions.length === 0 && (modes === undefined || modes.length === 0)) return undefined;
  return { extensions, acceptedOutputModes: modes && modes.length > 0 ? Object.freeze(modes) : NO_STRINGS };
}

/** With auth on (`owner` set), a caller's reads see only tasks it created. */
const visibleTo = (live: LiveTask, owner: string | undefined): boolean => owner === undefined || live.owner === owner;

export class TaskService {
  private readonly live = new LiveTasks();
  private readonly messages: MessageIndex;
  private readonly transitionListeners = new Set<TransitionSubscriber>();
  private inlinePushRegistrar: InlinePushRegistrar | undefined;
  private readonly startActor: ActorStarter;
  private readonly writer: TaskWriter;
  private readonly ownership: TaskOwnership;
  private readonly effects: TurnEffects;
  private initialized = false;
  private closed = false;
  /** Shutting down: running turns may end, new ones are refused (503). */
  private draining = false;

  readonly metrics: Metrics;

  constructor(private readonly opts: TaskServiceOptions) {
    this.metrics = opts.metrics ?? NO_METRICS;
    const coordinator = opts.coordinator ?? new LocalCoordinator();
    this.messages = new MessageIndex(opts.store);
    this.ownership = createOwnership({
      coordinator,
      store: opts.store,
      logger: opts.logger,
      settings: opts.settings,
      leaseTtl: opts.leaseTtl ?? 15,
      isLive: (taskId) => this.live.has(taskId),
      beforeHandOver: opts.beforeHandOver,
    });
    this.writer = new TaskWriter(opts.store, opts.logger, opts.settings, this.ownership);
    const effects = new TurnEffects({
      agent: opts.agent,
      live: this.live,
      events: opts.events,
      writer: this.writer,
      ownership: this.ownership,
      logger: opts.logger,
      transitionListeners: this.transitionListeners,
      metrics: this.metrics,
    });
    this.effects = effects;
    this.startActor = taskActorStarter({
      effects,
      live: this.live,
      events: opts.events,
      cancelForceTimeout: opts.settings.cancelForceTimeout,
      inspect: opts.inspect,
    });
    // A cancel that landed on another replica reaches the handler running here.
    coordinator.onCancelRequest((taskId) => {
      const live = this.live.running(taskId);
      if (live?.accepts('CANCEL')) live.actor.send({ type: 'CANCEL' });
    });
  }

  /**
   * Start-up recovery, then (with several replicas) the same sweep every half lease: work whose
   * replica is gone (nobody holds its lease) is marked failed; paused tasks stay resumable.
   */
  async init(): Promise<{ recovered: number }> {
    const recovered = await this.ownership.failOrphans();
    this.initialized = true;
    this.ownership.start();
    return { recovered };
  }

  get ready(): boolean {
    return this.initialized && !this.closed;
  }

  /**
   * `listener` gets a copy of the task at each transition once it is exposed; `handledWithoutCopy`
   * (see TransitionSubscriber) spares the copy when the listener has nothing to do.
   */
  onTransition(listener: TransitionListener, opts: { handledWithoutCopy?: (task: Task) => boolean } = {}): () => void {
    const subscriber: TransitionSubscriber = { notify: listener, handledWithoutCopy: opts.handledWithoutCopy };
    this.transitionListeners.add(subscriber);
    return () => this.transitionListeners.delete(subscriber);
  }

  setInlinePushRegistrar(registrar: InlinePushRegistrar): void {
    this.inlinePushRegistrar = registrar;
  }

  get events(): TaskEventLog {
    return this.opts.events;
  }

  /** Counters for leak checks and metrics. */
  stats(): { liveTasks: number; runningActors: number; pendingFlushes: number } {
    return { liveTasks: this.live.size, runningActors: this.live.runningActors, pendingFlushes: this.writer.pendingFlushes };
  }

  /** The write that makes a running task findable before its id is handed out (task-writes.ts). */
  ensureVisible(live: LiveTask): Promise<void> {
    return this.writer.ensureVisible(live);
  }

  // ---------------------------------------------------------------- message/send

  /** `extensions`: the ones the request activated (`ctx.extensions`). */
  async sendMessage(params: MessageSendParams, caller?: Caller, extensions: readonly string[] = NO_STRINGS): Promise<SendResult> {
    const started = await this.startTurn(params, 'progress', caller, extensions);
    const historyLength = params.configuration?.historyLength;
    if (started.kind === 'existing') return { kind: 'task', task: taskView(started.task, { historyLength }) };
    const { live } = started;
    if (params.configuration?.blocking === false) {
      live.expose();
      const view = taskView(live.task, { historyLength });
      await this.writer.ensureVisible(live);
      return { kind: 'task', task: view };
    }
    const outcome = await live.waitTurnEndWithin(this.opts.settings.blockingTimeout * 1000);
    if (outcome?.kind === 'message') return outcome;
    // A result the store could not keep is not acknowledged.
    if (outcome && live.unstored) throw a2aError('unavailable', 'the task ended but the task store could not record it');
    // The whole task, as stored: its JSON is the reply (no copy, no second serialization).
    if (outcome && historyLength === undefined && live.storedJson !== undefined) {
      return { kind: 'task', task: live.task, json: live.storedJson };
    }
    // Timed out (outcome undefined), or the turn ended with the task working in the background
    // (stored at that end): the task is returned as it stands and keeps running.
    live.expose();
    const view = taskView(live.task, { historyLength });
    await this.writer.ensureVisible(live);
    return { kind: 'task', task: view };
  }

  /**
   * Accepts a message: a new task, a follow-up on a paused one, or (same messageId again) the
   * task it already produced. The handler starts on the next microtask. Not async: the store's
   * answer for the message id is the only wait of a new task, and one handler on it costs less
   * than an async frame and its await (about 250 bytes a task).
   */
  startTurn(
    params: MessageSendParams,
    mode: PersistMode,
    caller?: Caller,
    extensions: readonly string[] = NO_STRINGS,
  ): Promise<StartedTurn> {
    let scope: string;
    let known: Promise<string | undefined>;
    try {
      this.assertReady();
      if (this.draining) throw a2aError('unavailable', 'the server is shutting down; try again shortly (or on another replica)');
      scope = this.messages.scopeOf(params.message, caller?.principal.id);
      known = this.messages.taskIdFor(scope, params.message.messageId);
    } catch (err) {
      // As from an async function: a refusal is a rejected promise, never a throw.
      return Promise.reject(err);
    }
    return known.then((knownTaskId) => this.turnFor(params, mode, caller, scope, turnOptionsOf(params, extensions), knownTaskId));
  }

  /** The turn the message starts, once the store has said whether its id is known. */
  private turnFor(
    params: MessageSendParams,
    mode: PersistMode,
    caller: Caller | undefined,
    scope: string,
    turn: TurnOptions | undefined,
    knownTaskId: string | undefined,
  ): StartedTurn | Promise<StartedTurn> {
    const taskId = params.message.taskId;
    if (taskId) return this.continueTask(taskId, params, mode, { knownTaskId, scope, caller, turn });
    if (knownTaskId) return this.existingOrNew(knownTaskId, params, mode, caller, scope, turn);
    return this.newTask(params, mode, caller, scope, turn);
  }

  /** The message id is known in its scope: the task it produced, if that can still be found. */
  private async existingOrNew(
    knownTaskId: string,
    params: MessageSendParams,
    mode: PersistMode,
    caller: Caller | undefined,
    scope: string,
    turn: TurnOptions | undefined,
  ): Promise<StartedTurn> {
    const task = await this.findTask(knownTaskId, caller?.principal.id);
    if (task) return { kind: 'existing', task };
    return this.newTask(params, mode, caller, scope, turn);
  }

  /** A new task; a push config given inline is registered before it starts. */
  private newTask(
    params: MessageSendParams,
    mode: PersistMode,
    caller: Caller | undefined,
    scope: string,
    turn: TurnOptions | undefined,
  ): StartedTurn | Promise<StartedTurn> {
    const message = params.message;
    const taskId = newId();
    const contextId = message.contextId ?? newId();
    const stored = messageInTask(message, taskId, contextId);
    const task: Task = {
      kind: 'task',
      id: taskId,
      contextId,
      status: { state: 'submitted', timestamp: isoAt(Date.now()) },
      history: [stored],
      metadata: { stateTransitions: [] },
    };
    const live = new LiveTask(task, stored, { firstTurn: true, mode, caller, turn });
    if (!params.configuration?.pushNotificationConfig) return this.startNewTask(live, params, scope);
    return this.registerInlinePush(taskId, params).then(() => this.startNewTask(live, params, scope));
  }

  private startNewTask(live: LiveTask, params: MessageSendParams, scope: string): StartedTurn {
    // A new id is free by construction; with replicas its lease is taken once others can find it.
    this.ownership.claimNew(live.id);
    this.admit(live, scope, params.message.messageId);
    // A non-blocking send hands the task id out before the handler runs: the task exists from
    // now on, and a direct reply can no longer replace it (it completes it instead).
    if (live.mode === 'progress' && params.configuration?.blocking === false) live.expose();
    this.startActor(live, undefined);
    if (live.mode === 'stream') live.initialSnapshot = taskView(live.task);
    live.actor.send({ type: 'START' });
    return { kind: 'live', live };
  }

  private async continueTask(
    taskId: string,
    params: MessageSendParams,
    mode: PersistMode,
    {
      knownTaskId,
      scope,
      caller,
      turn,
    }: { knownTaskId: string | undefined; scope: string; caller: Caller | undefined; turn: TurnOptions | undefined },
  ): Promise<StartedTurn> {
    const message = params.message;
    const owner = caller?.principal.id;
    const found = await this.findTask(taskId, owner);
    if (!found) throw a2aError('taskNotFound', shown(taskId));
    if (message.contextId && message.contextId !== found.contextId) throw a2aError('contextMismatch');
    if (knownTaskId === taskId) return { kind: 'existing', task: found };
    // A task resting in the background takes a message as a paused one does: its background
    // work stops, and it is continued from the store like a paused task.
    const resting = this.live.running(taskId);
    const resumed = resting?.inBackground === true && (await this.effects.setAside(resting));
    if (!resumed) this.assertAcceptsMessages(found);
    if (this.live.has(taskId)) throw a2aError('taskNotAcceptingMessages', 'task is working');
    // Exactly one replica continues a paused task: the one that takes its lease.
    if (!(await this.ownership.claim(taskId))) throw a2aError('taskNotAcceptingMessages', TASK_ELSEWHERE);
    let task: Task;
    try {
      // Read again under the lease: another replica may have continued it meanwhile.
      const fresh = await this.opts.store.getTask(taskId, owner);
      if (!fresh) throw a2aError('taskNotFound', shown(taskId));
      if (!resumed || fresh.status.state !== 'working') this.assertAcceptsMessages(fresh);
      if (this.live.has(taskId)) throw a2aError('taskNotAcceptingMessages', 'task is working');
      await this.registerInlinePush(taskId, params);
      if (this.live.has(taskId)) throw a2aError('taskNotAcceptingMessages', 'task is working');
      task = fresh;
    } catch (err) {
      await this.ownership.unclaim(taskId);
      throw err;
    }
    const state = task.status.state;
    const stored: Message = { ...message, taskId, contextId: task.contextId };
    (task.history ??= []).push(stored);
    const live = new LiveTask(task, stored, { firstTurn: false, mode, caller, turn });
    live.exposed = true;
    this.admit(live, scope, message.messageId);
    this.startActor(live, resumed ? RESTING : state);
    // A streaming follow-up shows the task as its message found it, then the turn's events.
    if (mode === 'stream') live.initialSnapshot = taskView(task);
    live.actor.send({ type: 'FOLLOW_UP' });
    return { kind: 'live', live };
  }

  /** Messages are taken by paused tasks, and by working ones resting in the background (see continueTask). */
  private assertAcceptsMessages(task: Task): void {
    const state = task.status.state;
    if (isTerminalState(state)) throw a2aError('taskTerminal', `task is ${state}`);
    if (!isInterruptedState(state)) throw a2aError('taskNotAcceptingMessages', `task is ${state}`);
  }

  private admit(live: LiveTask, scope: string, messageId: string): void {
    this.live.add(live);
    this.messages.remember(live, scope, messageId);
  }

  private async registerInlinePush(taskId: string, params: MessageSendParams): Promise<void> {
    const config = params.configuration?.pushNotificationConfig;
    if (config && this.inlinePushRegistrar) await this.inlinePushRegistrar(taskId, config);
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
      if (live.phase === 'running') return live.task;
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
    return this.live.running(id);
  }

  /** One page of tasks, newest first; a running task shows as it is now, not as last stored. */
  async listTasks(query: TaskListQuery, view: ViewOptions = {}): Promise<TaskPage> {
    this.assertReady();
    const page = await this.opts.store.listTasks(query);
    const tasks = page.tasks.map((stored) => {
      const live = this.live.get(stored.id);
      return taskView(live?.phase === 'running' ? live.task : stored, view);
    });
    return { ...page, tasks };
  }

  // ---------------------------------------------------------------- cancel

  async cancelTask(id: string, owner?: string): Promise<Task> {
    this.assertReady();
    let live = this.live.running(id);
    if (live && !visibleTo(live, owner)) throw a2aError('taskNotFound', shown(id));
    if (!live) {
      const task = await this.findTask(id, owner);
      if (!task) throw a2aError('taskNotFound', shown(id));
      const state = task.status.state;
      if (isTerminalState(state)) throw a2aError('taskNotCancelable', `task is ${state}`);
      live = this.live.running(id);
      if (!live) {
        if (!isInterruptedState(state) || !(await this.ownership.claim(id))) return this.ownership.cancelElsewhere(task);
        // Paused in the store: wake its machine just to cancel it.
        const fresh = await this.opts.store.getTask(id, owner);
        const last = fresh?.history?.at(-1);
        if (!fresh || !last || !isInterruptedState(fresh.status.state) || this.live.has(id)) {
          await this.ownership.unclaim(id);
          return this.cancelTask(id, owner);
        }
        live = new LiveTask(fresh, last, { firstTurn: false, mode: 'progress', owner });
        live.exposed = true;
        this.live.add(live);
        this.startActor(live, fresh.status.state);
      }
    }
    live.expose();
    if (live.accepts('CANCEL')) live.actor.send({ type: 'CANCEL' });
    // A cooperative handler settles quickly; give it a short grace so the answer says `canceled`.
    await waitFor(live.settled, this.opts.settings.cancelGrace * 1000);
    return taskView(live.task);
  }

  // ---------------------------------------------------------------- lifecycle

  private assertReady(): void {
    if (!this.ready) throw a2aError('notInitialized');
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
    await this.live.drain(graceMs, this.opts.settings.storeRetryWindow * 1000);
  }

  /** Stops every actor; running tasks stay `working` in the store and fail at the next start. */
  async close(): Promise<void> {
    this.closed = true;
    this.ownership.close();
    this.writer.close();
    for (const live of this.live.all()) {
      live.abortTurn();
      this.effects.release(live);
      live.finish({ kind: 'task' });
    }
    this.opts.events.dispose();
  }
}

export type { TurnOutcome };
