/**
 * The static skeleton of the debug page. Everything the agent or a task says is added later by
 * the script with `textContent`, never as markup.
 */
import { POLL_CHOICES } from './constants.js';

const pollOptions = POLL_CHOICES.map((s) => `<option value="${s}">${s} s</option>`).join('');

export const PAGE_BODY = `
<header class="top">
  <h1>a2actor <span>debug chat</span></h1>
  <form id="auth-form" class="auth" hidden autocomplete="off">
    <label for="auth-secret" id="auth-label">Credential</label>
    <input id="auth-secret" type="password" spellcheck="false">
    <button id="auth-use" type="submit">Use</button>
    <button id="auth-clear" type="button">Clear</button>
    <span id="auth-status" role="status"></span>
  </form>
  <span id="chat-mode" class="mode">loading the agent card…</span>
</header>
<main class="layout">
  <aside id="agent-info" class="panel" aria-label="Agent"><p class="empty">Loading…</p></aside>
  <section id="chat" class="panel" aria-label="Chat">
    <div id="chat-log" aria-live="polite"></div>
    <form id="chat-form" autocomplete="off">
      <textarea id="chat-input" rows="2" placeholder="Message the agent (Enter sends, Shift+Enter adds a line)" disabled></textarea>
      <button id="send" type="submit" disabled>Send</button>
    </form>
    <div id="chat-hint">The next message starts a new task.</div>
  </section>
  <section id="dashboard" class="panel" aria-label="Tasks">
    <div class="dash-head">
      <h2>Tasks <span id="task-count" class="note"></span></h2>
      <span id="dash-status" role="status"></span>
      <label>refresh every <select id="poll-interval">${pollOptions}</select></label>
    </div>
    <ul id="task-list"></ul>
    <div id="task-detail"><p class="empty">Select a task to see its state, history, artifacts and timeline.</p></div>
  </section>
</main>
`;
