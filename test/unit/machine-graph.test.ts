/**
 * The debug page's drawing of the task machine is read from the machine: its states and its
 * transitions are exactly those @xstate/graph finds by running the machine, so a state or a
 * transition added to or lost from machines/task.machine.ts changes the drawing.
 */
import { getAdjacencyMap } from '@xstate/graph';
import { setup, type AnyMachineSnapshot } from 'xstate';
import { describe, expect, it } from 'vitest';
import { TASK_MACHINE_EVENT_TYPES, taskMachine, wireStateOf, type TaskMachineEvent } from '../../machines/task.machine.js';
import { TASK_RUN_EVENT_TYPES, taskRunMachine, type TaskRunEvent } from '../../machines/task-run.machine.js';
import { eventLabel, machineGraph } from '../../src/debug/machine-graph.js';
import { machineSvg } from '../../src/debug/machine-svg.js';

const FORCE_CANCEL = 'xstate.after.forceCancelTimeout.task.working.cancelling';

/** Every transition out of every reachable state as `from|event|to` of top-level states, found by running the machine. */
function walkedEdges(): Set<string> {
  const events = [...TASK_MACHINE_EVENT_TYPES, FORCE_CANCEL].map((type) => ({ type })) as TaskMachineEvent[];
  const edges = new Set<string>();
  for (const node of Object.values(getAdjacencyMap(taskMachine, { events, input: { taskId: 'graph' } }))) {
    const before = node.state as AnyMachineSnapshot;
    for (const step of Object.values(node.transitions) as { event: { type: string }; state: unknown }[]) {
      if (!before.can(step.event)) continue;
      const after = step.state as AnyMachineSnapshot;
      edges.add(
        `${wireStateOf(before.value as string | Record<string, unknown>)}|${step.event.type}|${wireStateOf(after.value as string | Record<string, unknown>)}`,
      );
    }
  }
  return edges;
}

const graphEdges = (graph: ReturnType<typeof machineGraph>): Set<string> =>
  new Set(graph.edges.flatMap((e) => e.events.map((ev) => `${e.from}|${ev.type}|${e.to}`)));

