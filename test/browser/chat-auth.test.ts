/**
 * The /chat page in Chromium against examples/auth-agent.ts (bearer tokens for alice and bob):
 * without a token it says authentication is required instead of breaking; with alice's token it
 * chats as alice, sends the token on every request and stream, shows only alice's tasks, and
 * keeps the token in session storage only.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import authAgent from '../../examples/auth-agent.js';
import { apiKeyAuth } from '../../src/index.js';
import { userMessage, type Json } from '../support/a2a.js';
import { browserMissing, ChatPage, launchChromium } from '../support/browser.js';
import { startServer, type TestServer } from '../support/server.js';

const NO_BROWSER = browserMissing('browser suite (auth)');

const MODES = [
  { preferredTransport: 'JSONRPC', streaming: true },
  { preferredTransport: 'HTTP+JSON', streaming: false },
] as const;

describe.skipIf(NO_BROWSER)('the /chat page with bearer auth, in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe.each(MODES)('preferredTransport $preferredTransport, streaming $streaming', ({ preferredTransport, streaming }) => {
    let server: TestServer;
    let bobTaskId: string;
    beforeAll(async () => {
      server = await startServer({ agent: authAgent, debug: true, preferredTransport, streaming });
      const res = await fetch(`${server.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer bob-token' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: userMessage('echo from bob') } }),
      });
      bobTaskId = ((await res.json()) as Json).result.id;
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('asks for a token, then chats as alice, sending it everywhere and showing only her tasks', async () => {
      const chat = await ChatPage.open(browser, server.url);
      const { page } = chat;
      const authorizations: (string | undefined)[] = [];
      page.on('request', (req) => {
        const path = new URL(req.url()).pathname;
        if (path === '/' ? req.method() === 'POST' : path.startsWith('/v1/')) authorizations.push(req.headers().authorization);
      });
      try {
        // No token yet: the field is there and the page says what is missing.
        await expect.poll(() => page.locator('#auth-form').isVisible()).toBe(true);
        expect(await page.locator('#auth-label').textContent()).toBe('Bearer token');
        await expect.poll(() => page.locator('#auth-status').textContent()).toMatch(/^Authentication required: enter a Bearer token/);
        await expect.poll(() => page.locator('#dash-status').textContent()).toMatch(/^authentication required/);
        await page.locator('#chat-input').fill('whoami');
        await page.locator('#chat-input').press('Enter');
        await page.locator('#chat-log .msg.error, #chat-log .msg.agent:not(.pending)').first().waitFor();
        expect(await page.locator('#chat-log').textContent()).toMatch(/Authentication required/);

        // Alice's token: the chat answers as alice, the dashboard lists her task and not bob's.
        await page.locator('#auth-secret').fill('alice-token');
        await page.locator('#auth-use').click();
        await expect.poll(() => page.locator('#auth-status').textContent()).toMatch(/^Using the Bearer token/);
        const reply = await chat.send('whoami');
        expect((await reply.locator('.msg-body').textContent())?.trim()).toBe('you are alice');
        const aliceTaskId = await reply.getAttribute('data-task-id');
        expect(aliceTaskId).toBeTruthy();
        await chat.taskRow(aliceTaskId!, 'completed');
        await expect.poll(() => page.locator('#dash-status').textContent()).toBe('');
        expect(await page.locator(`#task-list li[data-task-id="${bobTaskId}"]`).count()).toBe(0);
        // Every request after the token was entered carried it.
        const sinceToken = authorizations.slice(authorizations.indexOf('Bearer alice-token'));
        expect(sinceToken.length).toBeGreaterThan(1);
        expect(new Set(sinceToken)).toEqual(new Set(['Bearer alice-token']));

        // Session storage only, and never shown on the page.
        expect(await page.evaluate<string>('JSON.stringify(localStorage)')).not.toContain('alice-token');
        expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).toContain('alice-token');
        expect(await page.evaluate<string>('document.body.innerText')).not.toContain('alice-token');
        expect(page.url()).not.toContain('alice-token');

        // A reload keeps it for this tab: the dashboard loads at once, no error on the page.
        await page.reload();
        await page.locator('body[data-ready="true"]').waitFor();
        await expect.poll(() => page.locator('#auth-status').textContent()).toMatch(/^Using the saved Bearer token/);
        await chat.taskRow(aliceTaskId!, 'completed');
        expect(chat.consoleErrors.filter((e) => !/401/.test(e))).toEqual([]);

        // A wrong token is named as such.
        await page.locator('#auth-secret').fill('eve-token');
        await page.locator('#auth-use').click();
        await expect.poll(() => page.locator('#auth-status').textContent()).toMatch(/^Authentication failed/);
      } finally {
        await chat.close();
      }
    });
  });
  it('with an API-key scheme, the field is named after the header and the key travels in it', async () => {
    const server = await startServer({
      agent: { ...authAgent, auth: apiKeyAuth({ keys: { 'carol-key': 'carol' } }) },
      debug: true,
    });
    const chat = await ChatPage.open(browser, server.url);
    const { page } = chat;
    const sent: { apiKey: string | undefined; authorization: string | undefined }[] = [];
    page.on('request', (req) => {
      const path = new URL(req.url()).pathname;
      if (path === '/' ? req.method() === 'POST' : path.startsWith('/v1/')) {
        sent.push({ apiKey: req.headers()['x-api-key'], authorization: req.headers().authorization });
      }
    });
    try {
      expect(await page.locator('#auth-label').textContent()).toBe('X-API-Key');
      await page.locator('#auth-secret').fill('carol-key');
      await page.locator('#auth-use').click();
      const reply = await chat.send('whoami');
      expect((await reply.locator('.msg-body').textContent())?.trim()).toBe('you are carol');
      expect(sent.length).toBeGreaterThan(0);
      expect(new Set(sent.map((s) => s.apiKey))).toEqual(new Set(['carol-key']));
      expect(sent.every((s) => s.authorization === undefined)).toBe(true);
    } finally {
      await chat.close();
      await server.stop();
    }
  });
});
