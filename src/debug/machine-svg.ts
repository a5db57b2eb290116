/**
 * The task machine drawn as inline SVG for the /chat dashboard, from `machineGraph`: states
 * placed on a fixed grid by rule, transitions as the machine defines them. The markup carries
 * no task: the page's script clones it per selected task and marks the current state and the
 * numbered path (src/debug/page/browser/machine.js). It uses classes and presentation
 * attributes only, never a `style` attribute: the page's CSP allows its one stylesheet by hash.
 */
import { eventLabel, type GraphEdge, type MachineGraph } from './machine-graph.js';

interface Point {
  readonly x: number;
  readonly y: number;
}
interface Box extends Point {
  readonly name: string;
}

const WIDTH = 640;
const HEIGHT = 370;
/** Left of the first column there is room for the initial-state dot. */
const MARGIN_LEFT = 92;
const MARGIN_RIGHT = 58;
const MARGIN_Y = 26;
const NODE_W = 106;
const NODE_H = 30;
/** Room kept around a node that an edge must not cross. */
const CLEARANCE = 8;
const LINE_HEIGHT = 11;

const escapeXml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
const num = (n: number): string => String(Math.round(n * 10) / 10);

/**
 * Columns by rule: the initial state on the left, every other non-final state one column per
 * step it is away from the initial one (so states the task pauses in sit right of `working`),
 * and the final states together on the right.
 */
function columnsOf(graph: MachineGraph): Map<string, number> {
  const finals = new Set(graph.states.filter((s) => s.final).map((s) => s.name));
  const column = new Map<string, number>([[graph.initial, 0]]);
  for (let frontier = [graph.initial]; frontier.length;) {
    const next: string[] = [];
    for (const from of frontier) {
      for (const edge of graph.edges) {
        if (edge.from !== from || finals.has(edge.to) || column.has(edge.to)) continue;
        column.set(edge.to, (column.get(from) ?? 0) + 1);
        next.push(edge.to);
      }
    }
    frontier = next;
  }
  // A state the initial one cannot reach (none today) still gets drawn, next to the initial one.
  for (const s of graph.states) if (!finals.has(s.name) && !column.has(s.name)) column.set(s.name, 1);
  const last = Math.max(0, ...column.values()) + 1;
  for (const name of finals) column.set(name, last);
  return column;
}

/** Edges a state takes part in, self-loops aside: the busiest state of a column sits mid-column. */
const degree = (graph: MachineGraph, name: string): number =>
  graph.edges.filter((e) => e.from !== e.to && (e.from === name || e.to === name)).length;

function layout(graph: MachineGraph): Map<string, Box> {
  const columns = columnsOf(graph);
  const count = Math.max(...columns.values());
  const boxes = new Map<string, Box>();
  for (let c = 0; c <= count; c++) {
    const names = graph.states.map((s) => s.name).filter((n) => columns.get(n) === c);
    const hub = names.reduce((best, n) => (degree(graph, n) > degree(graph, best) ? n : best), names[0] ?? '');
    const ordered = names.length > 2 ? names.filter((n) => n !== hub) : names;
    if (names.length > 2) ordered.splice(Math.floor(names.length / 2), 0, hub);
    const x = MARGIN_LEFT + ((WIDTH - MARGIN_LEFT - MARGIN_RIGHT) * c) / Math.max(1, count);
    ordered.forEach((name, i) => {
      // Two states share the column's full height, leaving its middle free for edges passing by.
      const y = ordered.length === 2 ? (i === 0 ? MARGIN_Y + NODE_H : HEIGHT - MARGIN_Y - NODE_H) : ((i + 0.5) * HEIGHT) / ordered.length;
      boxes.set(name, { name, x, y });
    });
  }
  return boxes;
}

/** A point of the quadratic Bézier p0 -> (c) -> p2 at t, or its polar form b(t, u) when u is given. */
function bezier(p0: Point, c: Point, p2: Point, t: number, u = t): Point {
  const a = (1 - t) * (1 - u);
  const b = (1 - t) * u + t * (1 - u);
  const d = t * u;
  return { x: a * p0.x + b * c.x + d * p2.x, y: a * p0.y + b * c.y + d * p2.y };
}

const inside = (p: Point, box: Point, pad = 0): boolean =>
  Math.abs(p.x - box.x) <= NODE_W / 2 + pad && Math.abs(p.y - box.y) <= NODE_H / 2 + pad;

interface Curve {
  readonly start: Point;
  readonly control: Point;
  readonly end: Point;
}

/**
 * The edge as a curve between the two boxes' borders. It bends a little when the opposite edge
 * exists too (so the two stay apart), and further, to one side or the other, until it clears
 * every other state.
 */
