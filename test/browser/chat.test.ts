/**
 * The /chat debug page (spec item 11, state table rule 3) in a real browser, against the
 * scenario agent, over both preferred transports with streaming on and off.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLL_CHOICES } from '../../src/debug/page/constants.js';
import type { Json } from '../support/a2a.js';
import { browserMissing, ChatPage, launchChromium } from '../support/browser.js';
import { startServer, type TestServer } from '../support/server.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const NO_BROWSER = browserMissing('browser suite');

/**
 * Where the screenshot goes: an ignored path, unless CHAT_SCREENSHOT names one (the README's
 * image is refreshed with CHAT_SCREENSHOT=docs/chat.png).
 */
const SCREENSHOT = join(ROOT, process.env.CHAT_SCREENSHOT ?? 'test/.artifacts/chat.png');

describe.skipIf(NO_BROWSER)('the /chat page in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const MODES = [
    { preferredTransport: 'JSONRPC', streaming: true },
    { preferredTransport: 'JSONRPC', streaming: false },
    { preferredTransport: 'HTTP+JSON', streaming: true },
    { preferredTransport: 'HTTP+JSON', streaming: false },
  ] as const;

  describe.each(MODES)(
    'the chat page with preferredTransport $preferredTransport, streaming $streaming',
    ({ preferredTransport, streaming }) => {
      let server: TestServer;
      let chat: ChatPage;
      beforeAll(async () => {
        server = await startServer({ debug: true, preferredTransport, streaming });
        chat = await ChatPage.open(browser, server.url);
      });
      afterAll(async () => {
        await chat?.close();
        await server?.stop();
      });

      it('reads the agent card: sidebar, transport and mode', async () => {
        const { page } = chat;
        expect(await page.locator('#agent-name').textContent()).toBe('Scenario Agent');
        const facts = (await page.locator('#agent-facts').textContent()) ?? '';
        expect(facts).toContain('0.3.0');
        expect(facts).toContain(preferredTransport);
        expect(facts).toContain(server.url);
        expect(await page.locator('#agent-skills').textContent()).toContain('Scenarios');
        expect(await page.locator('body').getAttribute('data-transport')).toBe(preferredTransport);
        expect(await page.locator('body').getAttribute('data-streaming')).toBe(String(streaming));
        expect(await page.locator('#chat-mode').textContent()).toContain(streaming ? 'SSE streaming' : 'send + polling');
      });

      it('"echo hi" gets the reply "hi", over the transport and mode the card names', async () => {
        const bubble = await chat.send('echo hi');
        expect(await bubble.getAttribute('data-state')).toBe('completed');
        expect((await bubble.locator('.msg-body').textContent())?.trim()).toBe('hi');
        const calls = chat.requests.filter((r) => !r.url.endsWith('/chat') && !r.url.includes('/.well-known/'));
        const sends = calls.filter((r) => r.body?.message || r.body?.params?.message);
        expect(sends.length).toBe(1);
        if (preferredTransport === 'JSONRPC') {
          for (const r of calls) expect(new URL(r.url).pathname).toBe('/');
          expect(sends[0]!.body.method).toBe(streaming ? 'message/stream' : 'message/send');
        } else {
          for (const r of calls) expect(new URL(r.url).pathname).toMatch(/^\/v1\//);
          expect(new URL(sends[0]!.url).pathname).toBe(streaming ? '/v1/message:stream' : '/v1/message:send');
        }
      });

      it('"ask x" then a follow-up continues the same task; after completion the next message makes a new task', async () => {
        const asked = await chat.send('ask x');
        expect(await asked.getAttribute('data-state')).toBe('input-required');
        expect((await asked.locator('.msg-body').textContent())?.trim()).toBe('x');
        const taskId = await asked.getAttribute('data-task-id');
        expect(taskId).toBeTruthy();
        expect(await chat.page.locator('#chat-hint').textContent()).toContain('continues task');

        const answered = await chat.send('blue');
        expect(await answered.getAttribute('data-task-id')).toBe(taskId);
        expect(await answered.getAttribute('data-state')).toBe('completed');
        expect((await answered.locator('.msg-body').textContent())?.trim()).toBe('got: blue');
        await chat.taskRow(taskId!, 'completed');
        expect(await chat.page.locator(`#task-list li[data-task-id="${taskId}"]`).count()).toBe(1);

        const fresh = await chat.send('echo again');
        const freshId = await fresh.getAttribute('data-task-id');
        expect(freshId).toBeTruthy();
        expect(freshId).not.toBe(taskId);
        await chat.taskRow(freshId!, 'completed');

        const sent = chat.sentMessages().slice(-3);
        expect(sent.map((m: Json) => m.parts[0].text)).toEqual(['ask x', 'blue', 'echo again']);
        expect(sent[0].taskId).toBeUndefined();
        expect(sent[1].taskId).toBe(taskId);
        expect(typeof sent[1].contextId).toBe('string');
        expect(sent[2].taskId).toBeUndefined();
        const ids = chat.sentMessages().map((m: Json) => m.messageId);
        expect(new Set(ids).size).toBe(ids.length);
      });

      it('a follow-up on auth-required continues the same task too', async () => {
        const asked = await chat.send('auth');
        expect(await asked.getAttribute('data-state')).toBe('auth-required');
        const answered = await chat.send('token abc');
        expect(await answered.getAttribute('data-task-id')).toBe(await asked.getAttribute('data-task-id'));
        expect((await answered.locator('.msg-body').textContent())?.trim()).toBe('got: token abc');
      });

      it('"stream 5" renders all chunks in one agent bubble', async () => {
        const before = await chat.agentBubbles.count();
        const bubble = await chat.send('stream 5');
        expect(await chat.agentBubbles.count()).toBe(before + 1);
        expect(await bubble.getAttribute('data-state')).toBe('completed');
        const artifact = bubble.locator('.artifact[data-artifact-id="stream"]');
        expect(await artifact.count()).toBe(1);
        expect(await artifact.locator('.artifact-parts').textContent()).toBe('chunk 1\nchunk 2\nchunk 3\nchunk 4\nchunk 5\n');
      });

      it('status messages show in the bubble while the agent works', async () => {
        const before = await chat.agentBubbles.count();
        await chat.page.locator('#chat-input').fill('slow 3000');
        await chat.page.locator('#chat-input').press('Enter');
        const bubble = chat.agentBubbles.nth(before);
        // `slow` sends "working… <n> ms left" every 100 ms for 3 s.
        await bubble.locator('.msg-progress', { hasText: /working… \d+ ms left/ }).waitFor();
        expect(await bubble.getAttribute('class')).toContain('pending');
        expect(await bubble.getAttribute('data-state')).toBe('working');
        await chat.page.locator(`#chat-log .msg.agent:not(.pending)`).nth(before).waitFor();
        expect(await bubble.getAttribute('data-state')).toBe('completed');
        expect((await bubble.locator('.msg-body').textContent())?.trim()).toBe('slept 3000 ms');
      });

      // With streaming the reply arrives as a Message; without, the page sends non-blocking, so the
      // task already exists and the reply completes it with the reply as its status message.
      it('a direct reply renders as an agent message', async () => {
        const bubble = await chat.send('direct hello there');
        expect((await bubble.locator('.msg-body').textContent())?.trim()).toBe('hello there');
      });

      it('data and file parts render as formatted JSON and as name, type and size', async () => {
        const data = await chat.send('data');
        expect(JSON.parse((await data.locator('pre.part.data').textContent()) ?? '')).toEqual({ answer: 42, items: ['a', 'b'] });
        const file = await chat.send('file');
        expect(await file.locator('.part.file').textContent()).toBe('hello.txt · text/plain · 11 bytes');
      });

      it('a <script> payload renders inert, as text, in the chat and in the dashboard', async () => {
        const payload = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';
        const bubble = await chat.send(`echo ${payload}`);
        expect((await bubble.locator('.msg-body').textContent())?.trim()).toBe(payload);
        const detail = await chat.selectTask((await bubble.getAttribute('data-task-id'))!, 'completed');
        expect(await detail.textContent()).toContain(payload);
        expect(await chat.page.evaluate('window.__xss')).toBeUndefined();
        expect(await chat.page.locator('#chat-log script, #chat-log img, #task-detail script, #task-detail img').count()).toBe(0);
      });

      it('the dashboard shows the transition timeline and hides metadata keys starting with _', async () => {
        const bubble = await chat.send('echo timeline');
        const taskId = (await bubble.getAttribute('data-task-id'))!;
        // The agent API cannot set task metadata, so the store gets what a runtime may keep there: an
        // internal key and a public one. The page reads it through the real API.
        const stored = await server.store.getTask(taskId);
        await server.store.saveTask({
          ...stored!,
          metadata: { ...stored!.metadata, _internal: { secret: 'hidden-value' }, label: 'shown-value' },
        });
        const internal = Object.keys((await server.store.getTask(taskId))!.metadata ?? {}).filter((k) => k.startsWith('_'));
        const detail = await chat.selectTask(taskId, 'completed');
        await detail.locator('#metadata pre').waitFor();
        const states = await detail.locator('#timeline li').evaluateAll((items) => items.map((li) => li.getAttribute('data-state')));
        expect(states).toEqual(['submitted', 'working', 'completed']);
        const metadata = (await detail.locator('#metadata').textContent()) ?? '';
        expect(metadata).toContain('shown-value');
        expect(metadata).toContain(`${internal.length} internal key${internal.length === 1 ? '' : 's'} hidden`);
        const all = (await detail.textContent()) ?? '';
        for (const key of internal) expect(all).not.toContain(key);
        expect(all).not.toContain('hidden-value');
        expect(await detail.locator('.history-item[data-role="user"]').first().textContent()).toContain('echo timeline');
        expect(await detail.locator('.history-item[data-artifact-id="final-answer"]').textContent()).toContain('timeline');
      });

      it('made no request outside its own origin and logged no error', () => {
        for (const r of chat.requests) expect(new URL(r.url).origin).toBe(server.url);
        expect(chat.consoleErrors).toEqual([]);
      });
    },
  );

  describe('the chat page settings and absence', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer({ debug: true });
    });
    afterAll(() => server?.stop());

    it.each([
      ['?poll=2', '2'],
      ['', '5'],
      ['?poll=0.5', '0.5'],
      ['?poll=30', '30'],
      ['?poll=0.4', '0.5'],
      ['?poll=nonsense', '5'],
    ])('%s selects %s s', async (query, expected) => {
      const chat = await ChatPage.open(browser, server.url, query);
      try {
        const select = chat.page.locator('#poll-interval');
        expect(await select.inputValue()).toBe(expected);
        expect(await select.locator('option').evaluateAll((os) => os.map((o) => Number(o.getAttribute('value'))))).toEqual([
          ...POLL_CHOICES,
        ]);
      } finally {
        await chat.close();
      }
    });

    it('choosing an interval keeps it in the address', async () => {
      const chat = await ChatPage.open(browser, server.url, '?poll=2');
      try {
        await chat.page.locator('#poll-interval').selectOption('10');
        expect(new URL(chat.page.url()).searchParams.get('poll')).toBe('10');
      } finally {
        await chat.close();
      }
    });

    it('is served with a Content-Security-Policy that allows only itself', async () => {
      const res = await fetch(`${server.url}/chat`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      const html = await res.text();
      expect(html).not.toMatch(/\b(src|href)="https?:/);
      expect(html).not.toContain('WebSocket');
    });

    it('is not in the agent card', async () => {
      const card = await (await fetch(`${server.url}/.well-known/agent-card.json`)).text();
      expect(card).not.toContain('/chat');
    });

    it('does not exist with debug off: /chat is 404', async () => {
      const plain = await startServer({});
      try {
        const context = await browser.newContext();
        const res = await (await context.newPage()).goto(`${plain.url}/chat`);
        expect(res?.status()).toBe(404);
        await context.close();
      } finally {
        await plain.stop();
      }
    });

    it('makes a screenshot of the page in use (docs/chat.png when CHAT_SCREENSHOT asks for it)', async () => {
      const chat = await ChatPage.open(browser, server.url, '?poll=2', { width: 1440, height: 860 });
      try {
        await chat.send('echo Hello! Try the examples in the sidebar.');
        await chat.send('ask What colour should the button be?');
        const answered = await chat.send('blue');
        await chat.send('stream 5');
        await chat.send('data');
        await chat.selectTask((await answered.getAttribute('data-task-id'))!, 'completed');
        mkdirSync(dirname(SCREENSHOT), { recursive: true });
        await chat.page.screenshot({ path: SCREENSHOT });
      } finally {
        await chat.close();
      }
    });
  });
});
