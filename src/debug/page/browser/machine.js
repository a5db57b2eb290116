/**
 * Page script, part 4: the task machine of the selected task, and its run in the runtime. The server draws the machine from
 * its definition into <template id="machine-template"> (src/debug/machine-svg.ts); this clones
 * the drawing, marks the task's current state and the states it went through, and numbers the
 * transitions it took, in order, from its `metadata.stateTransitions` timeline.
 */

/**
 * The timeline's states, in order.
 * @param {unknown} transitions
 * @returns {string[]}
 */
function pathOf(transitions) {
  return (Array.isArray(transitions) ? transitions : [])
    .map(function (t) {
      return t && typeof t.state === 'string' ? t.state : '';
    })
    .filter(Boolean);
}

/**
 * The numbered steps per drawn edge (`from>to` -> [1, 3]), and the steps with no edge drawn
 * (a runtime record written outside the machine, e.g. a task failed on recovery).
 */
function stepsOf(path, svg) {
  var onEdge = new Map();
  var offMachine = [];
  for (var i = 1; i < path.length; i++) {
    var key = path[i - 1] + '>' + path[i];
    var edge = findEdge(svg, path[i - 1], path[i]);
    if (!edge) offMachine.push(i + '. ' + path[i - 1] + ' → ' + path[i]);
    else onEdge.set(key, (onEdge.get(key) || []).concat([i]));
  }
  return { onEdge: onEdge, offMachine: offMachine };
}

function findEdge(svg, from, to) {
  return Array.prototype.find.call(svg.querySelectorAll('.edge'), function (edge) {
    return edge.getAttribute('data-from') === from && edge.getAttribute('data-to') === to;
  });
}

function markStates(svg, current, path) {
  svg.querySelectorAll('.state').forEach(function (node) {
    var name = node.getAttribute('data-state');
    var isCurrent = name === current;
    var visited = path.indexOf(name) >= 0;
    node.classList.toggle('current', isCurrent);
    node.classList.toggle('visited', visited);
    node.setAttribute('aria-label', name + (isCurrent ? ', the current state' : visited ? ', visited' : ''));
  });
}

function markSteps(svg, onEdge) {
  onEdge.forEach(function (numbers, key) {
    var ends = key.split('>');
    var edge = findEdge(svg, ends[0], ends[1]);
    var label = numbers.join(',');
    edge.classList.add('taken');
    edge.setAttribute('data-steps', label);
    edge.querySelector('.line').setAttribute('marker-end', 'url(#machine-arrow-taken)');
    var step = edge.querySelector('.step');
    step.querySelector('text').textContent = label;
    // A pill as wide as the numbers it holds.
    var width = Math.max(18, 7 * label.length + 8);
    var rect = step.querySelector('rect');
    rect.setAttribute('width', String(width));
    rect.setAttribute('x', String(-width / 2));
  });
}

function renderMachine(task) {
  var figure = el('figure', '');
  figure.id = 'machine';
  var template = $('machine-template');
  var drawing = template && template.content.firstElementChild;
  if (!drawing) return figure;
  var svg = drawing.cloneNode(true);
  var current = (task.status && task.status.state) || '';
  var path = pathOf(task.metadata && task.metadata.stateTransitions);
  var steps = stepsOf(path, svg);
  markStates(svg, current, path);
  markSteps(svg, steps.onEdge);
  var now = el('figcaption', '', 'Current state: ', badge(current), path.length > 1 ? ' · path: ' + path.join(' → ') : '');
  now.id = 'machine-now';
  now.dataset.state = current;
  if (steps.offMachine.length) now.append(el('span', 'note', ' · not a machine transition: ' + steps.offMachine.join(', ')));
  figure.append(svg, now);
  return figure;
}

/**
 * Where the task's run stands (machines/task-run.machine.ts), as far as a client can tell: a
 * task it can see at all is no longer `hidden`; while it is submitted or working it is
 * `exposed`; a paused or terminal task it reads was `closed` with its final write stored (a
 * write that was lost is answered with an error, not with the task).
 * @param {string} state
 * @returns {string}
 */
function runStateOf(state) {
  return state === 'submitted' || state === 'working' ? 'exposed' : 'closed';
}

function renderRun(task) {
  var figure = el('figure', '');
  figure.id = 'run';
  var template = $('run-template');
  var drawing = template && template.content.firstElementChild;
  if (!drawing) return figure;
  var svg = drawing.cloneNode(true);
  var current = runStateOf((task.status && task.status.state) || '');
  markStates(svg, current, [current]);
  var now = el('figcaption', '', 'In the runtime: ', badge(current));
  now.id = 'run-now';
  now.dataset.state = current;
  figure.append(svg, now);
  return figure;
}
