/**
 * Page script, part 5: the task dashboard. `tasks/list` is polled at the chosen interval
 * (`?poll=<seconds>` sets the first one, spec item 11) and right after each chat turn; the
 * selected task is re-read with `tasks/get` on every refresh. Metadata keys starting with `_`
 * are internal and never shown (spec "Task" resource).
 */
var LIST_PAGE_SIZE = 50;
var dash = {
  client: null,
  seconds: DEFAULT_POLL_SECONDS,
  timer: undefined,
  selected: undefined,
  listJson: '',
  detailJson: '',
  running: false,
  again: false,
};

// The allowed choice nearest to what ?poll= asked for.
function initialPollSeconds() {
  var asked = parseFloat(new URLSearchParams(location.search).get('poll') || '');
  if (!isFinite(asked) || asked <= 0) return DEFAULT_POLL_SECONDS;
  return POLL_CHOICES.reduce(function (best, s) {
    return Math.abs(s - asked) < Math.abs(best - asked) ? s : best;
  }, POLL_CHOICES[0]);
}

function schedulePoll() {
  clearTimeout(dash.timer);
  dash.timer = setTimeout(function () {
    // A hidden tab does not poll; it refreshes when it is shown again.
    if (document.hidden) return;
    refreshDashboard().finally(schedulePoll);
  }, dash.seconds * 1000);
}

// Refreshes never overlap; one asked for during a refresh runs right after it.
async function refreshDashboard() {
  if (dash.running) {
    dash.again = true;
    return;
  }
  dash.running = true;
  try {
    do {
      dash.again = false;
      await refreshOnce();
    } while (dash.again);
  } finally {
    dash.running = false;
  }
}

async function refreshOnce() {
  try {
    renderList(await dash.client.listTasks(LIST_PAGE_SIZE));
    if (dash.selected) renderDetail(await dash.client.getTask(dash.selected));
    $('dash-status').textContent = '';
  } catch (err) {
    var status = err && err.status;
    $('dash-status').textContent =
      status === 401
        ? 'authentication required: enter a ' + (auth.label || 'credential') + ' above'
        : status === 403
          ? 'not allowed to list tasks'
          : 'refresh failed: ' + (err && err.message ? err.message : String(err));
  }
}

function renderList(result) {
  var tasks = (result && result.tasks) || [];
  var json = pretty(
    tasks.map(function (t) {
      return [t.id, t.status && t.status.state, t.status && t.status.timestamp];
    }),
  );
  var total = result && typeof result.totalSize === 'number' ? result.totalSize : tasks.length;
  $('task-count').textContent = total > tasks.length ? '(' + tasks.length + ' of ' + total + ')' : '(' + total + ')';
  if (json === dash.listJson) return;
  dash.listJson = json;
  var list = $('task-list');
  list.replaceChildren();
  tasks.forEach(function (t) {
    var state = t.status && t.status.state;
    var li = el(
      'li',
      t.id === dash.selected ? 'selected' : '',
      badge(state),
      el('span', 'task-id', shortId(t.id)),
      el('span', 'task-time', timeOf(t.status && t.status.timestamp)),
    );
    li.dataset.taskId = t.id;
    li.dataset.state = state || '';
    li.title = t.id;
    li.addEventListener('click', function () {
      selectTask(t.id);
    });
    list.append(li);
  });
}

function selectTask(id) {
  dash.selected = id;
  dash.detailJson = '';
  Array.prototype.forEach.call($('task-list').children, function (li) {
    li.classList.toggle('selected', li.dataset.taskId === id);
  });
  void refreshDashboard();
}

function section(title, content) {
  return [el('h4', '', title), content];
}

