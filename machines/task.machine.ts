/**
 * The A2A task lifecycle as one XState machine: the spec's "States and transitions" table,
 * nothing more. It is pure data: no I/O, no imports from src/. Every effect is a named action
 * or actor that the runtime supplies with `taskMachine.provide(...)`, so the same definition
 * runs in the server, in the Stately inspector and in tests.
 *
 * Events carry no payload on purpose: the runtime asks `snapshot.can(event)` before applying an
 * agent's data (an artifact, a status message), so the machine alone decides what is accepted.
 * Guards read only the state (never context or event data): the runtime caches `can()` answers
 * per state (src/runtime/live-task.ts), which stays right only while that holds.
 */
import { setup, stateIn, not } from 'xstate';

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
export type TaskState = (typeof TASK_STATES)[number];

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'canceled', 'rejected']);
/** States where the task waits for the client: a follow-up message continues the same task. */
export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set(['input-required', 'auth-required']);

export const isTerminalState = (state: TaskState): boolean => TERMINAL_STATES.has(state);
export const isInterruptedState = (state: TaskState): boolean => INTERRUPTED_STATES.has(state);

export interface TaskMachineContext {
  readonly taskId: string;
}

export interface TaskMachineInput {
  readonly taskId: string;
}

/** Events, named after the spec table's triggers. */
export type TaskMachineEvent =
  /** the agent starts work (runtime, right after the task is accepted) */
  | { type: 'START' }
  /** the agent emits an intermediate status */
  | { type: 'STATUS' }
  /** the agent emits an artifact chunk (no state change; ignored outside `working`) */
  | { type: 'ARTIFACT' }
  | { type: 'REQUEST_INPUT' }
  | { type: 'REQUEST_AUTH' }
  | { type: 'COMPLETE' }
  | { type: 'FAIL' }
  | { type: 'REJECT' }
  /** a client's follow-up message with `message.taskId` */
  | { type: 'FOLLOW_UP' }
  /** a client's cancel request */
  | { type: 'CANCEL' }
  /** the agent handler's turn returned (without a terminal call it completes the task) */
  | { type: 'AGENT_DONE' }
  /** the agent handler's turn threw */
  | { type: 'AGENT_FAILED' };

export type TaskMachineEventType = TaskMachineEvent['type'];

const entered = (state: TaskState) => ({ type: 'stateEntered', params: { state } }) as const;

export const taskMachine = setup({
  types: {
    context: {} as TaskMachineContext,
    events: {} as TaskMachineEvent,
    input: {} as TaskMachineInput,
  },
  actions: {
    /** Runtime hook on every state entry: status, timeline, events, push, persistence. */
    stateEntered: (_args, _params: { state: TaskState }) => {},
    /** working -> working: the agent emitted an intermediate status. */
    statusUpdated: () => {},
    /** An artifact chunk was accepted. */
    artifactAdded: () => {},
    /**
     * Work starts or continues: the runtime runs one turn of the agent handler and reports how
     * it settled with AGENT_DONE or AGENT_FAILED.
     */
    startAgentTurn: () => {},
    /** Cancel requested while the handler runs: fire its AbortSignal. */
    abortAgent: () => {},
  },
  guards: {
    /** Agent events are refused once a cancel is under way: the task can only end `canceled`. */
    notCancelling: not(stateIn({ working: 'cancelling' })),
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
      entry: entered('submitted'),
      on: {
        START: 'working',
        CANCEL: 'canceled',
      },
    },
    working: {
      // The handler runs outside the machine (an invoked child actor per turn cost ~20 µs per
      // task in the bench) and reports back with AGENT_DONE / AGENT_FAILED.
      entry: [entered('working'), 'startAgentTurn'],
      initial: 'running',
      on: {
        // A handler that returns without a terminal call completes the task; one that throws
        // fails it. During a cancel, `cancelling` handles both first: the task ends `canceled`.
        AGENT_DONE: 'completed',
        AGENT_FAILED: 'failed',
        STATUS: { guard: 'notCancelling', actions: 'statusUpdated' },
        ARTIFACT: { guard: 'notCancelling', actions: 'artifactAdded' },
        REQUEST_INPUT: { guard: 'notCancelling', target: 'input-required' },
        REQUEST_AUTH: { guard: 'notCancelling', target: 'auth-required' },
        COMPLETE: { guard: 'notCancelling', target: 'completed' },
        FAIL: { guard: 'notCancelling', target: 'failed' },
        REJECT: { guard: 'notCancelling', target: 'rejected' },
      },
      states: {
        running: {
          on: { CANCEL: 'cancelling' },
        },
        cancelling: {
          entry: 'abortAgent',
          after: { forceCancelTimeout: '#task.canceled' },
          on: { AGENT_DONE: '#task.canceled', AGENT_FAILED: '#task.canceled' },
        },
      },
    },
    'input-required': {
      entry: entered('input-required'),
      on: { FOLLOW_UP: 'working', CANCEL: 'canceled' },
    },
    'auth-required': {
      entry: entered('auth-required'),
      on: { FOLLOW_UP: 'working', CANCEL: 'canceled' },
    },
    completed: { type: 'final', entry: entered('completed') },
    failed: { type: 'final', entry: entered('failed') },
    canceled: { type: 'final', entry: entered('canceled') },
    rejected: { type: 'final', entry: entered('rejected') },
  },
});

export type TaskMachine = typeof taskMachine;

/** The top-level wire state of a machine state value (`{working: 'running'}` -> `working`). */
export function wireStateOf(value: string | Record<string, unknown>): TaskState {
  const name = typeof value === 'string' ? value : Object.keys(value)[0];
  const found = TASK_STATES.find((s) => s === name);
  if (!found) throw new Error(`not a task state: ${String(name)}`);
  return found;
}
