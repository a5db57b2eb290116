/**
 * The task machine against the spec's "States and transitions" table: every path that
 * @xstate/graph finds uses only transitions of the table, and every transition of the table is
 * on some path. A transition added to or lost from the machine fails here.
 */
import { getAdjacencyMap, getSimplePaths } from '@xstate/graph';
import { createActor, type AnyMachineSnapshot } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  TASK_STATES,
  TERMINAL_STATES,
  taskMachine,
  TASK_MACHINE_EVENT_TYPES,
  wireStateOf,
  type TaskMachineEvent,
  type TaskState,
} from '../../machines/task.machine.js';

const AGENT_DONE = 'AGENT_DONE';
const AGENT_DETACHED = 'AGENT_DETACHED';
const AGENT_ERROR = 'AGENT_FAILED';
const FORCE_CANCEL = 'xstate.after.forceCancelTimeout.task.working.cancelling';

/**
 * The spec's table as `from|trigger|to`, in the machine's event names. Rows that the spec writes
 * as one transition but that take two steps in the machine are spelled out:
 * "working | cancellation | canceled" is CANCEL (the handler is signalled; still working) and
 * then the handler settling or the force-cancel timer.
 */
const SPEC_TABLE = new Set([
  'submitted|START|working', // the agent starts work
  'submitted|CANCEL|canceled', // cancel before work started: at once (issue 2)
  'working|STATUS|working', // intermediate status
  'working|ARTIFACT|working', // not a state change: chunks are accepted only while working (spec "SSE events")
  'working|REQUEST_INPUT|input-required',
  'working|REQUEST_AUTH|auth-required',
  'working|COMPLETE|completed',
  `working|${AGENT_DONE}|completed`, // the handler returned without a terminal call
  'working|FAIL|failed',
  `working|${AGENT_ERROR}|failed`, // the handler threw
  'working|REJECT|rejected',
  // The spec leaves how long a turn may take to the server: past SERVICE_TURN_TIMEOUT the turn
  // fails (its handler is signalled, not waited for).
  'working|TURN_TIMEOUT|failed',
  'working|CANCEL|working', // cancellation requested: the running handler is aborted…
  `working|${AGENT_DONE}|canceled`, // …and the task is canceled when it settles,
  `working|${AGENT_ERROR}|canceled`,
  `working|${FORCE_CANCEL}|canceled`, // …or when the force-cancel timer fires
  // A handler that continues in the background ends its turn and leaves the task working…
  `working|${AGENT_DETACHED}|working`,
  `working|${AGENT_DETACHED}|canceled`, // …unless a cancel came first;
  'working|CANCEL|canceled', // resting, it has no handler to wait for: a cancel ends it at once,
  'working|FOLLOW_UP|working', // and a client's message starts a new turn
  'input-required|FOLLOW_UP|working',
  'auth-required|FOLLOW_UP|working',
  'input-required|CANCEL|canceled',
  'auth-required|CANCEL|canceled',
]);

const CLIENT_AND_AGENT_EVENTS: TaskMachineEvent['type'][] = [...TASK_MACHINE_EVENT_TYPES];
const ALL_EVENTS = [...CLIENT_AND_AGENT_EVENTS, FORCE_CANCEL].map((type) => ({ type }));

const wire = (snapshot: AnyMachineSnapshot): TaskState => wireStateOf(snapshot.value as string | Record<string, unknown>);

const traversal = {
  // The delay's internal event is sent as a plain event: the machine reacts to it exactly as
  // when its timer fires.
  events: ALL_EVENTS as TaskMachineEvent[],
  input: { taskId: 'graph' },
};

