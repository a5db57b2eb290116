/**
 * The per-turn time limit (SERVICE_TURN_TIMEOUT): a turn that runs past it fails its task with a
 * status message naming the setting, through the task machine, so a blocking send, a stream, a
 * reader of the task and a webhook all learn the same end; the handler's signal fires, and what
 * the handler emits afterwards is ignored. Off by default. No deadline outlives its turn.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth, defineAgent, pause, type AgentContext } from '../../src/index.js';
import { client, eventually, TRANSPORTS, userMessage, type Json } from '../support/a2a.js';
import { captureLogs, type CapturedLogs } from '../support/logs.js';
import { startServer, STORE_KINDS, type TestServer } from '../support/server.js';
import { streamMessage, summarize } from '../support/streams.js';
import { pushedTask, startReceiver, type Receiver } from '../support/webhook.js';

const LIMIT_SECONDS = 0.3;
const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };

/** What the test agent saw of each task's turn. */
interface Seen {
  aborted: boolean;
  /** The handler returned (after its late calls, if it made any). */
  returned: boolean;
}
const seen = new Map<string, Seen>();
/** Handlers that ignore their signal wait here until the test lets them go. */
const held: (() => void)[] = [];
const releaseHeld = (): void => {
  for (const release of held.splice(0)) release();
};

const aborted = (ctx: AgentContext): Promise<void> =>
  new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
const heldUntilReleased = (): Promise<void> => new Promise((resolve) => held.push(resolve));

/** Everything a handler may still do once its turn is over: none of it may reach the task. */
function lateCalls(ctx: AgentContext): void {
  ctx.status('late status');
  ctx.artifact({ artifactId: 'late', parts: [{ kind: 'text', text: 'late artifact' }] });
  ctx.reply('late reply');
  ctx.complete('late answer');
}

/**
 * `hang`: waits for its signal, then calls everything; `ignore`: ignores its signal until the
 * test releases it, then calls everything; `done-then-ignore`: completes, then stays in its
 * handler; `status-then-hang`: says something first (the task is known), then as `hang`;
 * `slow <ms>` completes after <ms>; `background <ms>` leaves the task working and completes it
 * <ms> later; anything else completes at once.
 */
const agent = defineAgent({
  card: { name: 'Slowpoke', description: 'Takes its time, sometimes for ever.', version: '1', skills: [] },
  capabilities: { streaming: true, pushNotifications: true },
  async handler(ctx) {
    const record: Seen = { aborted: false, returned: false };
    seen.set(ctx.taskId, record);
    ctx.signal.addEventListener('abort', () => void (record.aborted = true), { once: true });
    const [command = '', arg = '0'] = ctx.text.split(' ');
    switch (command) {
      case 'hang':
        await aborted(ctx);
        lateCalls(ctx);
        break;
      case 'status-then-hang':
        ctx.status('thinking');
        await aborted(ctx);
        lateCalls(ctx);
        break;
      case 'ignore':
        await heldUntilReleased();
        lateCalls(ctx);
        break;
      case 'done-then-ignore':
        ctx.complete('done early');
        await heldUntilReleased();
        break;
      case 'slow':
        await pause(Number(arg));
        ctx.complete('slept');
        break;
      case 'background':
        ctx.continueInBackground();
        void pause(Number(arg), ctx.signal).then(() => ctx.complete('finished in the background'));
        break;
      default:
        ctx.complete(ctx.text);
    }
    record.returned = true;
  },
});

const FAILED_TEXT = /ran past the server's time limit of 0\.3 s \(setting turnTimeout, SERVICE_TURN_TIMEOUT\)/;
const statusText = (task: Json): string => task.status?.message?.parts?.[0]?.text ?? '';

/** The task as a timed-out turn leaves it: failed with the message, nothing the handler did late. */
function expectTimedOut(task: Json): void {
  expect(task.status.state).toBe('failed');
  expect(statusText(task)).toMatch(FAILED_TEXT);
  expect(task.artifacts ?? []).toEqual([]);
  const texts: string[] = (task.history ?? []).map((m: Json) => m.parts?.[0]?.text);
  expect(texts.filter((t) => t?.startsWith('late'))).toEqual([]);
}

