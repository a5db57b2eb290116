/**
 * How a message starts a turn (spec "message/send"): a new task, a follow-up on a paused one or
 * on one resting in the background, or (same messageId again) the task it already produced.
 * The new task's run starts hidden; a task continued from the store starts exposed (its id is
 * known already).
 */
import type { Caller } from '../auth/types.js';
import { a2aError, shown } from '../a2a/errors.js';
import { NO_STRINGS } from '../a2a/empty.js';
import { newId } from '../a2a/ids.js';
import type { Message, MessageSendParams, PushNotificationConfig, Task } from '../a2a/schemas.js';
import type { TaskStore } from '../store/types.js';
import { isInterruptedState, isTerminalState } from '../../machines/task.machine.js';
import { promiseOf } from '../promise-of.js';
import { tooManyLiveTasks } from './caller-quotas.js';
import { LiveTask, type PersistMode, type TurnOptions } from './live-task.js';
import type { LiveTasks } from './live-tasks.js';
import type { MessageIndex } from './message-index.js';
import { isoAt } from './status-clock.js';
import type { ActorStarter, RestoreState } from './task-actors.js';
import type { TaskOwnership } from './task-ownership.js';
import { messageInTask, taskView } from './task-views.js';
import type { TurnEnds } from './turn-end.js';

/** Registers a push config given inline with a message, before the task starts. */
export type InlinePushRegistrar = (taskId: string, config: PushNotificationConfig) => Promise<void>;

export type StartedTurn = { kind: 'existing'; task: Task } | { kind: 'live'; live: LiveTask };

export interface TurnStartDeps {
  live: LiveTasks;
  messages: MessageIndex;
  store: TaskStore;
  ownership: TaskOwnership;
  ends: TurnEnds;
  startActor: ActorStarter;
  /** The live record when running, else the stored task (TaskService.findTask). */
  findTask(id: string, owner: string | undefined): Promise<Task | undefined>;
  /** Throws when the service takes no new turn (not initialized, or draining). */
  assertOpen(): void;
  inlinePushRegistrar(): InlinePushRegistrar | undefined;
  /** Tasks one caller may have live at once (SERVICE_MAX_LIVE_TASKS_PER_CALLER). */
  maxLivePerCaller: number;
}

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

/** Messages are taken by paused tasks, and by working ones resting in the background (see continueTask). */
function assertAcceptsMessages(task: Task): void {
  const state = task.status.state;
  if (isTerminalState(state)) throw a2aError('taskTerminal', `task is ${state}`);
  if (!isInterruptedState(state)) throw a2aError('taskNotAcceptingMessages', `task is ${state}`);
}

interface TurnRequest {
  params: MessageSendParams;
  mode: PersistMode;
  caller: Caller | undefined;
  scope: string;
  turn: TurnOptions | undefined;
}

export class TurnStarts {
  constructor(private readonly deps: TurnStartDeps) {}

  /**
   * Accepts a message. The handler starts on the next microtask. On the request path
   * (promiseOf): the store's answer for the message id is the only wait of a new task.
   */
  acceptMessage(
    params: MessageSendParams,
    mode: PersistMode,
    caller?: Caller,
    extensions: readonly string[] = NO_STRINGS,
  ): Promise<StartedTurn> {
    let scope = '';
    return promiseOf(() => {
      this.deps.assertOpen();
      scope = this.deps.messages.scopeOf(params.message, caller?.principal.id);
      return this.deps.messages.taskIdFor(scope, params.message.messageId);
    }).then((knownTaskId) => this.turnFor({ params, mode, caller, scope, turn: turnOptionsOf(params, extensions) }, knownTaskId));
  }

  /** The turn the message starts, once the store has said whether its id is known. */
  private turnFor(request: TurnRequest, knownTaskId: string | undefined): StartedTurn | Promise<StartedTurn> {
    const taskId = request.params.message.taskId;
    if (taskId) return this.continueTask(taskId, request, knownTaskId);
    if (knownTaskId) return this.existingOrNew(knownTaskId, request);
    return this.newTask(request);
  }

  /** The message id is known in its scope: the task it produced, if that can still be found. */
  private async existingOrNew(knownTaskId: string, request: TurnRequest): Promise<StartedTurn> {
    const task = await this.deps.findTask(knownTaskId, request.caller?.principal.id);
    if (task) return { kind: 'existing', task };
    return this.newTask(request);
  }