function route(from: Box, to: Box, boxes: readonly Box[], paired: boolean): Curve {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length = Math.hypot(dx, dy) || 1;
  const normal = { x: dy / length, y: -dx / length };
  const mid = { x: (from.x + to.x) / 2, y: (from.y + to.y) / 2 };
  const others = boxes.filter((b) => b !== from && b !== to);
  const bends = paired ? [16, 40, 70, 100] : [0, 40, -40, 80, -80, 120, -120];
  const controlFor = (bend: number): Point => ({ x: mid.x + normal.x * bend * 2, y: mid.y + normal.y * bend * 2 });
  const clear = (control: Point): boolean => {
    for (let i = 0; i <= 40; i++) {
      const p = bezier(from, control, to, i / 40);
      if (others.some((b) => inside(p, b, CLEARANCE))) return false;
    }
    return true;
  };
  const control = controlFor(bends.find((bend) => clear(controlFor(bend))) ?? bends[0] ?? 0);
  // Trim the curve to the boxes' borders: the first point outside `from`, the last outside `to`.
  let t0 = 0;
  let t1 = 1;
  while (t0 < 1 && inside(bezier(from, control, to, t0), from)) t0 += 0.005;
  while (t1 > t0 && inside(bezier(from, control, to, t1), to)) t1 -= 0.005;
  return { start: bezier(from, control, to, t0), control: bezier(from, control, to, t0, t1), end: bezier(from, control, to, t1) };
}

/** An edge's label: its events, one line each, those from a nested state under its name. */
function labelLines(edge: GraphEdge): string[] {
  const groups = new Map<string, string[]>();
  for (const event of edge.events) groups.set(event.via ?? '', [...(groups.get(event.via ?? '') ?? []), eventLabel(event)]);
  return [...groups].flatMap(([via, names]) => (via ? [`in ${via}:`, ...names] : names));
}

interface Rect {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}
/** Roughly what a label of these lines covers at `at` (10 px text, capitals are ~6.5 px wide). */
const labelRect = (at: Point, lines: readonly string[]): Rect => {
  const width = Math.max(...lines.map((l) => l.length)) * 6.5;
  const height = lines.length * LINE_HEIGHT;
  return { left: at.x - width / 2, right: at.x + width / 2, top: at.y - height / 2 - 2, bottom: at.y + height / 2 };
};
const overlap = (a: Rect, b: Rect): number =>
  Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));

/**
 * Where along each curve its label and its step badge go: the first of a few positions that
 * covers no state and no label placed before, or the one covering least. Edges with the longest
 * labels choose first.
 */
function placeLabels(curves: readonly { curve: Curve; lines: readonly string[] }[], taken: Rect[]): { label: Point; step: Point }[] {
  const choose = (curve: Curve, rectAt: (p: Point) => Rect, ts: readonly number[]): Point => {
    let best = { point: curve.start, cost: Infinity };
    // On the line first, then beside it on either side.
    const candidates = [0, 1, -1].flatMap((side) =>
      ts.map((t) => {
        const on = bezier(curve.start, curve.control, curve.end, t);
        const ahead = bezier(curve.start, curve.control, curve.end, Math.min(1, t + 0.01));
        const along = Math.hypot(ahead.x - on.x, ahead.y - on.y) || 1;
        const half = rectAt(on);
        const offset = side * ((half.bottom - half.top) / 2 + 3);
        return { x: on.x + ((ahead.y - on.y) / along) * offset, y: on.y - ((ahead.x - on.x) / along) * offset };
      }),
    );
    for (const point of candidates) {
      const rect = rectAt(point);
      const outside = rect.left < 0 || rect.right > WIDTH || rect.top < 0 || rect.bottom > HEIGHT ? 1e6 : 0;
      const cost = outside + taken.reduce((sum, r) => sum + overlap(rect, r), 0);
      if (cost < best.cost) best = { point, cost };
      if (cost === 0) break;
    }
    taken.push(rectAt(best.point));
    return best.point;
  };
  const order = curves.map((_, i) => i).sort((a, b) => (curves[b]?.lines.length ?? 0) - (curves[a]?.lines.length ?? 0));
  const placed: { label: Point; step: Point }[] = [];
  for (const i of order) {
    const { curve, lines } = curves[i] ?? { curve: undefined, lines: [] };
    if (!curve) continue;
    const label = choose(curve, (p) => labelRect(p, lines), [0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78]);
    placed[i] = { label, step: { x: 0, y: 0 } };
  }
  for (const i of order) {
    const curve = curves[i]?.curve;
    const at = placed[i];
    if (!curve || !at) continue;
    const badge = (p: Point): Rect => ({ left: p.x - 12, right: p.x + 12, top: p.y - 11, bottom: p.y + 11 });
    at.step = choose(curve, badge, [0.2, 0.3, 0.12, 0.8, 0.4, 0.6, 0.88]);
  }
  return placed;
}

