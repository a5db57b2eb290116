/**
 * A task whose actor is running (states `submitted` and `working`, including a task resting in
 * `working` after its handler continued in the background). It owns the mutable task record,
 * the actor, the AbortController of the turn and of its background work, and the people
 * waiting for the turn to end; its life in memory (visibility, persistence, how it leaves) is
 * its `run` (task-run.ts). Paused and terminal tasks live only in the store.
 */
import type { Actor, StateValue, StateValueMap } from 'xstate';
import { defineTaskMachine, type TaskMachineEvent, type TaskMachineEventType } from '../../machines/task.machine.js';
import type { ArtifactChunk } from '../agent.js';
import type { Caller } from '../auth/types.js';
import type { Message, Task } from '../a2a/schemas.js';
import { NO_STRINGS } from '../a2a/empty.js';
import { TaskRun, type PersistMode, type TurnOutcome } from './task-run.js';
import { waitWithin } from './wait.js';

export type { PersistMode, TurnOutcome };

/** What the request that started a turn asked for besides its message (each empty by default). */
export interface TurnOptions {
  /** The extensions the request activated (`X-A2A-Extensions`). */
  extensions?: readonly string[] | undefined;
  /** `configuration.acceptedOutputModes`. */
  acceptedOutputModes?: readonly string[] | undefined;
}

/** The task machine as the runtime runs it: events carry our messages and artifact chunks. */
export const defineRuntimeTaskMachine = () => defineTaskMachine<Message, ArtifactChunk>();
export type RuntimeTaskMachine = ReturnType<typeof defineRuntimeTaskMachine>;
export type RuntimeTaskEvent = TaskMachineEvent<Message, ArtifactChunk>;

/**
 * The machine's answers to `can(event)`, per machine and state. The task machine has no guards:
 * whether an event is taken depends on the state and the event's type alone (never its data),
 * so an answer never changes for a state, and asking XState once per state and event type saves
 * a transition computation per agent call (test/unit/machine-data.test.ts holds the two equal).
 *
 * States are found by walking the state value (`{working: 'running'}`: `working`, then
 * `running`) through a tree of maps, not by building a text key per call: a text key is a
 * string built on every agent call, a walk allocates nothing.
 */
interface StateAnswers {
  readonly answers: Map<TaskMachineEventType, boolean>;
  substates: Map<string, StateAnswers> | undefined;
}
const acceptance = new WeakMap<object, StateAnswers>();

const substate = (state: StateAnswers, name: string): StateAnswers => {
  state.substates ??= new Map();
  let found = state.substates.get(name);
  if (!found) state.substates.set(name, (found = { answers: new Map(), substates: undefined }));
  return found;
};

/**
 * The cached answers for the state `value` names, under the machine's top `root`. Each level of
 * the value has one name: the task machine has no parallel states (test/unit/machine-data.test.ts
 * checks that the cache's assumption holds).
 */
function answersIn(root: StateAnswers, value: StateValue): Map<TaskMachineEventType, boolean> {
  let state = root;
  let rest: StateValue | undefined = value;
  while (typeof rest === 'object') {
    const inner: StateValueMap = rest;
    rest = undefined;
    for (const name in inner) {
      state = substate(state, name);
      rest = inner[name];
      break;
    }
  }
  return rest === undefined ? state.answers : substate(state, rest).answers;
}

/** Where the message that started a live task is indexed for idempotency (message-index.ts). */
export interface MessageIndexEntry {
  /** The task has left memory: the store answers for its message from now on. */
  forget(key: string): void;
}

/**
 * One resolved promise for every settled task: a task allocates no promise for a wait nobody
 * asks for (most tasks are never waited on to settle).
 */
const RESOLVED: Promise<void> = Promise.resolve();

/**
 * How the shared registries (LiveTasks' index, TaskWriter's dirty set) hold a running task:
 * through this handle, emptied when the task leaves memory. A Map or Set whose entries come and
 * go retires its hash table every few dozen changes, and once the table is in the old generation
 * V8 makes the next ones there too, each keeping the entries it had until a full collection. A
 * task held directly stayed reachable from that garbage: every scavenge copied, then promoted,
 * the task and all it holds. Through the handle, only the handle is kept.
 */
export class LiveTaskHandle {
  constructor(public live: LiveTask | undefined) {}
}

export class LiveTask {
  actor!: Actor<RuntimeTaskMachine>;
  /** What the shared registries hold (emptied by LiveTasks.release). */
  readonly handle: LiveTaskHandle = new LiveTaskHandle(this);
  /** Set by a cancel; the AbortSignal is made only if the handler asks for it (it is not free). */
  cancelRequested = false;
  private controller: AbortController | undefined;
  /**
   * The task's status timestamp in ms, kept beside the text so each transition need not parse it
   * (NaN if the stored text is not a date). Only the runtime's state entries change the status.
   */
  statusMs: number;
  /** The message that started the current turn. */
  turnMessage: Message;
  /** The task's life in memory: the one writer of its visibility and persistence. */
  readonly run: TaskRun;
  /** The task as it was when submitted: the first event of a `message:stream` (stream mode only). */
  initialSnapshot: Task | undefined;
  /** The principal id the task belongs to (with auth on); written with the task's first store write. */
  readonly owner: string | undefined;
  /** Who sent this turn's message (with auth on), for the handler's `ctx.principal`. */
  readonly caller: Caller | undefined;
  /** The extensions this turn's request activated, for `ctx.extensions`. */
  readonly extensions: readonly string[];
  /** The MIME types this turn's request accepts in output (empty: any), for `ctx.accepts`. */
  readonly acceptedOutputModes: readonly string[];

