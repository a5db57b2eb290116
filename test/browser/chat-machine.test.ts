/**
 * The task machine in the /chat dashboard, in a real Chromium against the scenario agent: the
 * selected task's current state is highlighted and its path through the machine numbered, and
 * both follow the task as it moves on.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskMachine } from '../../machines/task.machine.js';
import { taskRunMachine } from '../../machines/task-run.machine.js';
import { browserMissing, ChatPage, launchChromium } from '../support/browser.js';
import { startServer, type TestServer } from '../support/server.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCREENSHOT = join(ROOT, 'test/.artifacts/chat-machine.png');

const NO_BROWSER = browserMissing('browser suite');

/** The numbered steps as `n. from>to`, in step order, read from the taken edges. */
async function numberedPath(machine: Locator): Promise<string[]> {
  const taken: { edge: string; steps: string }[] = await machine.locator('.edge.taken').evaluateAll((edges) =>
    edges.map((e) => ({
      edge: `${e.getAttribute('data-from')}>${e.getAttribute('data-to')}`,
      steps: e.getAttribute('data-steps') ?? '',
    })),
  );
  const shown = await machine.locator('.edge.taken .step text').evaluateAll((texts) => texts.map((t) => t.textContent ?? ''));
  // What the badge shows is what the edge says.
  expect(shown).toEqual(taken.map((t) => t.steps));
  return taken
    .flatMap((t) => t.steps.split(',').map((n) => ({ n: Number(n), edge: t.edge })))
    .sort((a, b) => a.n - b.n)
    .map((s) => `${s.n}. ${s.edge}`);
}

describe.skipIf(NO_BROWSER)('the task machine on the /chat dashboard in Chromium', () => {
  let browser: Browser;
  let server: TestServer;
  let chat: ChatPage;
  beforeAll(async () => {
    browser = await launchChromium();
    server = await startServer({ debug: true });
    chat = await ChatPage.open(browser, server.url, '?poll=0.5', { width: 1440, height: 1000 });
  });
  afterAll(async () => {
    await chat?.close();
    await server?.stop();
    await browser?.close();
  });

  it('draws every state of the machine, with a title and a label per state', async () => {
    const bubble = await chat.send('echo draw');
    const detail = await chat.selectTask((await bubble.getAttribute('data-task-id'))!, 'completed');
    const svg = detail.locator('#machine svg.machine');
    expect(await svg.locator('title').first().textContent()).toMatch(/^The task state machine: 8 states/);
    const labels = await svg.locator('.state').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-state')));
    expect(labels).toEqual(Object.keys(taskMachine.root.states));
    expect(await svg.locator('.state[data-state="completed"]').getAttribute('aria-label')).toBe('completed, the current state');
    expect(await svg.locator('.state[data-state="input-required"]').getAttribute('aria-label')).toBe('input-required');
    expect(await numberedPath(detail.locator('#machine'))).toEqual(['1. submitted>working', '2. working>completed']);
  });

  it('an ask highlights input-required and numbers the path; the follow-up moves it to completed', async () => {
    const asked = await chat.send('ask something');
    expect(await asked.getAttribute('data-state')).toBe('input-required');
    const taskId = (await asked.getAttribute('data-task-id'))!;
    const detail = await chat.selectTask(taskId, 'input-required');
    const machine = detail.locator('#machine');
    expect(await machine.locator('.state.current').evaluateAll((n) => n.map((x) => x.getAttribute('data-state')))).toEqual([
      'input-required',
    ]);
    expect(await machine.locator('#machine-now').getAttribute('data-state')).toBe('input-required');
    expect(await machine.locator('#machine-now').textContent()).toContain('Current state: input-required');
    expect(await numberedPath(machine)).toEqual(['1. submitted>working', '2. working>input-required']);
    expect(await machine.locator('.state.visited').evaluateAll((n) => n.map((x) => x.getAttribute('data-state')))).toEqual([
      'submitted',
      'working',
      'input-required',
    ]);

    // The dashboard keeps the task selected and redraws it as it moves on.
    const answered = await chat.send('blue');
    expect(await answered.getAttribute('data-task-id')).toBe(taskId);
    await chat.page.locator(`#task-detail[data-task-id="${taskId}"][data-state="completed"]`).waitFor();
    const after = chat.page.locator('#task-detail #machine');
    expect(await after.locator('.state.current').evaluateAll((n) => n.map((x) => x.getAttribute('data-state')))).toEqual(['completed']);
    expect(await after.locator('#machine-now').textContent()).toContain('Current state: completed');
    expect(await after.locator('#machine-now').textContent()).toContain('submitted → working → input-required → working → completed');
    expect(await numberedPath(after)).toEqual([
      '1. submitted>working',
      '2. working>input-required',
      '3. input-required>working',
      '4. working>completed',
    ]);

    await chat.page.locator('#machine').scrollIntoViewIfNeeded();
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await chat.page.locator('#dashboard').screenshot({ path: SCREENSHOT });
  });

  it('a task asked twice shows both passes over the same edges', async () => {
    const asked = await chat.send('ask one');
    const taskId = (await asked.getAttribute('data-task-id'))!;
    await chat.send('ask two');
    const detail = await chat.selectTask(taskId, 'input-required');
    expect(await detail.locator('#machine .edge[data-from="working"][data-to="input-required"] .step text').textContent()).toBe('2,4');
    expect(await numberedPath(detail.locator('#machine'))).toEqual([
      '1. submitted>working',
      '2. working>input-required',
      '3. input-required>working',
      '4. working>input-required',
    ]);
  });

  it('draws the task’s run in the runtime beside the machine: exposed while it works, closed once stored', async () => {
    // A page of its own: the shared page's conversation may hold a paused task the message would continue.
    const fresh = await ChatPage.open(browser, server.url, '?poll=0.5', { width: 1440, height: 1000 });
    const working = await fresh.send('background 6000');
    const taskId = (await working.getAttribute('data-task-id'))!;
    const during = await fresh.selectTask(taskId, 'working');
    const run = during.locator('#run svg.machine');
    expect(await run.locator('title').first().textContent()).toMatch(/^The task run \(its life in the runtime\): 6 states/);
    expect(await run.locator('.state').evaluateAll((n) => n.map((x) => x.getAttribute('data-state')))).toEqual(
      Object.keys(taskRunMachine.root.states),
    );
    expect(await during.locator('#run .state.current').evaluateAll((n) => n.map((x) => x.getAttribute('data-state')))).toEqual(['exposed']);
    await fresh.page.locator(`#task-detail[data-task-id="${taskId}"][data-state="completed"]`).waitFor({ timeout: 20_000 });
    const after = fresh.page.locator('#task-detail #run');
    expect(await after.locator('.state.current').evaluateAll((n) => n.map((x) => x.getAttribute('data-state')))).toEqual(['closed']);
    expect(await after.locator('#run-now').getAttribute('data-state')).toBe('closed');
    for (const r of fresh.requests) expect(new URL(r.url).origin).toBe(server.url);
    expect(fresh.consoleErrors).toEqual([]);
    await fresh.page.context().close();
  });

  it('made no request outside its own origin and logged no error', () => {
    for (const r of chat.requests) expect(new URL(r.url).origin).toBe(server.url);
    expect(chat.consoleErrors).toEqual([]);
  });
});
