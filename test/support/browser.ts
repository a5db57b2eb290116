/**
 * Driving the /chat page in Debian's Chromium with playwright-core. playwright-core never
 * downloads a browser: it starts the system one (`apt-get install chromium`; .ci/run does it).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import type { Json } from './a2a.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Whether a browser suite cannot run here. Without a browser on this machine the suite says so in
 * one line and does not run, so `npm ci && npm test` passes on a fresh machine; under CI it runs
 * regardless and fails loudly (.ci/run installs Chromium first), so CI can never skip it silently.
 */
export function browserMissing(suite: string): boolean {
  const missing = !existsSync(CHROMIUM_PATH) && !process.env.CI;
  if (missing) process.stderr.write(`${suite} not run: no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)\n`);
  return missing;
}

/** Every wait in the browser tests is bounded by this. */
export const UI_TIMEOUT_MS = 10_000;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: 30_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface SentRequest {
  method: string;
  url: string;
  body: Json;
}

/** One browser context on the chat page, recording every request the page makes. */
export class ChatPage {
  readonly requests: SentRequest[] = [];
  readonly consoleErrors: string[] = [];

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
  ) {
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    page.on('request', (req) => {
      let body: Json;
      try {
        body = req.postDataJSON();
      } catch {
        body = req.postData();
      }
      this.requests.push({ method: req.method(), url: req.url(), body });
    });
    page.on('console', (msg) => {
      if (msg.type() === 'error') this.consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => this.consoleErrors.push(err.message));
  }

  static async open(browser: Browser, baseUrl: string, query = '', viewport = { width: 1440, height: 900 }): Promise<ChatPage> {
    const context = await browser.newContext({ viewport });
    const chat = new ChatPage(context, await context.newPage());
    const res = await chat.page.goto(`${baseUrl}/chat${query}`);
    if (res?.status() !== 200) throw new Error(`/chat answered ${res?.status()}`);
    await chat.page.locator('body[data-ready="true"]').waitFor();
    return chat;
  }

  get agentBubbles(): Locator {
    return this.page.locator('#chat-log .msg.agent');
  }

  /** Sends a message and waits until its turn ends; returns the agent bubble of that turn. */
  async send(text: string): Promise<Locator> {
    const before = await this.agentBubbles.count();
    await this.page.locator('#chat-input').fill(text);
    await this.page.locator('#chat-input').press('Enter');
    await this.page.locator('#chat-log .msg.agent:not(.pending)').nth(before).waitFor();
    return this.agentBubbles.nth(before);
  }

  /** The `message` objects the page sent with message/send or message/stream, either transport. */
  sentMessages(): Json[] {
    return this.requests
      .filter((r) => r.method === 'POST' && r.body && typeof r.body === 'object')
      .map((r) => (r.body.jsonrpc ? r.body.params?.message : r.body.message))
      .filter((m) => m !== undefined);
  }

  /** Waits until the dashboard lists the task in that state. */
  async taskRow(taskId: string, state: string): Promise<Locator> {
    const row = this.page.locator(`#task-list li[data-task-id="${taskId}"][data-state="${state}"]`);
    await row.waitFor();
    return row;
  }

  /** Selects a task in the dashboard and waits for its detail. */
  async selectTask(taskId: string, state: string): Promise<Locator> {
    await (await this.taskRow(taskId, state)).click();
    const detail = this.page.locator(`#task-detail[data-task-id="${taskId}"][data-state="${state}"]`);
    await detail.waitFor();
    return detail;
  }

  close(): Promise<void> {
    return this.context.close();
  }
}