function renderTimeline(transitions) {
  var list = el('ol', '');
  list.id = 'timeline';
  var previous;
  (Array.isArray(transitions) ? transitions : []).forEach(function (t) {
    var at = new Date(t && t.timestamp).getTime();
    var delta = previous !== undefined && isFinite(at) ? ' +' + (at - previous) + ' ms' : '';
    if (isFinite(at)) previous = at;
    var li = el('li', '', badge(t && t.state), ' ' + timeOf(t && t.timestamp), el('span', 'delta', delta));
    li.dataset.state = (t && t.state) || '';
    list.append(li);
  });
  if (!list.hasChildNodes()) list.append(el('li', 'empty', 'no transitions recorded'));
  return list;
}

function renderMetadata(metadata) {
  var shown = {};
  var hidden = 0;
  Object.keys(metadata || {}).forEach(function (key) {
    if (key.charAt(0) === '_') hidden += 1;
    else if (key !== 'stateTransitions') shown[key] = metadata[key];
  });
  var box = el('div', '');
  box.id = 'metadata';
  box.append(Object.keys(shown).length ? el('pre', '', pretty(shown)) : el('p', 'empty', 'no other metadata'));
  if (hidden) box.append(el('p', 'note', hidden + (hidden === 1 ? ' internal key' : ' internal keys') + ' hidden'));
  return box;
}

function renderDetail(task) {
  var json = pretty(task);
  if (json === dash.detailJson || !task || task.id !== dash.selected) return;
  dash.detailJson = json;
  var status = task.status || {};
  var facts = el(
    'dl',
    '',
    el('dt', '', 'id'),
    el('dd', 'task-id', task.id),
    el('dt', '', 'context'),
    el('dd', 'task-id', task.contextId || ''),
    el('dt', '', 'state'),
    el('dd', '', badge(status.state)),
    el('dt', '', 'updated'),
    el('dd', '', status.timestamp ? new Date(status.timestamp).toLocaleString() : ''),
  );
  var statusMessage = status.message ? renderParts(status.message.parts, el('div', 'agent-text')) : el('p', 'empty', 'none');
  statusMessage.id = 'detail-status-message';
  var messages = el('div', '');
  (task.history || []).forEach(function (m) {
    var item = el('div', 'history-item', el('div', 'role', m.role || ''), renderParts(m.parts, el('div', 'agent-text')));
    item.dataset.role = m.role || '';
    messages.append(item);
  });
  if (!messages.hasChildNodes()) messages.append(el('p', 'empty', 'none'));
  var artifacts = el('div', '');
  (task.artifacts || []).forEach(function (a) {
    var label = a.artifactId + (a.name && a.name !== a.artifactId ? ' (' + a.name + ')' : '');
    var node = el(
      'div',
      'history-item',
      el('div', 'role', label),
      a.description ? el('div', 'note', a.description) : null,
      renderParts(a.parts, el('div', 'agent-text')),
    );
    node.dataset.artifactId = a.artifactId;
    artifacts.append(node);
  });
  if (!artifacts.hasChildNodes()) artifacts.append(el('p', 'empty', 'none'));
  var detail = $('task-detail');
  detail.dataset.taskId = task.id;
  detail.dataset.state = status.state || '';
  detail.replaceChildren.apply(
    detail,
    [el('h3', '', 'Task')].concat(
      [facts],
      section('Status message', statusMessage),
      section('State machine', renderMachine(task)),
      section('Task run', renderRun(task)),
      section('State transitions', renderTimeline(task.metadata && task.metadata.stateTransitions)),
      section('History', messages),
      section('Artifacts', artifacts),
      section('Metadata', renderMetadata(task.metadata)),
    ),
  );
}

function startDashboard(client) {
  dash.client = client;
  dash.seconds = initialPollSeconds();
  var select = $('poll-interval');
  select.value = String(dash.seconds);
  select.addEventListener('change', function () {
    dash.seconds = Number(select.value);
    // Keep the choice in the address, so a reload or a shared link keeps it.
    var url = new URL(location.href);
    url.searchParams.set('poll', select.value);
    history.replaceState(null, '', url);
    schedulePoll();
  });
  document.addEventListener('visibilitychange', function () {
    if (!document.hidden) void refreshDashboard().finally(schedulePoll);
  });
  void refreshDashboard().finally(schedulePoll);
}