/** The server's counters back at rest: no live task, no turn deadline. */
async function expectAtRest(server: TestServer): Promise<void> {
  const stats = await eventually(() => {
    const s = server.stats();
    return s.liveTasks === 0 && s.turnDeadlines === 0 && s.runningActors === 0 ? s : undefined;
  });
  expect(stats).toMatchObject({ liveTasks: 0, runningActors: 0, turnDeadlines: 0, pendingFlushes: 0 });
}

for (const storeKind of STORE_KINDS) {
  describe(`a turn past its time limit (${storeKind} store)`, () => {
    let server: TestServer;
    let logs: CapturedLogs;
    beforeAll(async () => {
      logs = captureLogs('warn');
      server = await startServer({ agent, storeKind, logger: logs.logger, turnTimeout: LIMIT_SECONDS, ...LOCAL_PUSH });
    });
    afterEach(releaseHeld);
    afterAll(() => server.stop());

    it.each(TRANSPORTS)('a blocking send gets the task failed, the signal fires, and late calls are ignored (%s)', async (transport) => {
      const a2a = client(server.url, transport);
      const sent = await a2a.send({ message: userMessage('hang') });
      expect(sent.status).toBe(200);
      expectTimedOut(sent.result);
      const record = seen.get(sent.result.id);
      expect(record?.aborted).toBe(true);
      await eventually(() => record?.returned || undefined);
      // The late calls came and went: the stored task is the one the send got.
      const stored = (await a2a.get(sent.result.id)).result;
      expectTimedOut(stored);
      expect(stored.status).toEqual(sent.result.status);
      const warned = logs.events('agent.turn_timeout').filter((e) => e.taskId === sent.result.id);
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatchObject({ level: 'warn', contextId: sent.result.contextId, turnTimeout: LIMIT_SECONDS });
      expect(warned[0]).not.toHaveProperty('principal');
      await expectAtRest(server);
    });

    it.each(TRANSPORTS)('a stream ends with one failed status marked final (%s)', async (transport) => {
      const stream = await streamMessage(server.url, transport, { message: userMessage('status-then-hang') });
      expect(stream.status).toBe(200);
      const items = await stream.items;
      expect(items.map((i) => summarize(i.data))).toEqual([
        'task:submitted',
        'status:working',
        'status:working+msg',
        'status:failed+msg:final',
      ]);
      const last = items.at(-1)?.data;
      expect(statusText(last)).toMatch(FAILED_TEXT);
      const taskId: string = items[0]?.data.id;
      await eventually(() => seen.get(taskId)?.returned || undefined);
      expectTimedOut((await client(server.url, transport).get(taskId)).result);
      await expectAtRest(server);
    });

    it('a non-blocking send returns at once; reading the task later finds it failed, and its webhook is told', async () => {
      const receiver: Receiver = await startReceiver();
      try {
        const a2a = client(server.url, 'jsonrpc');
        const sent = await a2a.send({
          message: userMessage('hang'),
          configuration: { blocking: false, pushNotificationConfig: { url: receiver.url } },
        });
        expect(['submitted', 'working']).toContain(sent.result.status.state);
        const taskId: string = sent.result.id;
        const got = await eventually(async () => {
          const task = (await a2a.get(taskId)).result;
          return task.status.state === 'failed' ? task : undefined;
        });
        expectTimedOut(got);
        const pushed = await eventually(() =>
          receiver
            .bodiesOf(taskId)
            .map(pushedTask)
            .find((t) => t.status.state === 'failed'),
        );
        expect(statusText(pushed)).toMatch(FAILED_TEXT);
        await eventually(() => seen.get(taskId)?.returned || undefined);
        // Nothing after the failure: no later state reached the webhook.
        expect(receiver.bodiesOf(taskId).map(pushedTask).at(-1).status.state).toBe('failed');
        await expectAtRest(server);
      } finally {
        await receiver.close();
      }
    });

    it('a handler that ignores its signal: the task fails on time, and its late return changes nothing', async () => {
      const a2a = client(server.url, 'rest');
      const sent = await a2a.send({ message: userMessage('ignore') });
      expectTimedOut(sent.result);
      const record = seen.get(sent.result.id);
      expect(record).toMatchObject({ aborted: true, returned: false });
      // The task has left memory though its handler still runs: its deadline went with it.
      await expectAtRest(server);
      releaseHeld();
      await eventually(() => record?.returned || undefined);
      expectTimedOut((await a2a.get(sent.result.id)).result);
      // Still serving.
      expect((await a2a.send({ message: userMessage('echo') })).result.status.state).toBe('completed');
    });

    it('a task ended by a terminal call while its handler stays leaves no deadline behind, and is not failed', async () => {
      const a2a = client(server.url, 'jsonrpc');
      const sent = await a2a.send({ message: userMessage('done-then-ignore') });
      expect(sent.result.status.state).toBe('completed');
      // Dropped as the task left memory (before the send was answered), not by expiring.
      expect(server.stats()).toMatchObject({ liveTasks: 0, turnDeadlines: 0 });
      // Past the limit, the handler still in its turn: the task stays completed.
      await pause(LIMIT_SECONDS * 1000 * 2);
      expect(seen.get(sent.result.id)?.returned).toBe(false);
      expect((await a2a.get(sent.result.id)).result.status.state).toBe('completed');
    });

    it('work left running in the background is past its turn: it may outlast the limit', async () => {
      const a2a = client(server.url, 'rest');
      const sent = await a2a.send({ message: userMessage(`background ${LIMIT_SECONDS * 1000 * 2}`) });
      expect(sent.result.status.state).toBe('working');
      const done = await eventually(async () => {
        const task = (await a2a.get(sent.result.id)).result;
        return task.status.state === 'working' ? undefined : task;
      });
      expect(done.status.state).toBe('completed');
      await expectAtRest(server);
    });

    it('counts each timed-out turn on /metrics', async () => {
      const metrics = async (): Promise<number> => {
        const text = await (await fetch(`${server.url}/metrics`)).text();
        return Number(/^a2actor_task_turn_timeouts_total (\d+)$/m.exec(text)?.[1]);
      };
      const before = await metrics();
      const a2a = client(server.url, 'jsonrpc');
      await Promise.all([a2a.send({ message: userMessage('hang') }), a2a.send({ message: userMessage('hang') })]);
      await a2a.send({ message: userMessage('echo quick') });
      expect(await metrics()).toBe(before + 2);
    });

    it('many turns of every kind leave no deadline and no live task behind', async () => {
      const a2a = client(server.url, 'rest');
      const commands = ['echo', 'hang', 'done-then-ignore', 'background 10', 'slow 5'];
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => a2a.send({ message: userMessage(commands[i % commands.length] ?? 'echo') })),
      );
      expect(results.every((r) => r.status === 200)).toBe(true);
      expect(results.filter((r) => r.result.status.state === 'failed')).toHaveLength(10);
      releaseHeld();
      await expectAtRest(server);
    });
  });
}

