/**
 * The A2A task lifecycle as one XState machine: the spec's "States and transitions" table,
 * nothing more. It is pure data: no I/O, no imports from src/. Every effect is a named action
 * that the runtime supplies with `provide(...)`, so the same definition runs in the server, in
 * the Stately inspector and in tests.
 *
 * Events carry their data: an agent's status message or artifact travels in the event, and the
 * action that records it reads it there. Agent events are handled only in `working.running` and
 * `working.background` (the turn has ended, the task stays working and what the handler left
 * running reports through its context), so once a cancel is under way (`working.cancelling`)
 * they are ignored by structure, not by a guard. There are no guards at all: whether an event is accepted depends on the state alone,
 * which lets the runtime cache `can()` answers per state (src/runtime/live-task.ts).
 */
import { assign, setup } from 'xstate';

/** The eight wire values of TaskState that the service uses (spec "States and transitions"). */
export const TASK_STATES = [
  'submitted',
  'working',
  'input-required',
  'auth-required',
  'completed',
  'failed',
  'canceled',
  'rejected',
] as const;
/** A task's state on the wire. */
export type TaskState = (typeof TASK_STATES)[number];

/** States a task never leaves. */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'canceled', 'rejected']);
/** States where the task waits for the client: a follow-up message continues the same task. */
export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set(['input-required', 'auth-required']);

/** Whether a task in `state` has ended for good. */
export const isTerminalState = (state: TaskState): boolean => TERMINAL_STATES.has(state);
/** Whether a task in `state` waits for the client's next message. */
export const isInterruptedState = (state: TaskState): boolean => INTERRUPTED_STATES.has(state);

/** What the task machine carries besides its state. */
export interface TaskMachineContext<M = unknown> {
  /** The task the actor runs. */
  readonly taskId: string;
  /** The message a cancel came with (a server shutting down says so); the `canceled` entry shows it. */
  readonly cancelMessage?: M | undefined;
}

/** What an actor of the task machine starts from. */
export interface TaskMachineInput {
  /** The task the actor runs. */
  readonly taskId: string;
}

/**
 * Events, named after the spec table's triggers. `M` is the message type, `A` the artifact
 * chunk type; the runtime instantiates the machine with its own (src/runtime/task-actors.ts).
 */
export type TaskMachineEvent<M = unknown, A = unknown> =
  /** the agent starts work (runtime, right after the task is accepted) */
  | { type: 'START' }
  /** the agent emits an intermediate status, with or without a message */
  | { type: 'STATUS'; message?: M | undefined }
  /** the agent emits an artifact chunk (no state change) */
  | { type: 'ARTIFACT'; artifact?: A }
  | { type: 'REQUEST_INPUT'; message?: M }
  | { type: 'REQUEST_AUTH'; message?: M }
  /** the agent finishes, optionally with a reply message or a final artifact */
  | { type: 'COMPLETE'; message?: M; artifact?: A }
  | { type: 'FAIL'; message?: M }
  | { type: 'REJECT'; message?: M }
  /** a client's follow-up message with `message.taskId` */
  | { type: 'FOLLOW_UP' }
  /** a client's cancel request (the server's own, when shutting down, says why) */
  | { type: 'CANCEL'; message?: M }
  /** the agent handler's turn returned (without a terminal call it completes the task) */
  | { type: 'AGENT_DONE' }
  /**
   * the agent handler's turn returned after `ctx.continueInBackground()`: the turn ends and the
   * task stays working, with no turn running, until its background work or a cancel ends it
   */
  | { type: 'AGENT_DETACHED' }
  /** the agent handler's turn threw (the message says what the client is told) */
  | { type: 'AGENT_FAILED'; message?: M }
  /**
   * the turn ran past the server's time limit: the task fails with the message (which names the
   * limit) at once, and the handler's signal fires; the handler is not waited for
   */
  | { type: 'TURN_TIMEOUT'; message?: M };

/** The name of a task machine event. */
export type TaskMachineEventType = TaskMachineEvent['type'];

/** Every event type the machine knows (tests walk them all). */
export const TASK_MACHINE_EVENT_TYPES = [
  'START',
  'STATUS',
  'ARTIFACT',
  'REQUEST_INPUT',
  'REQUEST_AUTH',
  'COMPLETE',
  'FAIL',
  'REJECT',
  'FOLLOW_UP',
  'CANCEL',
  'AGENT_DONE',
  'AGENT_DETACHED',
  'AGENT_FAILED',
  'TURN_TIMEOUT',
] as const satisfies readonly TaskMachineEventType[];

