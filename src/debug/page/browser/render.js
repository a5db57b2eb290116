/**
 * Page script, part 2: safe DOM building. Agent output is always text (spec "safe rendering"):
 * strings become Text nodes through `append`/`textContent`, nothing is ever parsed as HTML, and
 * a file link is only made for http(s) URLs.
 */
var TERMINAL = { completed: true, failed: true, canceled: true, rejected: true };
var INTERRUPTED = { 'input-required': true, 'auth-required': true };

/**
 * The element with this id. Typed loosely on purpose: the page reads `value`, `disabled` and
 * friends off inputs, buttons and selects it knows by id.
 * @param {string} id
 * @returns {any}
 */
function $(id) {
  return document.getElementById(id);
}

/**
 * el('div', 'cls', child, 'text', ...): children that are strings become Text nodes.
 * @param {string} tag
 * @param {string} className
 * @param {...unknown} _children
 * @returns {any}
 */
function el(tag, className, ..._children) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  for (var i = 2; i < arguments.length; i++) {
    var child = arguments[i];
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === 'string' ? child : child instanceof Node ? child : String(child));
  }
  return node;
}

function badge(state) {
  var b = el('span', 'badge', state || 'unknown');
  b.dataset.state = state || 'unknown';
  return b;
}

function shortId(id) {
  return id && id.length > 12 ? '…' + id.slice(-12) : id || '';
}

function timeOf(iso) {
  var d = new Date(iso);
  return isNaN(d.getTime()) ? String(iso || '') : d.toLocaleTimeString();
}

function pretty(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch (e) {
    return String(value);
  }
}

function newMessageId() {
  if (window.crypto && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  // randomUUID needs a secure context; a page served over plain http to another host is not one.
  var b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  var hex = Array.prototype.map
    .call(b, function (x) {
      return (x + 0x100).toString(16).slice(1);
    })
    .join('');
  return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
}

function base64Size(b64) {
  var s = String(b64 || '').replace(/\s/g, '');
  var pad = s.slice(-2) === '==' ? 2 : s.slice(-1) === '=' ? 1 : 0;
  return Math.max(0, Math.floor((s.length * 3) / 4) - pad);
}

function renderFile(file) {
  file = file || {};
  var name = file.name || 'unnamed file';
  var type = file.mimeType || 'unknown type';
  var uri = file.uri || file.url;
  var box = el('div', 'part file');
  if (typeof uri === 'string' && /^https?:\/\//i.test(uri)) {
    var link = el('a', '', name);
    link.href = uri;
    link.target = '_blank';
    link.rel = 'noopener noreferrer';
    box.append(link, ' · ' + type);
  } else if (uri) {
    box.append(name + ' · ' + type + ' · ' + String(uri));
  } else {
    box.append(name + ' · ' + type + ' · ' + base64Size(file.bytes) + ' bytes');
  }
  return box;
}

function renderPart(part) {
  if (!part || typeof part !== 'object') return el('span', 'part text', String(part));
  if (part.kind === 'text' || (part.kind === undefined && typeof part.text === 'string')) return el('span', 'part text', String(part.text));
  if (part.kind === 'data') return el('pre', 'part data', pretty(part.data));
  if (part.kind === 'file') return renderFile(part.file);
  return el('pre', 'part data', pretty(part));
}

function renderParts(parts, into) {
  (Array.isArray(parts) ? parts : []).forEach(function (p) {
    into.append(renderPart(p));
  });
  return into;
}

function textOf(message) {
  return (message && Array.isArray(message.parts) ? message.parts : [])
    .filter(function (p) {
      return p && p.kind === 'text';
    })
    .map(function (p) {
      return p.text;
    })
    .join('\n');
}
