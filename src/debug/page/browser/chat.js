/**
 * Page script, part 3: the chat. Each send has a fresh messageId. While the last task waits in
 * input-required or auth-required the next message continues it (taskId + contextId); after a
 * terminal state the next message starts a fresh task (spec state table, rule 3).
 *
 * One agent bubble per turn: streamed artifact chunks are appended to it live, a working status
 * message shows as its progress line, and the message that ends the turn (a question, a reason,
 * a direct reply) is added to it as text. Without streaming the turn is sent non-blocking and
 * its task re-read every TURN_POLL_MS, so progress shows the same way.
 */
/** @type {{ client: any, streaming: boolean, lastTask: any, current: any, onTurnEnd: (turn: unknown) => void }} */
var chat = { client: null, streaming: false, lastTask: null, current: null, onTurnEnd: function () {} };

function scrollChat() {
  var log = $('chat-log');
  log.scrollTop = log.scrollHeight;
}

function updateHint() {
  var last = chat.lastTask;
  $('chat-hint').textContent =
    last && INTERRUPTED[last.state]
      ? 'The next message continues task ' + shortId(last.id) + ' (' + last.state + ').'
      : 'The next message starts a new task.';
}

// continued: the task state the previous turn ended in, when this turn continues that task.
function Turn(continued) {
  this.continued = continued;
  // A follow-up's task still holds the earlier turns' artifacts: only changes belong to this turn.
  this.baseline = (continued && continued.artifacts) || {};
  this.taskId = undefined;
  this.contextId = undefined;
  this.state = undefined;
  this.ended = false;
  this.shown = {};
  this.artifacts = {};
  this.head = el('div', 'msg-head', 'agent');
  this.body = el('div', 'msg-body');
  this.progress = el('div', 'msg-progress', 'waiting for the agent…');
  this.bubble = el('div', 'msg agent pending', this.head, this.body, this.progress);
  $('chat-log').append(this.bubble);
  scrollChat();
}

Turn.prototype.setTask = function (id, contextId, status) {
  if (id) {
    this.taskId = id;
    this.bubble.dataset.taskId = id;
  }
  if (contextId) this.contextId = contextId;
  if (status && status.state) {
    this.state = status.state;
    this.stamp = status.timestamp;
    this.bubble.dataset.state = status.state;
  }
  this.head.replaceChildren('task ' + shortId(this.taskId), badge(this.state));
  this.head.title = this.taskId || '';
  if (chat.current === this && this.taskId) {
    chat.lastTask = { id: this.taskId, contextId: this.contextId, state: this.state, stamp: this.stamp, artifacts: this.knownArtifacts() };
    updateHint();
  }
};

// artifactId -> parts (as JSON) of the task as this turn leaves it.
Turn.prototype.knownArtifacts = function () {
  var known = Object.assign({}, this.baseline);
  for (var id in this.artifacts) known[id] = pretty(this.artifacts[id].all);
  return known;
};

// A view of a continued task that is not newer than the state the previous turn ended in shows
// that turn (its question, its artifacts), not this one: a snapshot taken as the follow-up lands.
Turn.prototype.isStale = function (status) {
  if (!this.continued || !status || !status.timestamp || !this.continued.stamp) return false;
  return Date.parse(status.timestamp) <= Date.parse(this.continued.stamp);
};

// A status message while working is progress; one that ends the turn is part of the answer.
Turn.prototype.statusMessage = function (state, message) {
  if (!message) return;
  if (state === 'working' || state === 'submitted') {
    var text = textOf(message);
    if (text) this.progress.textContent = text;
    return;
  }
  this.addMessage(message);
};

Turn.prototype.addMessage = function (message) {
  var key = message.messageId || pretty(message.parts);
  if (this.shown[key]) return;
  this.shown[key] = true;
  this.body.append(renderParts(message.parts, el('div', 'agent-text')));
  scrollChat();
};

Turn.prototype.artifactBox = function (artifact) {
  var id = artifact.artifactId || 'artifact';
  var box = this.artifacts[id];
  if (!box) {
    var label = artifact.name || (id === 'final-answer' ? '' : id);
    var parts = el('div', 'artifact-parts');
    var node = el('div', 'artifact', label ? el('div', 'artifact-name', 'artifact: ' + label) : null, parts);
    node.dataset.artifactId = id;
    box = this.artifacts[id] = { node: node, parts: parts, json: '', all: [] };
    this.body.append(node);
  }
  return box;
};

// Streaming: a chunk either starts/replaces the artifact or is appended to it.
Turn.prototype.artifactChunk = function (artifact, append) {
  var box = this.artifactBox(artifact);
  var parts = Array.isArray(artifact.parts) ? artifact.parts : [];
  if (!append) box.parts.replaceChildren();
  box.all = append ? box.all.concat(parts) : parts.slice();
  renderParts(parts, box.parts);
  scrollChat();
};

