/**
 * Page script, part 6: the agent-info sidebar and start-up. The agent card decides the
 * transport (`preferredTransport`) and whether the chat streams (`capabilities.streaming`).
 */
function yesNo(value) {
  return value ? 'yes' : 'no';
}

function listText(values) {
  return Array.isArray(values) && values.length ? values.join(', ') : 'none';
}

function renderSidebar(card, transport, streaming) {
  var caps = card.capabilities || {};
  var facts = el(
    'dl',
    '',
    el('dt', '', 'version'),
    el('dd', '', String(card.version || '')),
    el('dt', '', 'protocol'),
    el('dd', '', String(card.protocolVersion || '')),
    el('dt', '', 'URL'),
    el('dd', '', String(card.url || '')),
    el('dt', '', 'preferred transport'),
    el('dd', '', String(card.preferredTransport || 'JSONRPC')),
    el('dt', '', 'streaming'),
    el('dd', '', yesNo(caps.streaming)),
    el('dt', '', 'push notifications'),
    el('dd', '', yesNo(caps.pushNotifications)),
    el('dt', '', 'state history'),
    el('dd', '', yesNo(caps.stateTransitionHistory)),
    el('dt', '', 'extended card'),
    el('dd', '', yesNo(card.supportsAuthenticatedExtendedCard)),
    el('dt', '', 'input modes'),
    el('dd', '', listText(card.defaultInputModes)),
    el('dt', '', 'output modes'),
    el('dd', '', listText(card.defaultOutputModes)),
  );
  facts.id = 'agent-facts';
  var name = el('h2', '', String(card.name || 'agent'));
  name.id = 'agent-name';
  var skills = el('div', '');
  skills.id = 'agent-skills';
  (card.skills || []).forEach(function (skill) {
    var box = el('div', 'skill', el('strong', '', String(skill.name || skill.id)), el('p', 'note', String(skill.description || '')));
    (skill.tags || []).forEach(function (tag) {
      box.append(el('span', 'tag', String(tag)));
    });
    if (skill.inputModes || skill.outputModes) {
      box.append(el('p', 'note', 'modes: ' + listText(skill.inputModes) + ' → ' + listText(skill.outputModes)));
    }
    if (Array.isArray(skill.examples) && skill.examples.length) {
      var examples = el('div', '');
      skill.examples.forEach(function (example) {
        var button = el('button', 'example', String(example));
        button.type = 'button';
        button.title = 'put this example into the message box';
        button.addEventListener('click', function () {
          var input = $('chat-input');
          input.value = String(example);
          input.focus();
        });
        examples.append(button);
      });
      box.append(examples);
    }
    skills.append(box);
  });
  $('agent-info').replaceChildren(name, el('p', '', String(card.description || '')), facts, el('h4', '', 'Skills'), skills);
  $('chat-mode').textContent =
    (transport === 'JSONRPC' ? 'JSON-RPC' : 'HTTP+JSON') + ' · ' + (streaming ? 'SSE streaming' : 'send + polling');
  document.title = String(card.name || 'agent') + ' · a2actor chat';
}

async function boot() {
  var card;
  try {
    card = await fetchCard();
  } catch (err) {
    $('chat-mode').textContent = 'no agent card';
    $('chat-log').append(el('div', 'msg error', 'Could not load the agent card: ' + (err && err.message ? err.message : String(err))));
    return;
  }
  var transport = card.preferredTransport === 'HTTP+JSON' ? 'HTTP+JSON' : 'JSONRPC';
  var streaming = Boolean(card.capabilities && card.capabilities.streaming);
  var client = createClient(transport);
  renderSidebar(card, transport, streaming);
  setupAuth(card, function () {
    void refreshDashboard();
  });
  chat.onTurnEnd = function () {
    void refreshDashboard();
  };
  startChat(client, streaming);
  startDashboard(client);
  // Tells automated checks (and curious people) that the page is wired up.
  document.body.dataset.ready = 'true';
  document.body.dataset.transport = transport;
  document.body.dataset.streaming = String(streaming);
}

void boot();