describe('the machine graph of the debug page', () => {
  const graph = machineGraph(taskMachine);

  it('has exactly the machine’s top-level states, the initial and the final ones', () => {
    expect(graph.states.map((s) => s.name)).toEqual(Object.keys(taskMachine.root.states));
    expect(graph.initial).toBe('submitted');
    expect(graph.states.filter((s) => s.final).map((s) => s.name)).toEqual(['completed', 'failed', 'canceled', 'rejected']);
  });

  it('has every transition the running machine takes, and no other', () => {
    const walked = walkedEdges();
    const drawn = graphEdges(graph);
    expect([...drawn].filter((e) => !walked.has(e))).toEqual([]);
    expect([...walked].filter((e) => !drawn.has(e))).toEqual([]);
  });

  it('collapses nested states and says which nested state a transition leaves from', () => {
    const toCanceled = graph.edges.find((e) => e.from === 'working' && e.to === 'canceled');
    expect(toCanceled?.events.map((e) => [e.via, eventLabel(e)])).toEqual([
      ['background', 'CANCEL'],
      ['cancelling', 'AGENT_DONE'],
      ['cancelling', 'AGENT_DETACHED'],
      ['cancelling', 'AGENT_FAILED'],
      ['cancelling', 'after forceCancelTimeout'],
    ]);
    // Events of the state a task is in by default (working.running) need no qualifier, and the
    // same event from another nested state to the same state (background) is not drawn twice.
    expect(graph.edges.find((e) => e.from === 'working' && e.to === 'input-required')?.events).toEqual([{ type: 'REQUEST_INPUT' }]);
    expect(graph.edges.find((e) => e.from === 'working' && e.to === 'completed')?.events).toEqual([
      { type: 'COMPLETE' },
      { type: 'AGENT_DONE' },
    ]);
    // The turn that continues in the background stays in working.
    expect(graph.edges.find((e) => e.from === 'working' && e.to === 'working')?.events).toContainEqual({ type: 'AGENT_DETACHED' });
  });

  it('draws one edge per pair of different states, a node per state, and the stays-in events as a note', () => {
    const svg = machineSvg(graph);
    const pairs = graph.edges.filter((e) => e.from !== e.to);
    const drawn = [...svg.matchAll(/<g class="edge" data-from="([^"]+)" data-to="([^"]+)"/g)].map((m) => `${m[1]}>${m[2]}`);
    expect(drawn.sort()).toEqual(pairs.map((e) => `${e.from}>${e.to}`).sort());
    const nodes = [...svg.matchAll(/<g class="state[^"]*" data-state="([^"]+)" role="img" aria-label="([^"]+)"/g)].map((m) => m[1]);
    expect(nodes).toEqual(graph.states.map((s) => s.name));
    expect(svg).toContain('<title id="machine-title">');
    expect(svg).toContain('↻ STATUS · ARTIFACT · AGENT_DETACHED · CANCEL');
    expect(svg).not.toMatch(/\sstyle=/);
  });

  it('follows the machine: another machine draws other states and edges', () => {
    const other = setup({}).createMachine({
      id: 'other',
      initial: 'idle',
      states: {
        idle: { on: { GO: 'busy' } },
        busy: { on: { PAUSE: 'waiting', DONE: 'done' } },
        waiting: { on: { RESUME: 'busy' } },
        done: { type: 'final' },
      },
    });
    const g = machineGraph(other);
    expect(g.states.map((s) => s.name)).toEqual(['idle', 'busy', 'waiting', 'done']);
    expect([...graphEdges(g)].sort()).toEqual(['busy|DONE|done', 'busy|PAUSE|waiting', 'idle|GO|busy', 'waiting|RESUME|busy']);
    expect(machineSvg(g)).toContain('data-from="waiting" data-to="busy"');
  });
});

describe('the task-run machine on the debug page', () => {
  const graph = machineGraph(taskRunMachine);

  it('has the run’s top-level states, hidden first, and closed, replaced and stopped as final', () => {
    expect(graph.states.map((s) => s.name)).toEqual(['hidden', 'exposed', 'ending', 'closed', 'replaced', 'stopped']);
    expect(graph.initial).toBe('hidden');
    expect(graph.states.filter((s) => s.final).map((s) => s.name)).toEqual(['closed', 'replaced', 'stopped']);
  });

  it('has every transition the running machine takes between top-level states, and no other', () => {
    const events = TASK_RUN_EVENT_TYPES.map((type) => ({ type })) as TaskRunEvent[];
    const top = (value: unknown): string => (typeof value === 'string' ? value : (Object.keys(value as object)[0] ?? ''));
    const walked = new Set<string>();
    for (const node of Object.values(getAdjacencyMap(taskRunMachine, { events, input: { taskId: 'graph' } }))) {
      const before = node.state as AnyMachineSnapshot;
      for (const step of Object.values(node.transitions) as { event: { type: string }; state: unknown }[]) {
        if (!before.can(step.event)) continue;
        walked.add(`${top(before.value)}|${step.event.type}|${top((step.state as AnyMachineSnapshot).value)}`);
      }
    }
    expect([...graphEdges(graph)].sort()).toEqual([...walked].sort());
  });

  it('draws it with ids of its own, beside the task machine', () => {
    const svg = machineSvg(graph, { id: 'run', title: 'The task run' });
    expect(svg).toContain('<title id="run-title">The task run: 6 states');
    expect(svg).toContain('marker-end="url(#run-arrow)"');
    expect(svg).not.toContain('machine-arrow');
    expect(svg).toContain('data-from="ending" data-to="closed"');
    expect(svg).toContain('↻ FLUSH_DUE · FLUSHED');
  });
});