/** The machine for messages of type `M` and artifact chunks of type `A`. */
export function defineTaskMachine<M = unknown, A = unknown>() {
  return setup({
    types: {
      context: {} as TaskMachineContext<M>,
      events: {} as TaskMachineEvent<M, A>,
      input: {} as TaskMachineInput,
    },
    actions: {
      /**
       * Runtime hook on every state entry: status (with the message the entering event or the
       * cancel carried), timeline, events, push, persistence.
       */
      stateEntered: (_args, _params: { state: TaskState }) => {},
      /** working -> working: the agent emitted an intermediate status (the event's message). */
      statusUpdated: () => {},
      /** An artifact chunk (the event's) was accepted. */
      artifactAdded: () => {},
      /**
       * Work starts or continues: the runtime runs one turn of the agent handler and reports how
       * it settled with AGENT_DONE or AGENT_FAILED.
       */
      startAgentTurn: () => {},
      /**
       * Cancel requested while the handler or its background work runs, or the turn ran past its
       * time limit: fire its AbortSignal.
       */
      abortAgent: () => {},
      /**
       * The turn ended with the task still working (AGENT_DETACHED): the runtime stores the task
       * and tells those waiting for the turn (a blocking send, a stream) that it is over.
       */
      turnDetached: () => {},
      rememberCancelMessage: assign({
        cancelMessage: ({ event }) => (event.type === 'CANCEL' ? event.message : undefined),
      }),
    },
    delays: {
      /** SERVICE_CANCEL_FORCE_TIMEOUT; the runtime overrides it. */
      forceCancelTimeout: 10_000,
    },
  }).createMachine({
    id: 'task',
    context: ({ input }) => ({ taskId: input.taskId }),
    initial: 'submitted',
    states: {
      submitted: {
        entry: { type: 'stateEntered', params: { state: 'submitted' } },
        on: {
          START: 'working',
          CANCEL: 'canceled',
        },
      },
      working: {
        // The handler runs outside the machine (an invoked child actor per turn is a second
        // actor per task on the hot path) and reports back with AGENT_DONE / AGENT_DETACHED /
        // AGENT_FAILED.
        entry: [{ type: 'stateEntered', params: { state: 'working' } }, 'startAgentTurn'],
        initial: 'running',
        on: {
          // A handler that throws fails the task; so does the runtime breaking while the task
          // rests in the background. During a cancel, `cancelling` handles it first: `canceled`.
          AGENT_FAILED: 'failed',
        },
        states: {
          running: {
            on: {
              STATUS: { actions: 'statusUpdated' },
              ARTIFACT: { actions: 'artifactAdded' },
              REQUEST_INPUT: '#task.input-required',
              REQUEST_AUTH: '#task.auth-required',
              COMPLETE: '#task.completed',
              FAIL: '#task.failed',
              REJECT: '#task.rejected',
              // A handler that returns without a terminal call completes the task, unless it
              // asked to continue in the background.
              AGENT_DONE: '#task.completed',
              AGENT_DETACHED: 'background',
              CANCEL: { target: 'cancelling', actions: 'rememberCancelMessage' },
              // Unlike a cancel, the handler is not waited for: it already had the whole limit,
              // and whatever it does after the signal is ignored, since the task is final.
              TURN_TIMEOUT: { target: '#task.failed', actions: 'abortAgent' },
            },
          },
          background: {
            // No turn runs: what the handler started reports through the same calls, and a
            // cancel has no handler to wait for, so it ends the task at once (after firing the
            // signal the background work watches).
            entry: 'turnDetached',
            on: {
              // The agent's calls do here what they do in `running` (test/unit/task-machine.test.ts
              // holds the two equal); written out, so the definition pastes into the Stately editor.
              STATUS: { actions: 'statusUpdated' },
              ARTIFACT: { actions: 'artifactAdded' },
              REQUEST_INPUT: '#task.input-required',
              REQUEST_AUTH: '#task.auth-required',
              COMPLETE: '#task.completed',
              FAIL: '#task.failed',
              REJECT: '#task.rejected',
              CANCEL: { target: '#task.canceled', actions: ['rememberCancelMessage', 'abortAgent'] },
              // A client's message starts a new turn, as on a paused task: `working` is entered
              // again (its entry runs the handler). The runtime first stops the background work.
              FOLLOW_UP: { target: '#task.working', reenter: true },
            },
          },
          cancelling: {
            // Agent events are not handled here: after a cancel the task can only end `canceled`.
            entry: 'abortAgent',
            after: { forceCancelTimeout: '#task.canceled' },
            on: { AGENT_DONE: '#task.canceled', AGENT_DETACHED: '#task.canceled', AGENT_FAILED: '#task.canceled' },
          },
        },
      },
      'input-required': {
        entry: { type: 'stateEntered', params: { state: 'input-required' } },
        on: { FOLLOW_UP: 'working', CANCEL: 'canceled' },
      },
      'auth-required': {
        entry: { type: 'stateEntered', params: { state: 'auth-required' } },
        on: { FOLLOW_UP: 'working', CANCEL: 'canceled' },
      },
      completed: { type: 'final', entry: { type: 'stateEntered', params: { state: 'completed' } } },
      failed: { type: 'final', entry: { type: 'stateEntered', params: { state: 'failed' } } },
      canceled: { type: 'final', entry: { type: 'stateEntered', params: { state: 'canceled' } } },
      rejected: { type: 'final', entry: { type: 'stateEntered', params: { state: 'rejected' } } },
    },
  });
}

/** The definition with untyped payloads: for the inspector, the tests and embedding. */
export const taskMachine = defineTaskMachine();

/** The task machine's type, for typed actors of it. */
export type TaskMachine = typeof taskMachine;

/** The top-level wire state of a machine state value (`{working: 'running'}` -> `working`). */
export function wireStateOf(value: string | Record<string, unknown>): TaskState {
  const name = typeof value === 'string' ? value : Object.keys(value)[0];
  const found = TASK_STATES.find((s) => s === name);
  if (!found) throw new Error(`not a task state: ${String(name)}`);
  return found;
}
