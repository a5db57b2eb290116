/**
 * The /chat debug page (spec item 11): one self-contained HTML document, with its CSS and
 * script inline and no request to any other origin. Built once, when debug is first enabled.
 *
 * Its Content-Security-Policy allows exactly this document's script and style (by hash) and
 * requests to its own origin. The page never renders agent output as HTML anyway; the policy
 * is the second line: even markup that slipped through could not run a script or call out.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { taskMachine } from '../../machines/task.machine.js';
import { taskRunMachine } from '../../machines/task-run.machine.js';
import { machineGraph } from './machine-graph.js';
import { machineSvg } from './machine-svg.js';
import { DEFAULT_POLL_SECONDS, POLL_CHOICES, TURN_POLL_MS } from './page/constants.js';
import { PAGE_BODY } from './page/markup.js';
import { PAGE_STYLE } from './page/style.js';

export interface ChatPage {
  readonly html: Buffer;
  /** Response headers: the CSP and friends. */
  readonly headers: Record<string, string>;
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The page's browser script, in the order its parts depend on each other. They are plain
 * browser JavaScript files (type-checked with the DOM types by src/debug/page/browser/
 * tsconfig.json, linted with browser globals) read once and inlined: the page stays one
 * self-contained document. The build copies them next to the compiled module.
 */
const SCRIPT_PARTS = ['auth', 'api', 'render', 'chat', 'machine', 'dashboard', 'boot'] as const;
/** A part's text without its header comment (for developers; the page need not carry it). */
const readScript = (part: string): string =>
  readFileSync(new URL(`./page/browser/${part}.js`, import.meta.url), 'utf8').replace(/^\/\*\*[\s\S]*?\*\/\n/, '');

export function buildChatPage(): ChatPage {
  const constants = [
    `const POLL_CHOICES = ${JSON.stringify(POLL_CHOICES)};`,
    `const DEFAULT_POLL_SECONDS = ${JSON.stringify(DEFAULT_POLL_SECONDS)};`,
    `const TURN_POLL_MS = ${JSON.stringify(TURN_POLL_MS)};`,
  ].join('\n');
  // The machine drawing is generated from the definition here, at start, so it is the machine
  // that runs. It is inert markup in a <template> that the script clones per task: only the
  // script and the stylesheet need CSP hashes, and neither depends on it.
  // Beside it, the runtime's lifecycle of a task in memory (machines/task-run.machine.ts).
  const runDrawing = machineSvg(machineGraph(taskRunMachine), { id: 'run', title: 'The task run (its life in the runtime)' });
  const machine = [
    `<template id="machine-template">\n${machineSvg(machineGraph(taskMachine))}\n</template>`,
    `<template id="run-template">\n${runDrawing}\n</template>`,
  ].join('\n');
  // One function scope keeps every name out of `window`.
  const script = `\n(function () {\n'use strict';\n${constants}\n${SCRIPT_PARTS.map(readScript).join('\n')}\n})();\n`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>a2actor chat</title>
<link rel="icon" href="data:,">
<style>${PAGE_STYLE}</style>
</head>
<body>
${PAGE_BODY}
${machine}
<script>${script}</script>
</body>
</html>
`;
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(PAGE_STYLE)}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    html: Buffer.from(html, 'utf8'),
    headers: {
      'Content-Security-Policy': csp,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
  };
}
