/**
 * The task machine with the runtime's effects provided, and starting one actor per running
 * task (a new task, or one woken from the store in the state it was stored in).
 */
import type { InspectionEvent, Observer } from 'xstate';
import type { Message, TaskState } from '../a2a/schemas.js';
import type { TaskMachineContext } from '../../machines/task.machine.js';
import { eventSeqOf, type TaskEventLog } from './event-log.js';
import { defineRuntimeTaskMachine, type LiveTask, type RuntimeTaskEvent } from './live-task.js';
import type { LiveTasks } from './live-tasks.js';
import type { TaskSupervisor } from './task-supervisor.js';
import type { TurnEffects } from './turn-effects.js';
import { traceTurnStart } from '../observe/turns.js';

export interface TaskActorOptions {
  effects: TurnEffects;
  live: LiveTasks;
  events: TaskEventLog;
  /** SERVICE_CANCEL_FORCE_TIMEOUT, seconds. */
  cancelForceTimeout: number;
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void) | undefined;
}

/** Starts `live`'s actor, fresh or restored in `restoreState`. */
/** A stored task's state to start its actor in: a wire state, or working with its turn over. */
export type RestoreState = TaskState | { working: 'background' };
export type ActorStarter = (live: LiveTask, restoreState?: RestoreState) => void;

/** The message an event carries, if it is one of those that carry one. */
const messageOf = (event: RuntimeTaskEvent): Message | undefined => ('message' in event ? event.message : undefined);

/** The inspector's view of a task's run: a machine actor fed the run's events (task-run.ts). */
function mirrorRun(supervisor: TaskSupervisor, live: LiveTask): void {
  const actor = supervisor.spawnRunMirror(live.id, live.run.status);
  live.run.mirrorTo({ send: (event) => actor.send(event), stop: () => supervisor.stop(actor) });
}

export function taskActorStarter(opts: TaskActorOptions): ActorStarter {
  const { effects, live: tasks, events, inspect } = opts;
  type Args = { context: TaskMachineContext<Message>; event: RuntimeTaskEvent };
  // An action that throws would put the actor in XState's error state and be rethrown from a
  // timer, ending the process: each action's failure is kept to its own task instead.
  const guarded =
    <P extends unknown[]>(fn: (taskId: string, args: Args, ...params: P) => void) =>
    (args: Args, ...params: P): void => {
      try {
        fn(args.context.taskId, args, ...params);
      } catch (err) {
        effects.ends.turnBroke(args.context.taskId, err);
      }
    };
  /**
   * The handler's turn, a microtask after the machine's macrostep. One function for every task:
   * `then(run).catch(broke)` with closures over the task id cost each turn two closures and a
   * promise, and adopting the handler's promise two more reactions.
   */
  const runTurn = (taskId: string): void => {
    try {
      effects.runTurn(taskId)?.catch((err: unknown) => effects.ends.turnBroke(taskId, err));
    } catch (err) {
      effects.ends.turnBroke(taskId, err);
    }
  };
  const machine = defineRuntimeTaskMachine().provide({
    actions: {
      stateEntered: guarded((taskId, { context, event }, params: { state: TaskState }) => {
        // A cancel's message outlives the events that end the turn after it.
        const message = (params.state === 'canceled' ? context.cancelMessage : undefined) ?? messageOf(event);
        effects.stateEntered(taskId, params.state, message, event.type === 'COMPLETE' ? event.artifact : undefined);
      }),
      statusUpdated: guarded((taskId, { event }) => effects.statusUpdated(taskId, messageOf(event))),
      artifactAdded: guarded((taskId, { event }) => {
        if (event.type === 'ARTIFACT' && event.artifact) effects.artifactAdded(taskId, event.artifact);
      }),
      abortAgent: guarded((taskId) => tasks.get(taskId)?.abortTurn()),
      turnDetached: guarded((taskId) => effects.turnDetached(taskId)),
      // The handler starts after the machine's macrostep, so every call it makes is processed
      // at once (and `can()` answers for the state the call really meets).
      startAgentTurn: guarded((taskId) => {
        void Promise.resolve(taskId).then(runTurn);
      }),
    },
    delays: { forceCancelTimeout: opts.cancelForceTimeout * 1000 },
  });

  const { supervisor } = tasks;
  if (inspect) supervisor.inspect(inspect);

  return (live, restoreState) => {
    // Event numbers continue where the task's last turn left them, whatever the log forgot.
    events.open(live.id, { afterSeq: eventSeqOf(live.task), watched: live.run.mode === 'stream' });
    const input = { taskId: live.id };
    live.actor = supervisor.spawn(machine, {
      input,
      snapshot: restoreState ? machine.resolveState({ value: restoreState, context: input }) : undefined,
    });
    tasks.started();
    if (inspect) mirrorRun(supervisor, live);
    traceTurnStart(live, live.id, live.task.contextId);
    live.actor.start();
  };
}
