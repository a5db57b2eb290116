/**
 * Page script, part 1: the A2A client. It speaks the transport the agent card prefers
 * (JSON-RPC at `POST /` or HTTP+JSON under `/v1`) and reads SSE from a streaming fetch; there is
 * no WebSocket anywhere (spec item 11). URLs are relative to the page, so the page also works
 * behind a proxy that mounts the service under a path prefix.
 */
var JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json', 'A2A-Version': '0.3' };
var rpcSeq = 0;

/**
 * An A2A error as the page shows it: the message, and the code and HTTP status when known.
 * @param {string} message
 * @param {number} [code]
 * @param {number} [status]
 */
function A2AFailure(message, code, status) {
  /** @type {Error & { code?: number, status?: number }} */
  var err = new Error(code === undefined ? message : message + ' (code ' + code + ')');
  err.code = code;
  err.status = status;
  return err;
}

async function readJson(res) {
  var text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw A2AFailure('HTTP ' + res.status + ': the answer is not JSON');
  }
}

function rpcFailure(error, status) {
  return A2AFailure(String(error.message || 'JSON-RPC error'), error.code, status);
}

// REST errors are {code, message, ...}; an error after an SSE stream started is {error: {...}}.
function restFailure(status, body) {
  var e = body && typeof body.error === 'object' && body.error ? body.error : body;
  var message = e && typeof e.message === 'string' ? e.message : 'HTTP ' + status;
  return A2AFailure(message, e && typeof e.code === 'number' ? e.code : undefined, status);
}

function rpcBody(method, params) {
  rpcSeq += 1;
  return JSON.stringify({ jsonrpc: '2.0', id: rpcSeq, method: method, params: params });
}

async function rpc(method, params) {
  var res = await fetch('./', { method: 'POST', headers: withCredentials(JSON_HEADERS), body: rpcBody(method, params) });
  noteAuthAnswer(res.status);
  var body = await readJson(res);
  if (body && body.error) throw rpcFailure(body.error, res.status);
  if (!res.ok || !body) throw A2AFailure('HTTP ' + res.status);
  return body.result;
}

async function rest(method, path, payload) {
  var init = { method: method, headers: withCredentials(JSON_HEADERS) };
  if (payload !== undefined) init.body = JSON.stringify(payload);
  var res = await fetch(path, init);
  noteAuthAnswer(res.status);
  var body = await readJson(res);
  if (!res.ok) throw restFailure(res.status, body);
  return body;
}

// v0.3 REST may wrap a send result as {task} or {message}; this service answers bare objects.
function unwrapSendResult(result) {
  if (result && !result.kind && (result.task || result.message)) return result.task || result.message;
  return result;
}

function sseData(block) {
  var lines = block.split('\n');
  var data = [];
  for (var i = 0; i < lines.length; i++) {
    var line = lines[i];
    if (line.indexOf('data:') !== 0) continue;
    line = line.slice(5);
    data.push(line.charAt(0) === ' ' ? line.slice(1) : line);
  }
  return data.length ? data.join('\n') : undefined;
}

function createClient(transport) {
  var jsonrpc = transport === 'JSONRPC';
  return {
    transport: transport,
    send: async function (message, configuration) {
      var params = { message: message, configuration: configuration };
      return unwrapSendResult(jsonrpc ? await rpc('message/send', params) : await rest('POST', 'v1/message:send', params));
    },
    getTask: function (id) {
      return jsonrpc ? rpc('tasks/get', { id: id }) : rest('GET', 'v1/tasks/' + encodeURIComponent(id));
    },
    listTasks: function (pageSize) {
      // historyLength 0: the list only needs ids, states and times; details come from getTask.
      return jsonrpc
        ? rpc('tasks/list', { pageSize: pageSize, historyLength: 0 })
        : rest('GET', 'v1/tasks?pageSize=' + pageSize + '&historyLength=0');
    },
    // Calls onEvent with each Task, Message, status-update or artifact-update until the server
    // closes the stream.
    stream: async function (message, onEvent) {
      var headers = withCredentials(Object.assign({}, JSON_HEADERS, { Accept: 'text/event-stream' }));
      var res = await fetch(jsonrpc ? './' : 'v1/message:stream', {
        method: 'POST',
        headers: headers,
        body: jsonrpc ? rpcBody('message/stream', { message: message }) : JSON.stringify({ message: message }),
      });
      noteAuthAnswer(res.status);
      var type = res.headers.get('content-type') || '';
      if (type.indexOf('text/event-stream') !== 0) {
        // Errors found before the stream starts are plain JSON.
        var body = await readJson(res);
        if (jsonrpc && body && body.error) throw rpcFailure(body.error, res.status);
        throw restFailure(res.status, body);
      }
      var reader = res.body.getReader();
      var decoder = new TextDecoder();
      var buffer = '';
      for (;;) {
        var chunk = await reader.read();
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n/g, '\n');
        var end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          var data = sseData(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (data === undefined) continue; // a heartbeat comment or an id-only block
          var event = JSON.parse(data);
          if (jsonrpc) {
            if (event.error) throw rpcFailure(event.error);
            event = event.result;
          } else if (event && event.error && !event.kind) {
            throw restFailure(200, event);
          }
          onEvent(unwrapSendResult(event));
        }
      }
    },
  };
}

async function fetchCard() {
  var res = await fetch('.well-known/agent-card.json', { headers: { Accept: 'application/json' } });
  if (!res.ok) throw A2AFailure('the agent card answered HTTP ' + res.status);
  return res.json();
}