// Polling: the task carries each artifact whole; redraw only what changed.
Turn.prototype.artifactWhole = function (artifact) {
  var json = pretty(artifact.parts);
  if (this.baseline && this.baseline[artifact.artifactId] === json) return;
  var box = this.artifactBox(artifact);
  if (json === box.json) return;
  box.json = json;
  box.all = artifact.parts;
  box.parts.replaceChildren();
  renderParts(artifact.parts, box.parts);
  scrollChat();
};

Turn.prototype.task = function (task) {
  var self = this;
  if (this.isStale(task.status)) {
    this.setTask(task.id, task.contextId);
    return;
  }
  this.setTask(task.id, task.contextId, task.status);
  (task.artifacts || []).forEach(function (a) {
    self.artifactWhole(a);
  });
  if (task.status) this.statusMessage(task.status.state, task.status.message);
  if (TERMINAL[this.state] || INTERRUPTED[this.state]) this.end();
};

Turn.prototype.event = function (event) {
  if (!event) return;
  if (event.kind === 'message') {
    this.addMessage(event);
    this.end();
  } else if (event.kind === 'task') {
    this.task(event);
  } else if (event.kind === 'status-update') {
    this.setTask(event.taskId, event.contextId, event.status);
    if (event.status) this.statusMessage(event.status.state, event.status.message);
    if (event.final || TERMINAL[this.state] || INTERRUPTED[this.state]) this.end();
  } else if (event.kind === 'artifact-update') {
    this.setTask(event.taskId, event.contextId);
    this.artifactChunk(event.artifact || {}, event.append === true);
  }
};

Turn.prototype.fail = function (err) {
  this.body.append(el('div', 'note', 'error: ' + (err && err.message ? err.message : String(err))));
  this.bubble.classList.add('error');
  this.end();
};

Turn.prototype.end = function () {
  if (this.ended) return;
  this.ended = true;
  this.bubble.classList.remove('pending');
  if (!this.body.hasChildNodes()) this.body.append(el('div', 'note', this.state ? 'task ' + this.state + ', no output' : 'no answer'));
  if (chat.current === this && this.taskId) {
    this.setTask(); // records what the turn ended with for the next message
  } else if (chat.current === this) {
    // A direct reply (no task): nothing to continue.
    chat.lastTask = null;
    updateHint();
  }
  scrollChat();
  chat.onTurnEnd(this);
};

function sleep(ms) {
  return new Promise(function (resolve) {
    setTimeout(resolve, ms);
  });
}

async function pollTurn(turn) {
  while (!turn.ended) {
    await sleep(TURN_POLL_MS);
    turn.task(await chat.client.getTask(turn.taskId));
  }
}

async function runTurn(turn, message) {
  try {
    if (chat.streaming) {
      await chat.client.stream(message, function (event) {
        turn.event(event);
      });
      // A stream closed early (e.g. the server shed a slow reader): follow the task by polling.
      if (!turn.ended && turn.taskId) await pollTurn(turn);
      else if (!turn.ended) turn.fail(new Error('the stream ended without an answer'));
    } else {
      // Non-blocking, so the task id comes back at once and progress can be polled.
      var result = await chat.client.send(message, { blocking: false });
      turn.event(result);
      if (!turn.ended) await pollTurn(turn);
    }
  } catch (err) {
    turn.fail(err);
  }
}

function sendChat(text) {
  var message = { kind: 'message', role: 'user', messageId: newMessageId(), parts: [{ kind: 'text', text: text }] };
  var last = chat.lastTask;
  if (last && INTERRUPTED[last.state]) {
    message.taskId = last.id;
    message.contextId = last.contextId;
  }
  var bubble = el('div', 'msg user', text);
  if (message.taskId) bubble.dataset.taskId = message.taskId;
  $('chat-log').append(bubble);
  var turn = new Turn(message.taskId ? last : null);
  chat.current = turn;
  // Until the server answers, a message sent now could not continue anything.
  chat.lastTask = null;
  updateHint();
  void runTurn(turn, message);
}

function startChat(client, streaming) {
  chat.client = client;
  chat.streaming = streaming;
  var input = $('chat-input');
  var submit = function () {
    var text = input.value;
    if (!text.trim()) return;
    input.value = '';
    sendChat(text);
  };
  $('chat-form').addEventListener('submit', function (e) {
    e.preventDefault();
    submit();
  });
  input.addEventListener('keydown', function (e) {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  });
  input.disabled = false;
  $('send').disabled = false;
  input.focus();
}