/** Every transition out of every reachable state, as `from|event|to` of wire states. */
function machineEdges(): Set<string> {
  const edges = new Set<string>();
  for (const node of Object.values(getAdjacencyMap(taskMachine, traversal))) {
    const before = node.state as AnyMachineSnapshot;
    for (const step of Object.values(node.transitions) as { event: { type: string }; state: unknown }[]) {
      const { event } = step;
      const after = step.state as AnyMachineSnapshot;
      // An event the state does not handle is no transition; a handled one may be a self-transition.
      if (!before.can(event)) continue;
      edges.add(`${wire(before)}|${event.type}|${wire(after)}`);
    }
  }
  return edges;
}

describe('task machine', () => {
  it('has exactly the eight wire states, four of them final', () => {
    expect(Object.keys(taskMachine.root.states).sort()).toEqual([...TASK_STATES].sort());
    for (const state of TASK_STATES) {
      expect(taskMachine.root.states[state]?.type === 'final').toBe(TERMINAL_STATES.has(state));
    }
  });

  it('has exactly the transitions of the spec table: none added, none lost', () => {
    const edges = machineEdges();
    expect([...edges].filter((e) => !SPEC_TABLE.has(e))).toEqual([]);
    expect([...SPEC_TABLE].filter((e) => !edges.has(e))).toEqual([]);
  });

  it('every simple path walks table transitions only and ends in a terminal state or a pause', () => {
    const paths = getSimplePaths(taskMachine, traversal);
    expect(paths.length).toBeGreaterThan(10);
    const ends = new Set<TaskState>();
    for (const path of paths) {
      for (let i = 1; i < path.steps.length; i++) {
        const before = path.steps[i - 1]?.state as AnyMachineSnapshot;
        const step = path.steps[i];
        if (!step || !before.can(step.event)) continue;
        expect(SPEC_TABLE).toContain(`${wire(before)}|${step.event.type}|${wire(step.state as AnyMachineSnapshot)}`);
      }
      ends.add(wire(path.state as AnyMachineSnapshot));
    }
    expect([...ends].sort()).toEqual([...TASK_STATES].sort());
  });

  it('ignores agent events once a cancel is under way (the task can only end canceled)', () => {
    const actor = createActor(taskMachine, { input: { taskId: 't' } });
    actor.start();
    actor.send({ type: 'START' });
    actor.send({ type: 'CANCEL' });
    for (const type of ['STATUS', 'ARTIFACT', 'COMPLETE', 'FAIL', 'REJECT', 'REQUEST_INPUT', 'REQUEST_AUTH'] as const) {
      expect(actor.getSnapshot().can({ type })).toBe(false);
      actor.send({ type });
    }
    expect(actor.getSnapshot().value).toEqual({ working: 'cancelling' });
    actor.stop();
  });

  it('a handler that continues in the background rests the task in working; its context still drives it', () => {
    const entered: TaskState[] = [];
    let detached = 0;
    const machine = taskMachine.provide({
      actions: { stateEntered: (_a, p) => void entered.push(p.state), turnDetached: () => void detached++ },
    });
    const actor = createActor(machine, { input: { taskId: 't' } }).start();
    actor.send({ type: 'START' });
    actor.send({ type: 'AGENT_DETACHED' });
    expect(actor.getSnapshot().value).toEqual({ working: 'background' });
    expect(detached).toBe(1);
    // No turn runs: nothing settles again.
    for (const type of ['AGENT_DONE', 'AGENT_DETACHED', 'START'] as const) expect(actor.getSnapshot().can({ type }), type).toBe(false);
    for (const type of ['STATUS', 'ARTIFACT'] as const) {
      actor.send({ type });
      expect(actor.getSnapshot().value).toEqual({ working: 'background' });
    }
    actor.send({ type: 'COMPLETE' });
    expect(actor.getSnapshot().value).toBe('completed');
    expect(entered).toEqual(['submitted', 'working', 'completed']);
  });

  it('a follow-up message to a task resting in the background starts a new turn', () => {
    const entered: TaskState[] = [];
    let turns = 0;
    const machine = taskMachine.provide({
      actions: { stateEntered: (_a, p) => void entered.push(p.state), startAgentTurn: () => void turns++ },
    });
    const actor = createActor(machine, { input: { taskId: 't' } }).start();
    actor.send({ type: 'START' });
    actor.send({ type: 'AGENT_DETACHED' });
    actor.send({ type: 'FOLLOW_UP' });
    expect(actor.getSnapshot().value).toEqual({ working: 'running' });
    expect(turns).toBe(2);
    expect(entered).toEqual(['submitted', 'working', 'working']);
    // A task restored resting (it left memory to take the message) takes it the same way.
    const restored = createActor(machine, {
      input: { taskId: 'r' },
      snapshot: machine.resolveState({ value: { working: 'background' }, context: { taskId: 'r' } }),
    }).start();
    restored.send({ type: 'FOLLOW_UP' });
    expect(restored.getSnapshot().value).toEqual({ working: 'running' });
    expect(turns).toBe(3);
  });

  it('every agent call a running turn takes is taken in the background too, to the same state', () => {
    for (const type of ['STATUS', 'ARTIFACT', 'REQUEST_INPUT', 'REQUEST_AUTH', 'COMPLETE', 'FAIL', 'REJECT', 'AGENT_FAILED'] as const) {
      const running = taskMachine.resolveState({ value: { working: 'running' }, context: { taskId: 't' } });
      const resting = taskMachine.resolveState({ value: { working: 'background' }, context: { taskId: 't' } });
      expect(resting.can({ type }), type).toBe(true);
      const afterRunning = createActor(taskMachine, { input: { taskId: 't' }, snapshot: running }).start();
      const afterResting = createActor(taskMachine, { input: { taskId: 't' }, snapshot: resting }).start();
      afterRunning.send({ type });
      afterResting.send({ type });
      expect(wire(afterResting.getSnapshot()), type).toBe(wire(afterRunning.getSnapshot()));
      afterRunning.stop();
      afterResting.stop();
    }
  });

  it('a cancel of a task resting in the background fires the signal and ends it canceled at once, with its message', () => {
    let aborted = 0;
    const entered: { state: TaskState; message: unknown }[] = [];
    const machine = taskMachine.provide({
      actions: {
        abortAgent: () => void aborted++,
        stateEntered: ({ context }, p) => void entered.push({ state: p.state, message: context.cancelMessage }),
      },
    });
    const actor = createActor(machine, { input: { taskId: 't' } }).start();
    actor.send({ type: 'START' });
    actor.send({ type: 'AGENT_DETACHED' });
    actor.send({ type: 'CANCEL', message: 'server stopping' });
    expect(aborted).toBe(1);
    expect(actor.getSnapshot().value).toBe('canceled');
    expect(entered.at(-1)).toEqual({ state: 'canceled', message: 'server stopping' });
  });

  it('a turn past its time limit fails the task at once with its message and fires the signal; only a running turn has a limit', () => {
    let aborted = 0;
    const entered: { state: TaskState; message: unknown }[] = [];
    const machine = taskMachine.provide({
      actions: {
        abortAgent: () => void aborted++,
        stateEntered: ({ event }, p) => void entered.push({ state: p.state, message: 'message' in event ? event.message : undefined }),
      },
    });
    const actor = createActor(machine, { input: { taskId: 't' } }).start();
    actor.send({ type: 'START' });
    actor.send({ type: 'TURN_TIMEOUT', message: 'past the limit' });
    expect(aborted).toBe(1);
    expect(actor.getSnapshot().value).toBe('failed');
    expect(entered.at(-1)).toEqual({ state: 'failed', message: 'past the limit' });
    // The handler settling afterwards changes nothing.
    for (const type of ['AGENT_DONE', 'AGENT_FAILED', 'COMPLETE'] as const) expect(actor.getSnapshot().can({ type })).toBe(false);
    // No turn runs before START, in the background or in a pause; a cancel under way ends canceled.
    for (const value of ['submitted', { working: 'background' }, { working: 'cancelling' }, 'input-required', 'auth-required'] as const) {
      const snapshot = taskMachine.resolveState({ value, context: { taskId: 't' } });
      expect(snapshot.can({ type: 'TURN_TIMEOUT' }), JSON.stringify(value)).toBe(false);
    }
  });

  it('a turn that continues in the background after a cancel ends canceled like any other', () => {
    const actor = createActor(taskMachine, { input: { taskId: 't' } }).start();
    actor.send({ type: 'START' });
    actor.send({ type: 'CANCEL' });
    actor.send({ type: 'AGENT_DETACHED' });
    expect(actor.getSnapshot().value).toBe('canceled');
  });

  it('terminal states accept nothing', () => {
    for (const state of TERMINAL_STATES) {
      const snapshot = taskMachine.resolveState({ value: state, context: { taskId: 't' } });
      for (const type of CLIENT_AND_AGENT_EVENTS) expect(snapshot.can({ type })).toBe(false);
    }
  });

  it('records every state it enters through the provided stateEntered action, in order', async () => {
    const entered: TaskState[] = [];
    const machine = taskMachine.provide({
      actions: { stateEntered: (_args, params) => void entered.push(params.state) },
    });
    const actor = createActor(machine, { input: { taskId: 't' } });
    actor.start();
    actor.send({ type: 'START' });
    actor.send({ type: 'REQUEST_INPUT' });
    actor.send({ type: 'FOLLOW_UP' });
    actor.send({ type: 'COMPLETE' });
    expect(entered).toEqual(['submitted', 'working', 'input-required', 'working', 'completed']);
    expect(actor.getSnapshot().status).toBe('done');
  });

  it('entering working starts an agent turn; its settling completes or fails the task', () => {
    let turns = 0;
    const machine = taskMachine.provide({ actions: { startAgentTurn: () => void turns++ } });
    const done = createActor(machine, { input: { taskId: 't' } }).start();
    done.send({ type: 'START' });
    expect(turns).toBe(1);
    done.send({ type: 'AGENT_DONE' });
    expect(done.getSnapshot().value).toBe('completed');
    const failed = createActor(machine, { input: { taskId: 't' } }).start();
    failed.send({ type: 'START' });
    failed.send({ type: 'AGENT_FAILED' });
    expect(failed.getSnapshot().value).toBe('failed');
  });

  it('a cancel aborts the turn and the task ends canceled when the handler settles', () => {
    let aborted = 0;
    const machine = taskMachine.provide({ actions: { abortAgent: () => void aborted++ } });
    const actor = createActor(machine, { input: { taskId: 't' } }).start();
    actor.send({ type: 'START' });
    actor.send({ type: 'CANCEL' });
    expect(aborted).toBe(1);
    actor.send({ type: 'AGENT_DONE' });
    expect(actor.getSnapshot().value).toBe('canceled');
  });

  it('the force-cancel timer ends a cancelling task even if the handler never settles', async () => {
    const machine = taskMachine.provide({ delays: { forceCancelTimeout: 20 } });
    const actor = createActor(machine, { input: { taskId: 't' } });
    actor.start();
    actor.send({ type: 'START' });
    actor.send({ type: 'CANCEL' });
    expect(actor.getSnapshot().value).toEqual({ working: 'cancelling' });
    await new Promise((r) => setTimeout(r, 60));
    expect(actor.getSnapshot().value).toBe('canceled');
  });

  it('a task paused in input-required restores from its persisted state and continues', () => {
    const entered: TaskState[] = [];
    const machine = taskMachine.provide({ actions: { stateEntered: (_a, p) => void entered.push(p.state) } });
    const actor = createActor(machine, {
      input: { taskId: 't' },
      snapshot: machine.resolveState({ value: 'input-required', context: { taskId: 't' } }),
    });
    actor.start();
    expect(entered).toEqual([]); // restoring does not re-enter the state
    actor.send({ type: 'FOLLOW_UP' });
    expect(entered).toEqual(['working']);
    actor.stop();
  });
});
