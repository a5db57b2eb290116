/**
 * The machine carries the data, and the runtime's cache of its answers agrees with it:
 * `LiveTask.accepts` (cached per state and event type) gives exactly `snapshot.can()` in every
 * state, agent events are ignored while cancelling by structure, and each state entry receives
 * the message its event (or the cancel before it) carried.
 */
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { Message, Task } from '../../src/a2a/schemas.js';
import { defineRuntimeTaskMachine, LiveTask } from '../../src/runtime/live-task.js';
import { defineTaskMachine, TASK_MACHINE_EVENT_TYPES } from '../../machines/task.machine.js';

const EVENT_TYPES = TASK_MACHINE_EVENT_TYPES;
const STATE_VALUES = [
  'submitted',
  { working: 'running' },
  { working: 'background' },
  { working: 'cancelling' },
  'input-required',
  'auth-required',
  'completed',
  'failed',
  'canceled',
  'rejected',
] as const;

/** What the test reads of a state node. */
interface MachineNode {
  readonly id: string;
  readonly type: string;
  readonly states: Readonly<Record<string, MachineNode>>;
}

const message = (text: string): Message => ({ kind: 'message', role: 'agent', messageId: text, parts: [{ kind: 'text', text }] });
const task: Task = { kind: 'task', id: 't', contextId: 'c', status: { state: 'working', timestamp: new Date().toISOString() } };

describe('the can() cache', () => {
  it('rests on a machine without parallel states (it follows one child per level of a state value)', () => {
    const parallel: string[] = [];
    const walk = (node: MachineNode): void => {
      if (node.type === 'parallel') parallel.push(node.id);
      for (const child of Object.values(node.states)) walk(child);
    };
    walk(defineRuntimeTaskMachine().root);
    expect(parallel).toEqual([]);
  });

  it('answers exactly what XState answers, in every state, for every event, asked twice', () => {
    const machine = defineRuntimeTaskMachine();
    for (const value of STATE_VALUES) {
      const live = new LiveTask(task, message('m'), { firstTurn: true, mode: 'progress' });
      live.actor = createActor(machine, { input: { taskId: 't' }, snapshot: machine.resolveState({ value, context: { taskId: 't' } }) });
      const snapshot = live.actor.getSnapshot();
      for (const type of EVENT_TYPES) {
        const truth = snapshot.can({ type });
        expect(live.accepts(type), `${JSON.stringify(value)} ${type}`).toBe(truth);
        // The second answer comes from the cache.
        expect(live.accepts(type), `${JSON.stringify(value)} ${type} (cached)`).toBe(truth);
      }
    }
  });
});

describe('events carry their data', () => {
  const run = () => {
    const entered: { state: string; message: unknown }[] = [];
    const statuses: unknown[] = [];
    const machine = defineTaskMachine<string, string>().provide({
      actions: {
        stateEntered: ({ context, event }, { state }) =>
          void entered.push({
            state,
            message: (state === 'canceled' ? context.cancelMessage : undefined) ?? ('message' in event ? event.message : undefined),
          }),
        statusUpdated: ({ event }) => void statuses.push('message' in event ? event.message : undefined),
      },
      delays: { forceCancelTimeout: 10_000 },
    });
    const actor = createActor(machine, { input: { taskId: 't' } }).start();
    return { actor, entered, statuses };
  };

  it('each state entry and status gets the message of the event that caused it', () => {
    const { actor, entered, statuses } = run();
    actor.send({ type: 'START' });
    actor.send({ type: 'STATUS', message: 'thinking' });
    actor.send({ type: 'REQUEST_INPUT', message: 'which one?' });
    actor.send({ type: 'FOLLOW_UP' });
    actor.send({ type: 'FAIL', message: 'no luck' });
    expect(statuses).toEqual(['thinking']);
    expect(entered).toEqual([
      { state: 'submitted', message: undefined },
      { state: 'working', message: undefined },
      { state: 'input-required', message: 'which one?' },
      { state: 'working', message: undefined },
      { state: 'failed', message: 'no luck' },
    ]);
  });

  it('in the background, agent events carry their data as in a running turn', () => {
    const { actor, entered, statuses } = run();
    actor.send({ type: 'START' });
    actor.send({ type: 'AGENT_DETACHED' });
    actor.send({ type: 'STATUS', message: 'still at it' });
    actor.send({ type: 'REJECT', message: 'gave up' });
    expect(statuses).toEqual(['still at it']);
    expect(entered.at(-1)).toEqual({ state: 'rejected', message: 'gave up' });
  });

  it('while cancelling, agent events are not handled at all, and the cancel message reaches the canceled entry', () => {
    const { actor, entered, statuses } = run();
    actor.send({ type: 'START' });
    actor.send({ type: 'CANCEL', message: 'server stopping' });
    expect(actor.getSnapshot().value).toEqual({ working: 'cancelling' });
    for (const type of ['STATUS', 'ARTIFACT', 'REQUEST_INPUT', 'REQUEST_AUTH', 'COMPLETE', 'FAIL', 'REJECT'] as const) {
      expect(actor.getSnapshot().can({ type }), type).toBe(false);
      actor.send({ type, message: 'late' });
    }
    expect(actor.getSnapshot().value).toEqual({ working: 'cancelling' });
    expect(statuses).toEqual([]);
    actor.send({ type: 'AGENT_DONE' });
    expect(entered.at(-1)).toEqual({ state: 'canceled', message: 'server stopping' });
  });
});
