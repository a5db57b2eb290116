/**
 * Task actors as children of one supervisor (src/runtime/task-supervisor.ts): they share its
 * actor system, so nothing of a finished or stopped task may stay in that system, a stopped
 * task's delayed transition must not fire, and an inspector still sees every task actor.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { defineRuntimeTaskMachine } from '../../src/runtime/live-task.js';
import { TaskSupervisor } from '../../src/runtime/task-supervisor.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function machineWith(entered: string[] = [], forceCancelMs = 10_000) {
  return defineRuntimeTaskMachine().provide({
    actions: {
      stateEntered: (_args, params: { state: string }) => void entered.push(params.state),
      statusUpdated: () => {},
      artifactAdded: () => {},
      startAgentTurn: () => {},
      abortAgent: () => {},
    },
    delays: { forceCancelTimeout: forceCancelMs },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('TaskSupervisor', () => {
  it('runs each task actor as its child through a whole lifecycle', () => {
    const supervisor = new TaskSupervisor();
    const entered: string[] = [];
    const actor = supervisor.spawn(machineWith(entered), { input: { taskId: 't1' } });
    actor.start();
    actor.send({ type: 'START' });
    actor.send({ type: 'COMPLETE' });
    expect(entered).toEqual(['submitted', 'working', 'completed']);
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor._parent).toBeDefined();
    // A finished actor is stopped already: stopping it again is a no-op.
    supervisor.stop(actor);
    expect(actor.getSnapshot().status).toBe('done');
  });

  it('stops a paused task actor: it takes no event any more', () => {
    const supervisor = new TaskSupervisor();
    const entered: string[] = [];
    const actor = supervisor.spawn(machineWith(entered), { input: { taskId: 't1' } });
    actor.start();
    actor.send({ type: 'START' });
    actor.send({ type: 'REQUEST_INPUT' });
    supervisor.stop(actor);
    expect(actor.getSnapshot().status).toBe('stopped');
    actor.send({ type: 'FOLLOW_UP' });
    expect(entered).toEqual(['submitted', 'working', 'input-required']);
  });

  it('starts a task actor in a restored state', () => {
    const supervisor = new TaskSupervisor();
    const entered: string[] = [];
    const machine = machineWith(entered);
    const input = { taskId: 't1' };
    const actor = supervisor.spawn(machine, { input, snapshot: machine.resolveState({ value: 'input-required', context: input }) });
    actor.start();
    actor.send({ type: 'FOLLOW_UP' });
    actor.send({ type: 'COMPLETE' });
    expect(entered).toEqual(['working', 'completed']);
  });

  it("cancels a stopped task's force-cancel timer, and still fires a running one's", async () => {
    const supervisor = new TaskSupervisor();
    const stoppedEntered: string[] = [];
    const stopped = supervisor.spawn(machineWith(stoppedEntered, 30), { input: { taskId: 'stopped' } });
    const runningEntered: string[] = [];
    const running = supervisor.spawn(machineWith(runningEntered, 30), { input: { taskId: 'running' } });
    for (const actor of [stopped, running]) {
      actor.start();
      actor.send({ type: 'START' });
      actor.send({ type: 'CANCEL' });
    }
    supervisor.stop(stopped);
    await sleep(120);
    expect(stoppedEntered).toEqual(['submitted', 'working']);
    expect(runningEntered).toEqual(['submitted', 'working', 'canceled']);
  });

  it('keeps no finished, stopped or paused-then-stopped task actor alive in the shared system', async () => {
    const supervisor = new TaskSupervisor();
    const machine = machineWith();
    // Made in a function of its own: a suspended async frame may keep its last local alive.
    const refs = ((): WeakRef<object>[] => {
      const made: WeakRef<object>[] = [];
      const ends = [['COMPLETE'], ['REQUEST_INPUT', 'stop'], ['CANCEL', 'stop'], ['CANCEL', 'AGENT_DONE']] as const;
      for (let i = 0; i < 200; i++) {
        const actor = supervisor.spawn(machine, { input: { taskId: `t${i}` } });
        actor.start();
        actor.send({ type: 'START' });
        for (const step of ends[i % ends.length] ?? []) {
          if (step === 'stop') supervisor.stop(actor);
          else actor.send({ type: step });
        }
        made.push(new WeakRef(actor));
      }
      return made;
    })();
    // WeakRefs hold their target until the current job ends.
    await sleep(0);
    gc();
    expect(refs.flatMap((r, i) => (r.deref() === undefined ? [] : [i]))).toEqual([]);
  });

  it('sends the supervisor and every task actor, event and snapshot to an inspector', () => {
    const supervisor = new TaskSupervisor();
    const seen: InspectionEvent[] = [];
    supervisor.inspect((event) => void seen.push(event));
    const actors = ['a', 'b'].map((taskId) => supervisor.spawn(machineWith(), { input: { taskId } }));
    for (const actor of actors) {
      actor.start();
      actor.send({ type: 'START' });
      actor.send({ type: 'COMPLETE' });
    }
    const created = seen.filter((e) => e.type === '@xstate.actor').map((e) => e.actorRef);
    expect(created).toHaveLength(3);
    expect(created.slice(1)).toEqual(actors);
    for (const actor of actors) {
      const events = seen.flatMap((e) => (e.type === '@xstate.event' && e.actorRef === actor ? [e.event.type] : []));
      expect(events).toEqual(['xstate.init', 'START', 'COMPLETE']);
      const last = seen.filter((e) => e.type === '@xstate.snapshot' && e.actorRef === actor).at(-1);
      expect(last?.type === '@xstate.snapshot' && last.snapshot).toMatchObject({ value: 'completed', status: 'done' });
    }
  });
});
