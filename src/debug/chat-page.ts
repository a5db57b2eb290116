/**
 * The /chat debug page (spec item 11): one self-contained HTML document, with its CSS and
 * script inline and no request to any other origin. Built once, when debug is first enabled.
 *
 * Its Content-Security-Policy allows exactly this document's script and style (by hash) and
 * requests to its own origin. The page never renders agent output as HTML anyway; the policy
 * is the second line: even markup that slipped through could not run a script or call out.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_POLL_SECONDS, POLL_CHOICES, TURN_POLL_MS } from './page/constants.js';
import { PAGE_BODY } from './page/markup.js';
import { SCRIPT_API } from './page/script-api.js';
import { SCRIPT_AUTH } from './page/script-auth.js';
import { SCRIPT_BOOT } from './page/script-boot.js';
import { SCRIPT_CHAT } from './page/script-chat.js';
import { SCRIPT_DASHBOARD } from './page/script-dashboard.js';
import { SCRIPT_RENDER } from './page/script-render.js';
import { PAGE_STYLE } from './page/style.js';

export interface ChatPage {
  readonly html: Buffer;
  /** Response headers: the CSP and friends. */
  readonly headers: Record<string, string>;
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

export function buildChatPage(): ChatPage {
  const constants = [
    `const POLL_CHOICES = ${JSON.stringify(POLL_CHOICES)};`,
    `const DEFAULT_POLL_SECONDS = ${JSON.stringify(DEFAULT_POLL_SECONDS)};`,
    `const TURN_POLL_MS = ${JSON.stringify(TURN_POLL_MS)};`,
  ].join('\n');
  // One function scope keeps every name out of `window`.
  const script = `\n(function () {\n'use strict';\n${constants}\n${[SCRIPT_AUTH, SCRIPT_API, SCRIPT_RENDER, SCRIPT_CHAT, SCRIPT_DASHBOARD, SCRIPT_BOOT].join('\n')}\n})();\n`;
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