describe('a turn past its time limit, with authentication', () => {
  let server: TestServer;
  let logs: CapturedLogs;
  beforeAll(async () => {
    logs = captureLogs('warn');
    const guarded = defineAgent({ ...agent, auth: bearerAuth({ tokens: { 'alice-token': 'alice' } }) });
    server = await startServer({ agent: guarded, logger: logs.logger, turnTimeout: LIMIT_SECONDS });
  });
  afterAll(() => server.stop());

  it('names the caller in its log line, and never the credentials', async () => {
    const sent = await client(server.url, 'jsonrpc').send({ message: userMessage('hang') }, { authorization: 'Bearer alice-token' });
    expectTimedOut(sent.result);
    const warned = logs.events('agent.turn_timeout').filter((e) => e.taskId === sent.result.id);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ principal: 'alice', turnTimeout: LIMIT_SECONDS });
    expect(logs.lines.join('\n')).not.toContain('alice-token');
  });
});

describe('without a time limit (the default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ agent });
  });
  afterAll(() => server.stop());

  it('is off, and a turn longer than any limit above completes', async () => {
    expect(server.settings.turnTimeout).toBe(0);
    const sent = await client(server.url, 'jsonrpc').send({ message: userMessage(`slow ${LIMIT_SECONDS * 1000 * 2}`) });
    expect(sent.result.status.state).toBe('completed');
    expect(server.stats().turnDeadlines).toBe(0);
  });
});
