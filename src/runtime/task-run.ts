/**
 * The one owner of a task's life in memory (machines/task-run.machine.ts): whether anyone
 * outside may know it, whether a progress write is due, how it leaves memory, and the
 * persistence bookkeeping that changes with those (the chain of store writes, the write that
 * made it visible, the idempotency record still to store, the final write's JSON, what is held
 * back until it is exposed). Every way a task's visibility and persistence can change is a named
 * transition here; other modules ask through getters or call a transition, and assign nothing.
 *
 * The transitions are plain code over one status tag, not an actor per task (every request
 * passes here); test/unit/task-run.test.ts holds `nextRunState` equal to the machine. With the
 * Stately inspector on, a mirror actor of the machine gets every event taken.
 */
import type { Message, Task } from '../a2a/schemas.js';
import type { MessageKey } from '../store/types.js';
import type { TaskRunEvent, TaskRunEventType, TaskRunState } from '../../machines/task-run.machine.js';

/**
 * How the client follows the turn: by the answer to its send and by reading the task
 * (`progress`), or by the turn's stream (`stream`), which starts from a snapshot of the task.
 * Both are stored alike: coalesced progress writes while the task runs, one write at its end.
 */
export type PersistMode = 'progress' | 'stream';

/**
 * How a turn ended for those who waited for it: with the task (`unstored` when its write was
 * lost for the whole retry window), or with a direct reply that replaced it.
 */
export type TurnOutcome = { kind: 'task'; unstored?: true } | { kind: 'message'; message: Message };

type Moves = { readonly [E in TaskRunEventType]?: TaskRunState };

const FROM_HIDDEN: Moves = { REPLACE: 'replaced', END: 'ending', STOP: 'stopped' };
const FROM_EXPOSED: Moves = { END: 'ending', STOP: 'stopped' };

/** The machine's transitions, state by state: final states take none. */
const NEXT: { readonly [S in TaskRunState]: Moves } = {
  'hidden.idle': { ...FROM_HIDDEN, FLUSH_DUE: 'hidden.flushDue', EXPOSE: 'exposed.idle' },
  'hidden.flushDue': { ...FROM_HIDDEN, FLUSHED: 'hidden.idle', EXPOSE: 'exposed.flushDue' },
  'exposed.idle': { ...FROM_EXPOSED, FLUSH_DUE: 'exposed.flushDue' },
  'exposed.flushDue': { ...FROM_EXPOSED, FLUSHED: 'exposed.idle' },
  ending: { STORED: 'closed.stored', LOST: 'closed.unstored', STOP: 'stopped' },
  'closed.stored': {},
  'closed.unstored': {},
  replaced: {},
  stopped: {},
};

/** Where `event` takes a run in `state`; undefined when the state does not take it. */
export const nextRunState = (state: TaskRunState, event: TaskRunEventType): TaskRunState | undefined => NEXT[state][event];

const RUNNING: ReadonlySet<TaskRunState> = new Set(['hidden.idle', 'hidden.flushDue', 'exposed.idle', 'exposed.flushDue']);
const HIDDEN: ReadonlySet<TaskRunState> = new Set(['hidden.idle', 'hidden.flushDue', 'replaced']);
const FINAL: ReadonlySet<TaskRunState> = new Set(['closed.stored', 'closed.unstored', 'replaced', 'stopped']);

/** What the inspector sees of a run: a machine actor fed the same events (src/debug, task-actors.ts). */
export interface RunMirror {
  send(event: TaskRunEvent): void;
  /** The run reached a final state. */
  stop(): void;
}

export class TaskRun {
  private state: TaskRunState;
  private readonly persistMode: PersistMode;
  /** Effects held until the task is exposed (made on first use); dropped if it is replaced. */
  private deferred: (() => void)[] | undefined;
  private exposeWaiters: ((outcome: TurnOutcome) => void)[] | undefined;
  /**
   * A status published while hidden, which transition listeners are told of once the task is
   * exposed, and the copy of the task as it was then: made only if the task changes before that,
   * which a turn that exposes it by an agent call never does.
   */
  private heldStatus: Task['status'] | undefined;
  private heldCopy: Task | undefined;
  /** The last of the task's store writes, which run one after another (task-writes.ts). */
  private lastWrite: Promise<unknown> | undefined;
  private visible: Promise<void> | undefined;
  private unrecordedKey: MessageKey | undefined;
  private finalJson: string | undefined;
  private replacement: Message | undefined;
  private mirror: RunMirror | undefined;

  /** A first turn starts hidden; a task continued from the store is known already. */
  constructor(opts: { hidden: boolean; mode: PersistMode }) {
    this.state = opts.hidden ? 'hidden.idle' : 'exposed.idle';
    this.persistMode = opts.mode;
  }

  // ------------------------------------------------------------------ what others ask

  get status(): TaskRunState {
    return this.state;
  }

  /** Hidden or exposed: the task's turn goes on, or it rests in the background. */
  get isRunning(): boolean {
    return RUNNING.has(this.state);
  }

  /** Whether anyone outside may know the task exists. */
  get isExposed(): boolean {
    return !HIDDEN.has(this.state);
  }

  /** Hidden: a direct reply of the agent would still replace the task. */
  get isHidden(): boolean {
    return this.state === 'hidden.idle' || this.state === 'hidden.flushDue';
  }

