/**
 * A task's run (src/runtime/task-run.ts) moves exactly as machines/task-run.machine.ts says:
 * every (state, event) pair the code takes leads where the machine leads, and the code refuses
 * every pair the machine refuses. The machine's graph is walked with @xstate/graph, so a state
 * the code cannot reach, or one the machine lacks, shows here.
 */
import { getAdjacencyMap } from '@xstate/graph';
import { createActor, type AnyMachineSnapshot } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  TASK_RUN_EVENT_TYPES,
  TASK_RUN_STATES,
  taskRunMachine,
  taskRunStateValue,
  type TaskRunEvent,
  type TaskRunState,
} from '../../machines/task-run.machine.js';
import { nextRunState, TaskRun } from '../../src/runtime/task-run.js';
import type { Message } from '../../src/a2a/schemas.js';

/** The machine's state as a status tag (`{ exposed: 'idle' }` -> `exposed.idle`). */
function tagOf(value: unknown): string {
  if (typeof value === 'string') return value;
  const [top, child] = Object.entries(value as Record<string, unknown>)[0] ?? ['', ''];
  return `${top}.${tagOf(child)}`;
}

const reply: Message = { kind: 'message', role: 'agent', messageId: 'r', parts: [{ kind: 'text', text: 'hi' }] };

describe('the task run follows its machine', () => {
  it('takes every (state, event) pair exactly as the machine does', () => {
    for (const state of TASK_RUN_STATES) {
      const snapshot = taskRunMachine.resolveState({ value: taskRunStateValue(state), context: { taskId: 't' } });
      expect(tagOf(snapshot.value), state).toBe(state);
      for (const type of TASK_RUN_EVENT_TYPES) {
        const event = { type } as TaskRunEvent;
        let machineNext: string | undefined;
        if (snapshot.status === 'active' && snapshot.can(event)) {
          const actor = createActor(taskRunMachine, { input: { taskId: 't' }, snapshot }).start();
          actor.send(event);
          machineNext = tagOf(actor.getSnapshot().value);
          actor.stop();
        }
        expect(nextRunState(state, type), `${state} ${type}`).toBe(machineNext);
      }
    }
  });

  it('names every state the machine can reach, and no other', () => {
    const events = TASK_RUN_EVENT_TYPES.map((type) => ({ type })) as TaskRunEvent[];
    const reached = new Set(
      Object.values(getAdjacencyMap(taskRunMachine, { events, input: { taskId: 't' } })).map((node) =>
        tagOf((node.state as AnyMachineSnapshot).value),
      ),
    );
    expect([...reached].sort()).toEqual([...TASK_RUN_STATES].sort());
  });

  it('a first turn starts hidden and runs what it held back once exposed; a follow-up starts exposed', async () => {
    const run = new TaskRun({ hidden: true, mode: 'progress' });
    const told: string[] = [];
    run.whenExposed(() => told.push('push'));
    expect(run.flushDue()).toBe(true);
    expect(run.flushDue()).toBe(false);
    expect(run.status).toBe('hidden.flushDue');
    const exposed = run.waitExposed();
    expect(told).toEqual([]);
    run.expose();
    expect(told).toEqual(['push']);
    expect(await exposed).toEqual({ kind: 'task' });
    expect(run.status).toBe('exposed.flushDue');
    expect(new TaskRun({ hidden: false, mode: 'stream' }).status).toBe('exposed.idle');
  });

  it('a direct reply replaces a hidden task and drops what was held; it cannot replace an exposed one', async () => {
    const run = new TaskRun({ hidden: true, mode: 'progress' });
    const told: string[] = [];
    run.whenExposed(() => told.push('push'));
    const exposed = run.waitExposed();
    expect(run.replacedBy(reply)).toBe(true);
    expect(await exposed).toEqual({ kind: 'message', message: reply });
    expect(told).toEqual([]);
    expect(run.status).toBe('replaced');
    const known = new TaskRun({ hidden: false, mode: 'progress' });
    expect(known.replacedBy(reply)).toBe(false);
  });

  it('an ending exposes a hidden task, and the final write closes it stored (with its JSON) or unstored', () => {
    const run = new TaskRun({ hidden: true, mode: 'progress' });
    const told: string[] = [];
    run.whenExposed(() => told.push('push'));
    expect(run.beginEnding()).toBe(true);
    expect(told).toEqual(['push']);
    expect(run.beginEnding()).toBe(false);
    expect(run.isRunning).toBe(false);
    run.close('{"id":"t"}');
    expect(run.status).toBe('closed.stored');
    expect(run.storedJson).toBe('{"id":"t"}');
    const lost = new TaskRun({ hidden: false, mode: 'progress' });
    lost.beginEnding();
    lost.close(undefined);
    expect(lost.status).toBe('closed.unstored');
    expect(lost.storedJson).toBeUndefined();
  });

  it('feeds a mirror (the inspector’s actor) the events it takes, and stops it at a final state', () => {
    const run = new TaskRun({ hidden: true, mode: 'progress' });
    const mirrored: string[] = [];
    run.mirrorTo({ send: (event) => mirrored.push(event.type), stop: () => mirrored.push('stop') });
    run.expose();
    run.expose();
    run.beginEnding();
    run.close('{}');
    expect(mirrored).toEqual(['EXPOSE', 'END', 'STORED', 'stop']);
  });
});

describe('the machine stays data', () => {
  it('has a state for every status tag the runtime uses', () => {
    const tags: TaskRunState[] = [...TASK_RUN_STATES];
    for (const tag of tags)
      expect(() => taskRunMachine.resolveState({ value: taskRunStateValue(tag), context: { taskId: 't' } })).not.toThrow();
  });
});
