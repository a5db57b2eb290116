/**
 * The one long-lived parent of every task actor of a service: each task's actor is spawned as
 * its child, so all of them share one XState actor system. A root actor builds a system of its
 * own (a scheduler, registries, some twenty closures) that becomes garbage with the task; as a
 * child it reuses this one, and a task costs less CPU (docs/benchmark.md, "Why the runtime is
 * shaped as it is", measured by bench/micro/task-actor.ts).
 *
 * The supervisor is a minimal actor logic, not a machine: it keeps no state and reacts to two
 * things only, a request to stop a child (the supported way to stop a non-root actor is its
 * parent's `stopChild`) and a child's error. A child that finishes unregisters itself from the
 * system (XState does it when the machine reaches a final state); a paused one is stopped
 * here, which unregisters it and cancels its delayed transitions.
 */
import {
  createActor,
  type Actor,
  type ActorLogic,
  type AnyActorRef,
  type EventObject,
  type InspectionEvent,
  type Observer,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { RuntimeTaskMachine } from './live-task.js';
import { taskRunMachine, taskRunStateValue, type TaskRunMachine, type TaskRunState } from '../../machines/task-run.machine.js';

type Inspector = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/** What the supervisor is sent: our stop requests, and what XState relays from its children. */
type SupervisorEvent = { type: 'task.stop'; actor: AnyActorRef } | (EventObject & { error?: unknown });

type SupervisorSnapshot = Snapshot<undefined>;

const ACTIVE: SupervisorSnapshot = { status: 'active', output: undefined, error: undefined };
const CHILD_ERROR = 'xstate.error.actor.';

/** As XState does for a root actor without error observers: the error escapes (uncaught). */
const reportUnhandled = (err: unknown): void => {
  setTimeout(() => {
    throw err;
  });
};

const supervisorLogic: ActorLogic<SupervisorSnapshot, SupervisorEvent> = {
  // The snapshot never changes: returning the same object allocates nothing per event.
  transition: (snapshot, event, scope) => {
    // Only `stop()` sends this, for its own children: a throw here would end the supervisor.
    if (event.type === 'task.stop' && 'actor' in event) scope.stopChild(event.actor);
    else if (event.type.startsWith(CHILD_ERROR)) reportUnhandled('error' in event ? event.error : undefined);
    return snapshot;
  },
  getInitialSnapshot: () => ACTIVE,
  getPersistedSnapshot: (snapshot) => snapshot,
};

export interface SpawnOptions {
  input: { taskId: string };
  /** A state to start in instead of the initial one. */
  snapshot?: SnapshotFrom<RuntimeTaskMachine> | undefined;
}

export class TaskSupervisor {
  private ref: Actor<typeof supervisorLogic> | undefined;
  private inspector: Inspector | undefined;

  /**
   * Sends every actor of the system (the supervisor and each task) to `inspector`. Call it
   * before the first spawn, so the inspector also sees the supervisor the tasks belong to.
   */
  inspect(inspector: Inspector): void {
    if (this.ref) this.ref.system.inspect(inspector);
    else this.inspector = inspector;
  }

  /** A task actor, child of the supervisor (not started). */
  spawn(machine: RuntimeTaskMachine, options: SpawnOptions): Actor<RuntimeTaskMachine> {
    const parent = (this.ref ??= this.startSupervisor());
    return createActor(
      machine,
      options.snapshot ? { input: options.input, snapshot: options.snapshot, parent } : { input: options.input, parent },
    );
  }

  /**
   * With an inspector only: a started actor of the task-run machine in `state`, child of the
   * supervisor, so the inspector shows each task's run beside its task machine.
   */
  spawnRunMirror(taskId: string, state: TaskRunState): Actor<TaskRunMachine> {
    const parent = (this.ref ??= this.startSupervisor());
    const context = { taskId };
    const snapshot = taskRunMachine.resolveState({ value: taskRunStateValue(state), context });
    return createActor(taskRunMachine, { input: context, snapshot, parent }).start();
  }

  /**
   * Stops a task actor that has not reached a final state (one that has is stopped already).
   * A root actor (one a test made with `createActor`) is stopped directly.
   */
  stop(actor: AnyActorRef): void {
    if (actor.getSnapshot().status !== 'active') return;
    if (actor._parent && actor._parent === this.ref) this.ref.send({ type: 'task.stop', actor });
    else actor.stop();
  }

  private startSupervisor(): Actor<typeof supervisorLogic> {
    const inspect = this.inspector;
    this.inspector = undefined;
    return createActor(supervisorLogic, { id: 'tasks', ...(inspect ? { inspect } : {}) }).start();
  }
}
