/**
 * What a running task tells the world: each event goes to the task's event log (subscribers,
 * streams) with its number stamped on the task, and each status, once the task is exposed, to
 * the transition listeners (push). A status published while the task is hidden is held by its
 * run (task-run.ts) and told when the task is exposed, or never if a direct reply replaces it.
 */
import type { StreamEvent, Task } from '../a2a/schemas.js';
import { errorFields, type Logger } from '../log.js';
import { carryTrace } from '../observe/turns.js';
import { EVENT_SEQ_KEY, type TaskEventLog } from './event-log.js';
import type { LiveTask } from './live-task.js';
import { statusEvent, taskView } from './task-views.js';

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
  /**
   * What the answer that ends a turn waits for: the listener's work for the transitions told so
   * far is safe (push: their deliveries are recorded); undefined when there is nothing to wait for.
   */
  recorded?: ((taskId: string) => Promise<void> | undefined) | undefined;
}

export class StatusPublisher {
  constructor(
    private readonly events: TaskEventLog,
    private readonly listeners: ReadonlySet<TransitionSubscriber>,
    private readonly logger: Logger,
  ) {}

  /** Logs an event and stamps its number on the task, so every snapshot says what it reflects. */
  appendEvent(live: LiveTask, event: StreamEvent): void {
    const seq = this.events.append(live.id, event);
    (live.task.metadata ??= {})[EVENT_SEQ_KEY] = seq;
  }

  /** A status event to subscribers and, once the task is exposed, to transition listeners (push). */
  publishStatus(live: LiveTask): void {
    this.appendEvent(live, statusEvent(live.task));
    if (this.listeners.size === 0) return;
    const run = live.run;
    if (run.isExposed) {
      this.tellListeners(live);
      return;
    }
    // A status before any agent call: told once the task is exposed.
    if (run.holdsStatus) {
      // A second one held (no path does this today): the task as it is now is copied at once.
      const copy = this.copyForListeners(live);
      run.whenExposed(() => {
        for (const listener of this.listeners) this.tell(live, listener, copy);
      });
      return;
    }
    run.holdStatus(live.task.status);
    run.whenExposed(() => this.tellHeld(live));
  }

  /**
   * The task is about to change: a status still held for listeners keeps a copy of the task as
   * it was. Called before every change a task can undergo while it is hidden (a state entered
   * without an agent call: the handler returned or threw, a cancel, a runtime failure).
   */
  keepHeldCopy(live: LiveTask): void {
    if (live.run.holdsStatus) live.run.keepHeldCopy(() => this.copyForListeners(live));
  }

  /**
   * Resolves once every listener has made safe what it was told of the task (see
   * TransitionSubscriber.recorded); undefined, and no promise made, when none has anything pending.
   * Never rejects: a listener that fails is logged, and the answer goes out.
   */
  recorded(taskId: string): Promise<void> | undefined {
    let waits: Promise<void>[] | undefined;
    for (const listener of this.listeners) {
      let wait: Promise<void> | undefined;
      try {
        wait = listener.recorded?.(taskId);
      } catch (err) {
        this.logger.error('runtime.transition_listener_failed', { taskId, ...errorFields(err) });
      }
      if (wait) (waits ??= []).push(wait);
    }
    if (!waits) return undefined;
    return Promise.all(waits).then(
      () => undefined,
      (err: unknown) => this.logger.error('runtime.transition_listener_failed', { taskId, ...errorFields(err) }),
    );
  }

  /** A listener with nothing to do (a task without push configs) costs no copy of the task. */
  private tellListeners(live: LiveTask): void {
    let copy: Task | undefined;
    for (const listener of this.listeners) {
      if (this.handledWithoutCopy(live, listener)) continue;
      this.tell(live, listener, (copy ??= this.copyForListeners(live)));
    }
  }

  /**
   * The task was exposed: listeners are told of the held status. When the task has not changed
   * since (the agent's call exposed it), it is a transition of the exposed task like any other,
   * read from the task itself; otherwise each gets the copy kept when it changed.
   */
  private tellHeld(live: LiveTask): void {
    const held = live.run.takeHeld();
    if (held.copy === undefined && live.task.status === held.status) {
      this.tellListeners(live);
      return;
    }
    const told = held.copy ?? this.copyForListeners(live);
    for (const listener of this.listeners) this.tell(live, listener, told);
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
      this.logger.error('runtime.transition_listener_failed', { taskId: live.id, ...errorFields(err) });
      return true;
    }
  }

  private tell(live: LiveTask, listener: TransitionSubscriber, copy: Task): void {
    try {
      listener.notify(copy);
    } catch (err) {
      this.logger.error('runtime.transition_listener_failed', { taskId: live.id, ...errorFields(err) });
    }
  }
}