  get mode(): PersistMode {
    return this.persistMode;
  }

  /** The last store write queued for the task, if any. */
  get writes(): Promise<unknown> | undefined {
    return this.lastWrite;
  }

  /** The write that made the running task findable by other replicas, once asked for. */
  get visibleWrite(): Promise<void> | undefined {
    return this.visible;
  }

  /** The message that started the task, until a store write has recorded it for idempotency. */
  get messageKey(): MessageKey | undefined {
    return this.unrecordedKey;
  }

  /** The task's JSON as its final write stored it (closed and stored only). */
  get storedJson(): string | undefined {
    return this.state === 'closed.stored' ? this.finalJson : undefined;
  }

  /** The direct reply that replaced the task. */
  get replacedWith(): Message | undefined {
    return this.replacement;
  }

  /** Whether a status is held for listeners until the task is exposed. */
  get holdsStatus(): boolean {
    return this.heldStatus !== undefined;
  }

  /** Resolves when the task is exposed, or with the direct reply that replaced it. */
  waitExposed(): Promise<TurnOutcome> {
    if (this.replacement) return Promise.resolve({ kind: 'message', message: this.replacement });
    if (this.isExposed) return Promise.resolve({ kind: 'task' });
    return new Promise((resolve) => (this.exposeWaiters ??= []).push(resolve));
  }

  // ------------------------------------------------------------------ transitions

  /** Someone outside may know the task now: what was held back runs. */
  expose(): void {
    if (this.move('EXPOSE')) this.runDeferred();
  }

  /** A progress write is due; false if one already is, or the task is past running. */
  flushDue(): boolean {
    return this.move('FLUSH_DUE');
  }

  /** The due progress write was made or is not needed any more. */
  flushed(): void {
    this.move('FLUSHED');
  }

  /** The turn ended (paused, terminal, set aside): the final write begins. False if it had begun already. */
  beginEnding(): boolean {
    const wasHidden = this.isHidden;
    if (!this.move('END')) return false;
    // An end is told to everyone: a hidden task is exposed by it.
    if (wasHidden) this.runDeferred();
    return true;
  }

  /** The final write is over: stored (with its JSON) or lost. */
  close(storedJson: string | undefined): void {
    if (storedJson === undefined) {
      this.move('LOST');
      return;
    }
    if (this.move('STORED')) this.finalJson = storedJson;
  }

  /** A direct reply replaced the hidden task: nothing held back is ever done. */
  replacedBy(message: Message): boolean {
    if (!this.move('REPLACE')) return false;
    this.replacement = message;
    this.deferred = undefined;
    this.heldStatus = undefined;
    this.heldCopy = undefined;
    this.resolveExposed({ kind: 'message', message });
    return true;
  }

  /** The service closed with the task in memory. */
  stop(): void {
    this.move('STOP');
  }

  // ------------------------------------------------------------------ bookkeeping that follows the status

  /** Runs `effect` now if the task is exposed, else when it becomes so (never if it is replaced). */
  whenExposed(effect: () => void): void {
    if (this.isExposed) effect();
    else if (this.isHidden) (this.deferred ??= []).push(effect);
  }

  /** Every write of the task goes after this one. */
  queueWrite(write: Promise<unknown>): void {
    this.lastWrite = write;
  }

  /** The write that makes the task findable (undefined: it failed, the next ask writes again). */
  setVisibleWrite(write: Promise<void> | undefined): void {
    this.visible = write;
  }

  /** The task's message is to be recorded for idempotency with its next store write. */
  recordMessage(key: MessageKey): void {
    this.unrecordedKey = key;
  }

  /** A store write recorded `key`. */
  messageRecorded(key: MessageKey | undefined): void {
    if (this.unrecordedKey === key) this.unrecordedKey = undefined;
  }

  /** A status was published while hidden: listeners are told of it once the task is exposed. */
  holdStatus(status: Task['status']): void {
    this.heldStatus = status;
  }

  /** The task is about to change while a status is held: a copy of it as it was is kept. */
  keepHeldCopy(copy: () => Task): void {
    if (this.heldStatus !== undefined && this.heldCopy === undefined) this.heldCopy = copy();
  }

  /** The held status and copy, handed over once (the task is exposed). */
  takeHeld(): { status: Task['status'] | undefined; copy: Task | undefined } {
    const held = { status: this.heldStatus, copy: this.heldCopy };
    this.heldStatus = undefined;
    this.heldCopy = undefined;
    return held;
  }

  /** The inspector's mirror of this run, started in the state the run is in. */
  mirrorTo(mirror: RunMirror): void {
    this.mirror = mirror;
  }

  private move(type: TaskRunEventType): boolean {
    const next = NEXT[this.state][type];
    if (next === undefined) return false;
    this.state = next;
    if (this.mirror) {
      this.mirror.send({ type });
      if (FINAL.has(next)) this.mirror.stop();
    }
    return true;
  }

  private runDeferred(): void {
    const effects = this.deferred;
    this.deferred = undefined;
    if (effects) for (const effect of effects) effect();
    this.resolveExposed({ kind: 'task' });
  }

  private resolveExposed(outcome: TurnOutcome): void {
    const waiters = this.exposeWaiters;
    this.exposeWaiters = undefined;
    if (waiters) for (const w of waiters) w(outcome);
  }
}
