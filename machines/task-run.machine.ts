/**
 * The life of a task held in memory by the runtime, beside the spec's task machine
 * (task.machine.ts): who may know the task exists, whether a progress write is due, and how it
 * leaves memory. The task machine says what the agent did; this one says what the runtime has
 * told and stored about it. The runtime moves along it in plain code (src/runtime/task-run.ts,
 * no actor per task: it is on every request's path), and a test holds that code's accepted
 * transitions equal to this definition; the debug page draws it and the Stately inspector, when
 * on, gets a mirror actor of it per task.
 *
 * - `hidden`: the first turn of a new task, before anyone outside may know it. Push
 *   notifications, store writes and idempotency records are held back, so a direct reply can
 *   still replace the task and leave no trace.
 * - `exposed`: its id may have reached someone (a non-blocking send, an agent call, a follow-up
 *   on a stored task): every change is told and stored from now on.
 *   Both have `idle` and `flushDue` (a coalesced progress write is due on the shared ticker, so
 *   a crash loses at most one window of what clients saw; while hidden, it is due the moment the
 *   task is exposed, since nobody has seen anything yet).
 * - `ending`: paused or terminal (or a resting task set aside for a new message): its final
 *   write is under way and no agent call is taken any more.
 * - `closed`: the final write is over, `stored` or `unstored` (lost for the whole retry window).
 * - `replaced`: a direct reply replaced the hidden task; nothing of it was ever stored.
 * - `stopped`: the service closed with the task in memory; it stays as last stored.
 *
 * A task resting in the background after its turn is the task machine's `working.background`:
 * it is `exposed` here, as any running task that others know of.
 */
import { setup } from 'xstate';

/** What moves a task's run along, one event per step of its life in memory. */
export type TaskRunEvent =
  /** someone outside may now know the task (its id is handed out, or it changed for all to see) */
  | { type: 'EXPOSE' }
  /** a progress write of the running task is due (streamed or sent: at most one per window, coalesced) */
  | { type: 'FLUSH_DUE' }
  /** the progress write was made, or is not needed any more (the turn's own write comes next) */
  | { type: 'FLUSHED' }
  /** the agent answered the first turn with a message: the task never existed for anyone */
  | { type: 'REPLACE' }
  /** the task paused or ended (or is set aside): its final write begins */
  | { type: 'END' }
  /** the final write was stored */
  | { type: 'STORED' }
  /** the final write failed for the whole retry window, or the runtime broke while ending */
  | { type: 'LOST' }
  /** the service closed: the task's actor is stopped where it stands */
  | { type: 'STOP' };

/** The name of a run event. */
export type TaskRunEventType = TaskRunEvent['type'];

/** Every event type the run machine knows (tests walk them all). */
export const TASK_RUN_EVENT_TYPES: readonly TaskRunEventType[] = [
  'EXPOSE',
  'FLUSH_DUE',
  'FLUSHED',
  'REPLACE',
  'END',
  'STORED',
  'LOST',
  'STOP',
];

/** Every state a run can be in, as `top` or `top.child` (the runtime's status tags). */
export const TASK_RUN_STATES = [
  'hidden.idle',
  'hidden.flushDue',
  'exposed.idle',
  'exposed.flushDue',
  'ending',
  'closed.stored',
  'closed.unstored',
  'replaced',
  'stopped',
] as const;
/** A state of the run, as `top` or `top.child`. */
export type TaskRunState = (typeof TASK_RUN_STATES)[number];

/** A status tag as the XState state value it names (`exposed.idle` -> `{ exposed: 'idle' }`). */
export function taskRunStateValue(state: TaskRunState): string | Record<string, string> {
  const dot = state.indexOf('.');
  return dot < 0 ? state : { [state.slice(0, dot)]: state.slice(dot + 1) };
}

/** Which task the run is of (the inspector tells runs apart by it). */
export interface TaskRunContext {
  /** The task the run is of. */
  readonly taskId: string;
}

/** A task's life in the server's memory: hidden, exposed, ending, then closed, replaced or stopped. */
export const taskRunMachine = setup({
  types: { events: {} as TaskRunEvent, context: {} as TaskRunContext, input: {} as TaskRunContext },
}).createMachine({
  id: 'taskRun',
  context: ({ input }) => ({ taskId: input.taskId }),
  initial: 'hidden',
  states: {
    hidden: {
      initial: 'idle',
      on: { REPLACE: 'replaced', END: 'ending', STOP: 'stopped' },
      states: {
        idle: { on: { FLUSH_DUE: 'flushDue', EXPOSE: '#taskRun.exposed.idle' } },
        flushDue: { on: { FLUSHED: 'idle', EXPOSE: '#taskRun.exposed.flushDue' } },
      },
    },
    exposed: {
      initial: 'idle',
      on: { END: 'ending', STOP: 'stopped' },
      states: {
        idle: { on: { FLUSH_DUE: 'flushDue' } },
        flushDue: { on: { FLUSHED: 'idle' } },
      },
    },
    ending: {
      on: { STORED: 'closed.stored', LOST: 'closed.unstored', STOP: 'stopped' },
    },
    closed: {
      initial: 'stored',
      states: {
        stored: { type: 'final' },
        unstored: { type: 'final' },
      },
    },
    replaced: { type: 'final' },
    stopped: { type: 'final' },
  },
});

/** The run machine's type, for typed actors of it. */
export type TaskRunMachine = typeof taskRunMachine;