function edgeMarkup(edge: GraphEdge, curve: Curve, lines: readonly string[], label: Point, step: Point, arrow: string): string {
  const { start, control, end } = curve;
  const top = label.y - ((lines.length - 1) * LINE_HEIGHT) / 2;
  const tspans = lines.map((line, i) => `<tspan x="${num(label.x)}" y="${num(top + i * LINE_HEIGHT)}">${escapeXml(line)}</tspan>`).join('');
  return [
    `<g class="edge" data-from="${escapeXml(edge.from)}" data-to="${escapeXml(edge.to)}" data-events="${escapeXml(edge.events.map((e) => e.type).join(' '))}">`,
    `<path class="line" d="M${num(start.x)},${num(start.y)} Q${num(control.x)},${num(control.y)} ${num(end.x)},${num(end.y)}" marker-end="url(#${arrow})"/>`,
    `<text class="edge-label">${tspans}</text>`,
    // Filled in by the page with the task's step numbers on this edge.
    `<g class="step" transform="translate(${num(step.x)},${num(step.y)})"><rect x="-9" y="-9" width="18" height="18" rx="9"/><text></text></g>`,
    `</g>`,
  ].join('');
}

function stateMarkup(box: Box, final: boolean, initial: boolean, stays: readonly string[], arrow: string): string {
  const left = box.x - NODE_W / 2;
  const top = box.y - NODE_H / 2;
  const classes = ['state', final ? 'final' : '', initial ? 'initial' : ''].filter(Boolean).join(' ');
  return [
    `<g class="${classes}" data-state="${escapeXml(box.name)}" role="img" aria-label="${escapeXml(box.name)}">`,
    initial
      ? `<circle class="start" cx="${num(left - 22)}" cy="${num(box.y)}" r="5"/><path class="line" d="M${num(left - 17)},${num(box.y)} H${num(left - 1)}" marker-end="url(#${arrow})"/>`
      : '',
    `<rect x="${num(left)}" y="${num(top)}" width="${NODE_W}" height="${NODE_H}" rx="${final ? 15 : 6}"/>`,
    final ? `<rect class="inner" x="${num(left + 3)}" y="${num(top + 3)}" width="${NODE_W - 6}" height="${NODE_H - 6}" rx="12"/>` : '',
    `<text class="name" x="${num(box.x)}" y="${num(box.y)}">${escapeXml(box.name)}</text>`,
    // Transitions that stay in the state are listed under it rather than drawn as loops.
    stays.length ? `<text class="stays" x="${num(box.x)}" y="${num(top + NODE_H + 11)}">↻ ${escapeXml(stays.join(' · '))}</text>` : '',
    `</g>`,
  ].join('');
}

/** How one drawing is named on a page that holds several: its ids' prefix and its title. */
export interface DrawingName {
  readonly id: string;
  readonly title: string;
}

const TASK_DRAWING: DrawingName = { id: 'machine', title: 'The task state machine' };

export function machineSvg(graph: MachineGraph, name: DrawingName = TASK_DRAWING): string {
  const boxes = layout(graph);
  const all = [...boxes.values()];
  const between = graph.edges.filter((e) => e.from !== e.to);
  const curves = between.map((edge) => {
    const from = boxes.get(edge.from);
    const to = boxes.get(edge.to);
    if (!from || !to) throw new Error(`no box for ${edge.from} -> ${edge.to}`);
    const paired = between.some((e) => e.from === edge.to && e.to === edge.from);
    return { curve: route(from, to, all, paired), lines: labelLines(edge) };
  });
  const stays = (name: string): string[] =>
    graph.edges.filter((e) => e.from === name && e.to === name).flatMap((e) => e.events.map(eventLabel));
  // Labels keep off the states and off the note of what stays in a state.
  const occupied: Rect[] = all.map((b) => ({
    left: b.x - NODE_W / 2 - 3,
    right: b.x + NODE_W / 2 + 3,
    top: b.y - NODE_H / 2 - 3,
    bottom: b.y + NODE_H / 2 + (stays(b.name).length ? 16 : 3),
  }));
  const places = placeLabels(curves, occupied);
  const edges = between.map((edge, i) => {
    const { curve, lines } = curves[i] ?? { curve: undefined, lines: [] };
    const place = places[i];
    if (!curve || !place) throw new Error(`edge ${edge.from} -> ${edge.to} was not placed`);
    return edgeMarkup(edge, curve, lines, place.label, place.step, `${name.id}-arrow`);
  });
  const states = graph.states.map((s) => {
    const box = boxes.get(s.name);
    if (!box) throw new Error(`no box for ${s.name}`);
    return stateMarkup(box, s.final, s.name === graph.initial, stays(s.name), `${name.id}-arrow`);
  });
  const arrow = (id: string) =>
    `<marker id="${id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,1 L10,5 L0,9 z"/></marker>`;
  const transitions = graph.edges.reduce((n, e) => n + e.events.length, 0);
  return [
    `<svg class="machine" data-machine="${escapeXml(name.id)}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${escapeXml(name.id)}-title" xmlns="http://www.w3.org/2000/svg">`,
    `<title id="${escapeXml(name.id)}-title">${escapeXml(name.title)}: ${graph.states.length} states, ${transitions} transitions</title>`,
    `<defs>${arrow(`${name.id}-arrow`)}${arrow(`${name.id}-arrow-taken`)}</defs>`,
    // Edges first, so states and their names are drawn over any line passing close by.
    ...edges,
    ...states,
    `</svg>`,
  ].join('\n');
}