  /** A new task; a push config given inline is registered before it starts. */
  private newTask(request: TurnRequest): StartedTurn | Promise<StartedTurn> {
    const { params, mode, caller, turn } = request;
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
    if (!params.configuration?.pushNotificationConfig) return this.startNewTask(live, request);
    // Refused before its config is stored, too: a task that never starts leaves no config behind.
    this.assertRoomFor(live.owner);
    return this.registerInlinePush(taskId, params).then(() => this.startNewTask(live, request));
  }

  private startNewTask(live: LiveTask, { params, scope }: TurnRequest): StartedTurn {
    // Checked in the same synchronous block as the task is counted: concurrent sends cannot overshoot.
    this.assertRoomFor(live.owner);
    // A new id is free by construction; with replicas its lease is taken once others can find it.
    this.deps.ownership.claimNew(live.id);
    this.admit(live, scope, params.message.messageId);
    // A non-blocking send hands the task id out before the handler runs: the task exists from
    // now on, and a direct reply can no longer replace it (it completes it instead).
    if (live.run.mode === 'progress' && params.configuration?.blocking === false) live.run.expose();
    this.deps.startActor(live, undefined);
    if (live.run.mode === 'stream') live.initialSnapshot = taskView(live.task);
    live.actor.send({ type: 'START' });
    return { kind: 'live', live };
  }

  private async continueTask(taskId: string, request: TurnRequest, knownTaskId: string | undefined): Promise<StartedTurn> {
    const { params, mode, caller, scope, turn } = request;
    const { live: tasks, ownership } = this.deps;
    const message = params.message;
    const owner = caller?.principal.id;
    const found = await this.deps.findTask(taskId, owner);
    if (!found) throw a2aError('taskNotFound', shown(taskId));
    if (message.contextId && message.contextId !== found.contextId) throw a2aError('contextMismatch');
    if (knownTaskId === taskId) return { kind: 'existing', task: found };
    // A task resting in the background takes a message as a paused one does: its background
    // work stops, and it is continued from the store like a paused task.
    const resting = tasks.running(taskId);
    const resumed = resting?.inBackground === true && (await this.deps.ends.setAside(resting));
    if (!resumed) assertAcceptsMessages(found);
    if (tasks.has(taskId)) throw a2aError('taskNotAcceptingMessages', 'task is working');
    // Exactly one replica continues a paused task: the one that takes its lease.
    if (!(await ownership.claim(taskId))) throw a2aError('taskNotAcceptingMessages', TASK_ELSEWHERE);
    let task: Task;
    try {
      // Read again under the lease: another replica may have continued it meanwhile.
      const fresh = await this.deps.store.getTask(taskId, owner);
      if (!fresh) throw a2aError('taskNotFound', shown(taskId));
      if (!resumed || fresh.status.state !== 'working') assertAcceptsMessages(fresh);
      if (tasks.has(taskId)) throw a2aError('taskNotAcceptingMessages', 'task is working');
      await this.registerInlinePush(taskId, params);
      if (tasks.has(taskId)) throw a2aError('taskNotAcceptingMessages', 'task is working');
      // From here to `admit` nothing waits: the count cannot change in between.
      this.assertRoomFor(owner);
      task = fresh;
    } catch (err) {
      await ownership.unclaim(taskId);
      throw err;
    }
    const stored: Message = { ...message, taskId, contextId: task.contextId };
    (task.history ??= []).push(stored);
    // Not a first turn: the task is known, its run starts exposed.
    const live = new LiveTask(task, stored, { firstTurn: false, mode, caller, turn });
    this.admit(live, scope, message.messageId);
    this.deps.startActor(live, resumed ? RESTING : task.status.state);
    // A streaming follow-up shows the task as its message found it, then the turn's events.
    if (mode === 'stream') live.initialSnapshot = taskView(task);
    live.actor.send({ type: 'FOLLOW_UP' });
    return { kind: 'live', live };
  }

  /** A caller at its quota of live tasks starts no other (429). */
  private assertRoomFor(owner: string | undefined): void {
    if (this.deps.live.heldBy(owner) >= this.deps.maxLivePerCaller) throw tooManyLiveTasks(this.deps.maxLivePerCaller);
  }

  private admit(live: LiveTask, scope: string, messageId: string): void {
    this.deps.live.add(live);
    this.deps.messages.remember(live, scope, messageId);
  }

  private async registerInlinePush(taskId: string, params: MessageSendParams): Promise<void> {
    const config = params.configuration?.pushNotificationConfig;
    const registrar = this.deps.inlinePushRegistrar();
    if (config && registrar) await registrar(taskId, config);
  }
}
