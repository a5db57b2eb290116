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
import type { Message, MessageSendParams, Task } from '../a2a/schemas.js';
import type { TaskListQuery, TaskPage, TaskStore } from '../store/types.js';
import { isInterruptedState, isTerminalState } from '../../machines/task.machine.js';
import { LocalCoordinator, type Coordinator } from './coordinator.js';
import type { TaskEventLog } from './event-log.js';
import { MessageIndex } from './message-index.js';
import { taskActorStarter, type ActorStarter } from './task-actors.js';
import { LiveTask, type PersistMode, type TurnOutcome } from './live-task.js';
import { NO_STRINGS } from '../a2a/empty.js';
import { LiveTasks } from './live-tasks.js';
import { createOwnership, type TaskOwnership } from './task-ownership.js';
import { taskView, type ViewOptions } from './task-views.js';
import { TaskWriter } from './task-writes.js';
import { TurnEffects, type TransitionListener, type TransitionSubscriber } from './turn-effects.js';
import { TurnStarts, type InlinePushRegistrar, type StartedTurn } from './turn-starts.js';
import { waitFor } from './wait.js';
import { NO_METRICS, type Metrics } from '../observe/metrics.js';
import type { SizeLimits } from './size-limits.js';

export interface TaskServiceOptions {
  agent: AgentDefinition;
  store: TaskStore;
  events: TaskEventLog;
  settings: Pick<Settings, 'blockingTimeout' | 'cancelForceTimeout' | 'cancelGrace' | 'progressFlushInterval' | 'storeRetryWindow'> &
    Partial<Pick<Settings, 'maxLiveTasksPerCaller' | 'turnTimeout'>>;
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
  /** Limits on what an agent's output may add to a task (size-limits.ts); default none. */
  sizeLimits?: SizeLimits;
}

export type { InlinePushRegistrar, StartedTurn, TransitionListener, TransitionSubscriber };

/**
 * `json`, when present, is the task's JSON text (the finished task, serialized once for store and
 * reply), and `task` the very object it was made from, which no longer changes: a reply may read
 * either.
 */
export type SendResult = { kind: 'task'; task: Task; json?: string } | { kind: 'message'; message: Message };

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
  private readonly starts: TurnStarts;
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
      ...(opts.sizeLimits ? { sizeLimits: opts.sizeLimits } : {}),
      turnTimeout: opts.settings.turnTimeout,
    });
    this.effects = effects;
    this.startActor = taskActorStarter({
      effects,
      live: this.live,
      events: opts.events,
      cancelForceTimeout: opts.settings.cancelForceTimeout,
      inspect: opts.inspect,
    });
    this.starts = new TurnStarts({
      live: this.live,
      messages: this.messages,
      store: opts.store,
      ownership: this.ownership,
      ends: effects.ends,
      startActor: this.startActor,
      findTask: (id, owner) => this.findTask(id, owner),
      assertOpen: () => {
        this.assertReady();
        if (this.draining) throw a2aError('unavailable', 'the server is shutting down; try again shortly (or on another replica)');
      },
      inlinePushRegistrar: () => this.inlinePushRegistrar,
      maxLivePerCaller: opts.settings.maxLiveTasksPerCaller ?? Infinity,
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
   * (see TransitionSubscriber) spares the copy when the listener has nothing to do, and a turn's
   * answer waits for what `recorded` returns.
   */
  onTransition(listener: TransitionListener, opts: Pick<TransitionSubscriber, 'handledWithoutCopy' | 'recorded'> = {}): () => void {
    const subscriber: TransitionSubscriber = { notify: listener, handledWithoutCopy: opts.handledWithoutCopy, recorded: opts.recorded };
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
  stats(): { liveTasks: number; runningActors: number; pendingFlushes: number; turnDeadlines: number } {
    return {
      liveTasks: this.live.size,
      runningActors: this.live.runningActors,
      pendingFlushes: this.writer.pendingFlushes,
      turnDeadlines: this.effects.limit?.pending ?? 0,
    };
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
      live.run.expose();
      const view = taskView(live.task, { historyLength });
      await this.writer.ensureVisible(live);
      return { kind: 'task', task: view };
    }
    const outcome = await live.waitTurnEndWithin(this.opts.settings.blockingTimeout * 1000);
    if (outcome?.kind === 'message') return outcome;
    // A result the store could not keep is not acknowledged.
    if (outcome?.unstored) throw a2aError('unavailable', 'the task ended but the task store could not record it');
    // The whole task, as stored: its JSON is the reply (no copy, no second serialization).
    const json = live.run.storedJson;
    if (outcome && historyLength === undefined && json !== undefined) return { kind: 'task', task: live.task, json };
    // Timed out (outcome undefined), or the turn ended with the task working in the background
    // (stored at that end): the task is returned as it stands and keeps running.
    live.run.expose();
    const view = taskView(live.task, { historyLength });
    await this.writer.ensureVisible(live);
    return { kind: 'task', task: view };
  }

  /**
   * Accepts a message: a new task, a follow-up on a paused one, or (same messageId again) the
   * task it already produced (turn-starts.ts).
   */
  startTurn(
    params: MessageSendParams,
    mode: PersistMode,
    caller?: Caller,
    extensions: readonly string[] = NO_STRINGS,
  ): Promise<StartedTurn> {
    return this.starts.acceptMessage(params, mode, caller, extensions);
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
      if (live.run.isRunning) return live.task;
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

  /**
   * One page of tasks, newest first; a running task shows as it is now, not as last stored. The
   * store reads only the parts the view returns, and stops the page at `query.maxBytes`.
   */
  async listTasks(query: TaskListQuery): Promise<TaskPage> {
    this.assertReady();
    const page = await this.opts.store.listTasks(query);
    const view: ViewOptions = { historyLength: query.historyLength };
    if (query.includeArtifacts !== undefined) view.includeArtifacts = query.includeArtifacts;
    const tasks = page.tasks.map((stored) => {
      const live = this.live.get(stored.id);
      return taskView(live?.run.isRunning === true ? live.task : stored, view);
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
        // Not a first turn: its run starts exposed.
        live = new LiveTask(fresh, last, { firstTurn: false, mode: 'progress', owner });
        this.live.add(live);
        this.startActor(live, fresh.status.state);
      }
    }
    live.run.expose();
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
      live.run.stop();
      this.effects.ends.release(live);
      live.finish({ kind: 'task' });
    }
    this.opts.events.dispose();
  }
}

export type { TurnOutcome };