  /** Set when the turn has ended (the task may stay, resting in the background); late waiters get it at once. */
  private outcome: TurnOutcome | undefined;
  private turnWaiters: ((outcome: TurnOutcome) => void)[] | undefined;
  /** `settled`'s promise, made only when someone waits for it before the task leaves (RESOLVED after). */
  private settledPromise: Promise<void> | undefined;
  private settledResolve: (() => void) | undefined;
  /** The idempotency index entry of the message that started this task, dropped when it leaves. */
  private indexedIn: MessageIndexEntry | undefined;
  private indexKey = '';

  constructor(
    readonly task: Task,
    message: Message,
    opts: { firstTurn: boolean; mode: PersistMode; owner?: string | undefined; caller?: Caller | undefined; turn?: TurnOptions },
  ) {
    this.caller = opts.caller;
    this.extensions = opts.turn?.extensions ?? NO_STRINGS;
    this.acceptedOutputModes = opts.turn?.acceptedOutputModes ?? NO_STRINGS;
    this.owner = opts.owner ?? opts.caller?.principal.id;
    this.turnMessage = message;
    this.statusMs = Date.parse(task.status.timestamp);
    this.run = new TaskRun({ hidden: opts.firstTurn, mode: opts.mode });
  }

  /** Resolves when the task has left memory (`finish`). */
  get settled(): Promise<void> {
    return (this.settledPromise ??= new Promise<void>((resolve) => {
      this.settledResolve = resolve;
    }));
  }

  /** The task's message is indexed under `key` in `index` until the task leaves memory. */
  indexedAs(index: MessageIndexEntry, key: string): void {
    this.indexedIn = index;
    this.indexKey = key;
  }

  get id(): string {
    return this.task.id;
  }

  /** Fires when a client cancels the running turn or the background work it left. */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.cancelRequested && !this.controller.signal.aborted) this.controller.abort();
    return this.controller.signal;
  }

  abortTurn(): void {
    this.cancelRequested = true;
    this.controller?.abort();
  }

  /** Asks the machine whether it accepts the event now. */
  accepts(type: TaskMachineEventType): boolean {
    if (!this.run.isRunning) return false;
    const snapshot = this.actor.getSnapshot();
    let root = acceptance.get(this.actor.logic);
    if (!root) acceptance.set(this.actor.logic, (root = { answers: new Map(), substates: undefined }));
    const answers = answersIn(root, snapshot.value);
    let answer = answers.get(type);
    if (answer === undefined) answers.set(type, (answer = snapshot.can({ type })));
    return answer;
  }

  /**
   * Resolves at the end of the turn (paused, terminal, resting in the background, or replaced by
   * a direct reply).
   */
  waitTurnEnd(): Promise<TurnOutcome> {
    if (this.outcome) return Promise.resolve(this.outcome);
    return new Promise((resolve) => (this.turnWaiters ??= []).push(resolve));
  }

  /** `waitFor(waitTurnEnd(), ms)` in one promise (a blocking send's wait): undefined after `ms`. */
  waitTurnEndWithin(ms: number): Promise<TurnOutcome | undefined> {
    if (this.outcome) return Promise.resolve(this.outcome);
    return waitWithin<TurnOutcome>((this.turnWaiters ??= []), ms);
  }

  /** Whether the turn is over while the task stays here, working in the background. */
  get inBackground(): boolean {
    return this.run.isRunning && this.actor.getSnapshot().matches({ working: 'background' });
  }

  /** The turn ended: wake everyone waiting for it (the task may stay, see `finish`). */
  turnEnded(outcome: TurnOutcome): void {
    if (this.outcome) return;
    this.outcome = outcome;
    const waiters = this.turnWaiters;
    this.turnWaiters = undefined;
    if (waiters) for (const w of waiters) w(outcome);
  }

  /** The task left memory: the turn is over if it was not already, and the record is released. */
  finish(outcome: TurnOutcome): void {
    this.turnEnded(outcome);
    // Forgotten before anyone waiting for the task to settle runs (a chained `then` on a
    // promise of its own cost every task a promise, a closure and a reaction).
    this.indexedIn?.forget(this.indexKey);
    this.indexedIn = undefined;
    this.settledResolve?.();
    this.settledResolve = undefined;
    // Waits asked for from now on share the one resolved promise.
    this.settledPromise = RESOLVED;
  }
}
