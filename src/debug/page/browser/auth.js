/**
 * Page script, part 0: credentials. When the agent card declares `securitySchemes`, the page
 * shows one field for a bearer token or API key, keeps it in session storage only (gone when
 * the tab closes; never in local storage or the URL), and sends it on every request and stream.
 * A 401 or 403 says so beside the field instead of breaking the page.
 */
var CREDENTIAL_KEY = 'a2actor.debug.credential';
// header: the request header the credential travels in; prefix: what goes before it.
var auth = { header: undefined, prefix: '', label: '', value: '' };

function readStoredCredential() {
  try {
    return sessionStorage.getItem(CREDENTIAL_KEY) || '';
  } catch (e) {
    return '';
  }
}

function storeCredential(value) {
  try {
    if (value) sessionStorage.setItem(CREDENTIAL_KEY, value);
    else sessionStorage.removeItem(CREDENTIAL_KEY);
  } catch (e) {
    // Storage off (private mode, policy): the value still works for this page's life.
  }
}

// The first declared scheme the page can present: an API key in a header, or a bearer token
// (http bearer, and the OAuth2 / OpenID Connect schemes, whose access tokens are bearer tokens).
function presentableScheme(schemes) {
  var names = Object.keys(schemes || {});
  for (var i = 0; i < names.length; i++) {
    var s = schemes[names[i]] || {};
    if (s.type === 'apiKey' && s.in === 'header' && s.name) return { header: String(s.name), prefix: '', label: String(s.name) };
    var bearer = s.type === 'http' && String(s.scheme || '').toLowerCase() === 'bearer';
    if (bearer || s.type === 'oauth2' || s.type === 'openIdConnect')
      return { header: 'Authorization', prefix: 'Bearer ', label: 'Bearer token' };
  }
  return undefined;
}

function withCredentials(headers) {
  if (!auth.header || !auth.value) return headers;
  var out = Object.assign({}, headers);
  out[auth.header] = auth.prefix + auth.value;
  return out;
}

function authStatus(text, kind) {
  var status = $('auth-status');
  if (!status) return;
  status.textContent = text;
  status.className = kind ? 'auth-' + kind : '';
}

// Called with every answer's HTTP status: 401 and 403 are explained next to the field.
function noteAuthAnswer(status) {
  if (!auth.header) return;
  if (status === 401) {
    authStatus(
      auth.value
        ? 'Authentication failed: the ' + auth.label + ' was not accepted.'
        : 'Authentication required: enter a ' + auth.label + '.',
      'needed',
    );
    var input = $('auth-secret');
    if (input && document.activeElement !== input) input.focus();
  } else if (status === 403) {
    authStatus('Not allowed: this ' + auth.label + ' may not do that.', 'needed');
  }
}

function setupAuth(card, onChange) {
  var scheme = presentableScheme(card.securitySchemes);
  if (!scheme) return;
  auth.header = scheme.header;
  auth.prefix = scheme.prefix;
  auth.label = scheme.label;
  auth.value = readStoredCredential();
  var form = $('auth-form');
  form.hidden = false;
  $('auth-label').textContent = scheme.label;
  var input = $('auth-secret');
  input.value = '';
  input.placeholder = auth.value ? 'saved for this tab' : 'paste it here';
  authStatus(
    auth.value ? 'Using the saved ' + auth.label + '.' : 'Authentication required: enter a ' + auth.label + '.',
    auth.value ? 'ok' : 'needed',
  );
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var value = input.value.trim();
    if (!value) return;
    auth.value = value;
    storeCredential(value);
    input.value = '';
    input.placeholder = 'saved for this tab';
    authStatus('Using the ' + auth.label + ' you entered.', 'ok');
    onChange();
  });
  $('auth-clear').addEventListener('click', function () {
    auth.value = '';
    storeCredential('');
    input.placeholder = 'paste it here';
    authStatus('Authentication required: enter a ' + auth.label + '.', 'needed');
    onChange();
  });
}
