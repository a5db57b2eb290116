/**
 * A machine as a graph of its top-level states, read from the XState definition itself (the
 * task machine, machines/task.machine.ts, and the task-run machine beside it), so the debug
 * page's drawings change when the machines do. Nested states (`working.running`,
 * `exposed.flushDue`) collapse into their top-level state: the wire only ever shows top-level
 * task states (`wireStateOf`), and a run's substates are drawn as what stays in its state.
 *
 * This walks the machine object (`root.states`, each node's `transitions`, which XState fills
 * from `on` and `after`) rather than using @xstate/graph: that package is a dev dependency,
 * and the page is built in production.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

export interface GraphState {
  readonly name: string;
  readonly final: boolean;
}

export interface GraphEvent {
  /** The event type as the machine names it (`xstate.after.<delay>.<id>` for a timer). */
  readonly type: string;
  /**
   * The nested state the transition leaves from, when it is not one the task is in by default
   * (`cancelling`): `working --AGENT_DONE--> canceled` only holds there. A transition that the
   * default state takes too, to the same state (`COMPLETE` from `background`), is drawn once,
   * without it.
   */
  readonly via?: string;
}

/** Every transition between two top-level states, grouped by the pair. */
export interface GraphEdge {
  readonly from: string;
  /** Equal to `from` for a transition that stays in (or inside) the state. */
  readonly to: string;
  readonly events: readonly GraphEvent[];
}

export interface MachineGraph {
  readonly initial: string;
  /** In the order the machine declares them. */
  readonly states: readonly GraphState[];
  /** In the order the machine declares them (source state, then event). */
  readonly edges: readonly GraphEdge[];
}

const topLevelOf = (node: AnyStateNode): string => node.path[0] ?? '';

/** A final state, or one whose every child is final (a run's `closed`: stored or unstored). */
const isFinal = (node: AnyStateNode): boolean =>
  node.type === 'final' || (node.type === 'compound' && Object.values(node.states).every((child) => child.type === 'final'));

/** The nodes a state enters by default: itself, its initial child, that one's initial child… */
function defaultChain(node: AnyStateNode): Set<AnyStateNode> {
  const chain = new Set<AnyStateNode>();
  for (let at: AnyStateNode | undefined = node; at; at = at.type === 'compound' ? at.initial.target[0] : undefined) chain.add(at);
  return chain;
}

function* descendants(node: AnyStateNode): Generator<AnyStateNode> {
  yield node;
  for (const child of Object.values(node.states)) yield* descendants(child);
}

export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const root = machine.root;
  const tops = Object.values(root.states);
  const edges = new Map<string, { from: string; to: string; events: GraphEvent[] }>();
  for (const top of tops) {
    const byDefault = defaultChain(top);
    for (const node of descendants(top)) {
      const via = byDefault.has(node) ? undefined : node.path.slice(1).join('.');
      for (const [type, transitions] of node.transitions) {
        for (const transition of transitions) {
          // A transition without a target runs its actions and stays where it is.
          const targets = transition.target?.length ? transition.target : [node];
          for (const target of targets) {
            const from = topLevelOf(node);
            const to = topLevelOf(target);
            const key = `${from}\n${to}`;
            const edge = edges.get(key) ?? { from, to, events: [] };
            edges.set(key, edge);
            if (!edge.events.some((e) => e.type === type && e.via === via)) edge.events.push(via ? { type, via } : { type });
          }
        }
      }
    }
  }
  for (const edge of edges.values()) {
    const byDefault = new Set(edge.events.filter((e) => e.via === undefined).map((e) => e.type));
    edge.events = edge.events.filter((e) => e.via === undefined || !byDefault.has(e.type));
  }
  return {
    initial: root.initial.target[0] ? topLevelOf(root.initial.target[0]) : '',
    states: tops.map((node) => ({ name: topLevelOf(node), final: isFinal(node) })),
    edges: [...edges.values()],
  };
}

/** A short name for an event: timers read `after <delay>`, other events keep their name. */
export function eventLabel(event: GraphEvent): string {
  const timer = /^xstate\.after\.([^.]+)\./.exec(event.type);
  return timer ? `after ${timer[1]}` : event.type;
}
