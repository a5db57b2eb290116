/**
 * The debug page's stylesheet. It is inlined into the document (no external requests, spec
 * item 11), so it is plain CSS in a string.
 */
export const PAGE_STYLE = String.raw`
:root {
  --bg: #f5f6f8; --panel: #fff; --line: #dde1e6; --text: #1d2329; --muted: #66707a;
  --accent: #2f6fde; --user: #2f6fde; --agent: #eef1f4; --error: #c62828;
  --ok: #2e7d32; --warn: #b26a00; --idle: #78838e;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--text); background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; height: 100vh; display: flex; flex-direction: column; }
h1, h2, h3, h4 { margin: 0; font-weight: 600; }
h1 { font-size: 16px; } h2 { font-size: 15px; } h3 { font-size: 14px; } h4 { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; margin: 12px 0 4px; }
pre { margin: 0; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; word-break: break-word; }
.top { display: flex; align-items: center; gap: 12px; padding: 8px 16px; background: #1d2329; color: #fff; }
.top h1 span { font-weight: 400; color: #aab4be; }
.mode { margin-left: auto; font-size: 12px; color: #cfd6dd; }
.auth { display: flex; align-items: center; gap: 6px; font-size: 12px; }
.auth[hidden] { display: none; }
.auth input { font: inherit; width: 180px; padding: 2px 6px; border-radius: 4px; border: 1px solid #56606a; }
.auth button { font: inherit; padding: 2px 8px; border-radius: 4px; border: 1px solid #56606a; background: #2b333b; color: #fff; cursor: pointer; }
#auth-status.auth-needed { color: #ffcc80; } #auth-status.auth-ok { color: #a5d6a7; }
.layout { flex: 1; min-height: 0; display: grid; grid-template-columns: 260px minmax(320px, 1fr) minmax(360px, 1.1fr); gap: 8px; padding: 8px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; min-height: 0; display: flex; flex-direction: column; overflow: hidden; }
#agent-info { padding: 12px; overflow: auto; display: block; }
#agent-info p { margin: 4px 0 8px; color: var(--muted); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 0; }
dt { color: var(--muted); } dd { margin: 0; word-break: break-all; }
.skill { border-top: 1px solid var(--line); padding: 6px 0; }
.skill p { margin: 2px 0; }
.tag { display: inline-block; font-size: 11px; padding: 0 6px; margin: 2px 4px 0 0; border-radius: 8px; background: var(--agent); }
.example { font: inherit; font-size: 12px; margin: 2px 4px 0 0; padding: 1px 6px; border: 1px solid var(--line); border-radius: 4px; background: #fff; cursor: pointer; }
#chat-log { flex: 1; overflow: auto; padding: 12px; display: flex; flex-direction: column; gap: 8px; }
.msg { max-width: 85%; padding: 8px 10px; border-radius: 8px; white-space: normal; word-break: break-word; }
.msg.user { align-self: flex-end; background: var(--user); color: #fff; white-space: pre-wrap; }
.msg.agent { align-self: flex-start; background: var(--agent); }
.msg.error { align-self: stretch; max-width: none; background: #fdecea; color: var(--error); }
.msg-head { font-size: 11px; color: var(--muted); margin-bottom: 4px; display: flex; gap: 6px; align-items: center; }
.msg-progress { font-size: 12px; color: var(--muted); font-style: italic; }
.msg.agent:not(.pending) .msg-progress { display: none; }
.msg.pending .msg-head::after { content: ""; width: 8px; height: 8px; border-radius: 50%; background: var(--accent); animation: pulse 1s infinite alternate; }
@keyframes pulse { from { opacity: .2; } to { opacity: 1; } }
.agent-text { white-space: pre-wrap; }
.part.text { white-space: pre-wrap; }
.part.data, .part.file { display: block; margin: 4px 0; padding: 6px; background: #fff; border: 1px solid var(--line); border-radius: 4px; }
.artifact + .artifact, .agent-text + .artifact, .artifact + .agent-text { margin-top: 6px; }
.artifact-name { font-size: 11px; color: var(--muted); }
.note { font-size: 12px; color: var(--muted); }
#chat-form { display: flex; gap: 8px; padding: 8px; border-top: 1px solid var(--line); }
#chat-input { flex: 1; resize: vertical; font: inherit; padding: 6px 8px; border: 1px solid var(--line); border-radius: 4px; }
#send { font: inherit; padding: 0 16px; border: 0; border-radius: 4px; background: var(--accent); color: #fff; cursor: pointer; }
#send:disabled { background: var(--idle); cursor: default; }
#chat-hint { padding: 0 8px 8px; font-size: 12px; color: var(--muted); }
.dash-head { display: flex; align-items: center; gap: 10px; padding: 8px 12px; border-bottom: 1px solid var(--line); }
.dash-head label { margin-left: auto; font-size: 12px; color: var(--muted); }
#dash-status { font-size: 12px; color: var(--error); }
#task-list { list-style: none; margin: 0; padding: 0; max-height: 36%; overflow: auto; border-bottom: 1px solid var(--line); flex-shrink: 0; }
#task-list li { display: flex; gap: 8px; align-items: center; padding: 4px 12px; cursor: pointer; border-bottom: 1px solid #f0f2f4; }
#task-list li:hover { background: #f7f9fb; }
#task-list li.selected { background: #e6efff; }
.task-id { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.task-time { margin-left: auto; font-size: 12px; color: var(--muted); }
#task-detail { flex: 1; overflow: auto; padding: 12px; }
.empty { color: var(--muted); }
.badge { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; color: #fff; background: var(--idle); white-space: nowrap; }
.badge[data-state="working"], .badge[data-state="submitted"] { background: var(--accent); }
.badge[data-state="input-required"], .badge[data-state="auth-required"] { background: var(--warn); }
.badge[data-state="completed"] { background: var(--ok); }
.badge[data-state="failed"], .badge[data-state="rejected"] { background: var(--error); }
#timeline { margin: 0; padding-left: 18px; }
#timeline li { margin: 1px 0; }
.delta { color: var(--muted); font-size: 12px; }
.history-item { border-left: 3px solid var(--line); padding: 2px 8px; margin: 4px 0; }
.history-item[data-role="user"] { border-color: var(--user); }
.role { font-size: 11px; color: var(--muted); }
#machine { margin: 0; }
#machine-now, #run-now { margin: 4px 0 0; font-size: 12px; }
#run { margin: 0; }
.machine { display: block; width: 100%; height: auto; max-width: 720px; }
.machine text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; text-anchor: middle; }
.machine .state rect { fill: #fff; stroke: #9aa4ae; stroke-width: 1.2; }
.machine .state rect.inner { fill: none; }
.machine .state .name { font-size: 12.5px; fill: var(--text); dominant-baseline: central; }
.machine .state .stays { font-size: 10px; fill: var(--muted); }
.machine .state .start { fill: var(--text); }
.machine .state.visited rect { stroke: var(--accent); stroke-width: 1.8; }
.machine .state.current rect { fill: var(--accent); stroke: var(--accent); }
.machine .state.current[data-state="input-required"] rect, .machine .state.current[data-state="auth-required"] rect { fill: var(--warn); stroke: var(--warn); }
.machine .state.current[data-state="completed"] rect { fill: var(--ok); stroke: var(--ok); }
.machine .state.current[data-state="failed"] rect, .machine .state.current[data-state="rejected"] rect { fill: var(--error); stroke: var(--error); }
.machine .state.current[data-state="canceled"] rect { fill: var(--idle); stroke: var(--idle); }
.machine .state.current rect.inner { fill: none; stroke: #fff; }
.machine .state.current .name { fill: #fff; font-weight: 600; }
.machine .line { fill: none; stroke: #aab3bc; stroke-width: 1.2; }
.machine marker path { fill: #aab3bc; }
.machine #machine-arrow-taken path { fill: var(--accent); }
.machine .edge.taken .line { stroke: var(--accent); stroke-width: 2.2; }
.machine .edge-label { font-size: 10px; fill: var(--muted); paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
.machine .edge.taken .edge-label { fill: var(--text); }
.machine .step { display: none; }
.machine .edge.taken .step { display: inline; }
.machine .step rect { fill: var(--accent); stroke: #fff; stroke-width: 1.5; }
.machine .step text { font-size: 10.5px; font-weight: 700; fill: #fff; dominant-baseline: central; }
@media (max-width: 1000px) {
  body { height: auto; }
  .layout { grid-template-columns: 1fr; }
  .panel { max-height: none; }
  #chat-log { min-height: 300px; }
}
`;
