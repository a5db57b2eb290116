/**
 * Push under attack (issue 32, item 3): Bob's slow tasks, ten configs each, all point at a
 * receiver that never answers, while Alice's webhook is healthy. Bob holds at most his share of
 * the delivery slots, so Alice's notification arrives at once; each config's line is bounded
 * (older states replaced, the final one never); an origin that keeps timing out has its circuit
 * opened, then closed again by a probe once it answers; /metrics shows the queue and circuits.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import authAgent from '../../examples/auth-agent.js';
import { client, eventually, userMessage, type Json } from '../support/a2a.js';
import { ALICE, BOB, sendAs } from '../support/auth-calls.js';
import { captureLogs, type CapturedLogs } from '../support/logs.js';
import { startServer, type TestServer } from '../support/server.js';
import { startReceiver, type Receiver } from '../support/webhook.js';

const LOCAL_PUSH = { pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'] };
const TERMINAL = ['completed', 'failed', 'canceled', 'rejected'];
const PROMTOOL = '/usr/bin/promtool';

/** One sample's value from an exposition, by name and exact label text; undefined when absent. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const prefix = `${name}${labels ? `{${labels}}` : ''} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}
const scrape = async (server: TestServer): Promise<string> => (await fetch(`${server.url}/metrics`)).text();

/** The largest value `read` gave while `until` was pending (read every 20 ms). */
async function peakWhile(read: () => number, until: Promise<unknown>): Promise<number> {
  let peak = read();
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    peak = Math.max(peak, read());
    await new Promise((r) => setTimeout(r, 20));
  }
  return Math.max(peak, read());
}

const statesOf = (bodies: Json[]): string[] => bodies.map((b: Json) => b.status.state as string);

describe('push fairness: a caller whose receivers never answer', () => {
  const BOB_TASKS = 10;
  const CONFIGS_PER_TASK = 10;
  const CAP = 5;
  let server: TestServer;
  let blackhole: Receiver;
  let alice: Receiver;
  beforeAll(async () => {
    blackhole = await startReceiver({ respond: () => ({ hang: true }) });
    alice = await startReceiver();
    // Attempts time out slowly enough that a held slot is felt; the line cap is small.
    server = await startServer({
      ...LOCAL_PUSH,
      pushTimeout: 4,
      pushMaxRetries: 2,
      pushRetryDelay: 0.1,
      pushMaxQueuedPerConfig: CAP,
      shutdownGrace: 0.5,
    });
  });
  afterAll(async () => {
    await server.stop();
    await blackhole.close();
    await alice.close();
  });

  it("holds Bob to his share: Alice's webhook arrives at once, and Bob's backlog stays capped", async () => {
    const a2a = client(server.url, 'rest');
    const bobTasks: string[] = [];
    for (let t = 0; t < BOB_TASKS; t++) {
      const sent = await a2a.send({
        message: userMessage('slow 2500'),
        configuration: { blocking: false, pushNotificationConfig: { id: 'c0', url: `${blackhole.url}/0` } },
      });
      const id = sent.result.id as string;
      bobTasks.push(id);
      for (let c = 1; c < CONFIGS_PER_TASK; c++) await a2a.setPush(id, { id: `c${c}`, url: `${blackhole.url}/${c}` });
    }
    // Bob's deliveries fill what they may of the limit (his share; before the fix, all of it).
    await eventually(() => (blackhole.inFlight >= 10 ? true : undefined), 5000);

    const bobDone = eventually(
      async () => {
        const states = await Promise.all(bobTasks.map(async (id) => (await a2a.get(id, 0)).result.status.state as string));
        return states.every((s) => TERMINAL.includes(s)) ? true : undefined;
      },
      15_000,
      100,
    );
    const peakQueued = peakWhile(() => server.stats().push.queued, bobDone);

    const sentAt = performance.now();
    const aliceTask = await a2a.send({ message: userMessage('echo hi'), configuration: { pushNotificationConfig: { url: alice.url } } });
    const id = aliceTask.result.id as string;
    const arrived = await eventually(() => alice.received.find((r) => r.body?.id === id && r.body.status?.state === 'completed'), 10_000);
    const aliceDelayMs = arrived.at - sentAt;
    // Generous for a loaded machine; while Bob held every slot, it took a whole push_timeout or more.
    expect(aliceDelayMs).toBeLessThan(2000);
    expect(statesOf(alice.bodiesOf(id))).toEqual(['working', 'completed']);

    await bobDone;
    // Ten configs per task, each line at most CAP waiting plus the one being sent.
    expect(await peakQueued).toBeLessThanOrEqual(BOB_TASKS * CONFIGS_PER_TASK * (CAP + 1));
    expect(server.stats().push.inFlight).toBeLessThanOrEqual(server.settings.pushMaxConcurrentPerCaller);
    expect(blackhole.maxInFlight).toBeLessThanOrEqual(server.settings.pushMaxConcurrentPerCaller);
  }, 30_000);
});

describe('push fairness with auth: the share is the task owner', () => {
  const BOB_TASKS = 60;
  let server: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    // One origin for both callers: Bob's path never answers, Alice's does.
    rx = await startReceiver({ respond: (req) => (req.path.startsWith('/bob') ? { hang: true } : { status: 200 }) });
    server = await startServer({
      agent: authAgent,
      ...LOCAL_PUSH,
      pushTimeout: 4,
      pushMaxRetries: 1,
      // The breaker would close the shared origin to Alice too: this test is about shares alone.
      pushCircuitFailures: 1000,
      shutdownGrace: 0.5,
    });
  });
  afterAll(async () => {
    await server.stop();
    await rx.close();
  });

  it("Bob's deliveries wait in his own share; Alice's, to the same origin, do not wait behind them", async () => {
    await Promise.all(
      Array.from({ length: BOB_TASKS }, () =>
        sendAs(server.url, BOB, {
          message: userMessage('slow 1000'),
          configuration: { blocking: false, pushNotificationConfig: { url: `http://127.0.0.1:${rx.port}/bob` } },
        }),
      ),
    );
    // Bob holds what he may: his share (before the fix, every slot).
    await eventually(() => (rx.inFlight >= 10 ? true : undefined), 5000);
    const sentAt = performance.now();
    const task = await sendAs(server.url, ALICE, {
      message: userMessage('echo hi'),
      configuration: { pushNotificationConfig: { url: `http://127.0.0.1:${rx.port}/alice` } },
    });
    const arrived = await eventually(
      () => rx.received.find((r) => r.path === '/alice' && r.body?.id === task.id && r.body.status?.state === 'completed'),
      10_000,
    );
    // While Bob held every slot, Alice's waited behind his for a whole push_timeout or more.
    expect(arrived.at - sentAt).toBeLessThan(2000);
    expect(rx.maxInFlight).toBeLessThanOrEqual(server.settings.pushMaxConcurrentPerCaller + 1);
  }, 20_000);
});

describe('push circuit breaker and backlog', () => {
  let server: TestServer;
  let logs: CapturedLogs;
  let flaky: Receiver;
  let slow: Receiver;
  let down = true;
  beforeAll(async () => {
    flaky = await startReceiver({ respond: () => (down ? { hang: true } : { status: 200 }) });
    slow = await startReceiver({ respond: () => ({ status: 200, delayMs: 250 }) });
    logs = captureLogs();
    server = await startServer({
      ...LOCAL_PUSH,
      logger: logs.logger,
      pushTimeout: 0.3,
      pushMaxRetries: 2,
      pushRetryDelay: 0.05,
      pushCircuitFailures: 3,
      pushCircuitCooldown: 1.5,
      pushMaxQueuedPerConfig: 3,
      shutdownGrace: 0.5,
    });
  });
  afterAll(async () => {
    await server.stop();
    await flaky.close();
    await slow.close();
  });

  it('opens after failures in a row, sends nothing while open, and a probe closes it once the receiver answers', async () => {
    const a2a = client(server.url, 'rest');
    const sent = await a2a.send({ message: userMessage('echo x'), configuration: { pushNotificationConfig: { url: flaky.url } } });
    const id = sent.result.id as string;
    // working: two attempts time out; completed: the first one does, the third failure in a row.
    const opened = await eventually(async () => {
      const text = await scrape(server);
      return sample(text, 'a2actor_push_circuits_open') === 1 ? text : undefined;
    }, 5000);
    expect(sample(opened, 'a2actor_push_queued')).toBe(1);
    expect(flaky.received).toHaveLength(3);
    const [opening] = logs.events('push.circuit_opened');
    expect(opening).toMatchObject({ webhook: `http://127.0.0.1:${flaky.port}`, failures: 3 });
    // While open, the waiting delivery is not sent.
    await new Promise((r) => setTimeout(r, 400));
    expect(flaky.received).toHaveLength(3);

    down = false;
    // After the cool-down the waiting delivery is the probe: it gets through and closes the circuit.
    await eventually(() => (flaky.received.length === 4 ? true : undefined), 5000);
    expect(statesOf(flaky.bodiesOf(id))).toEqual(['working', 'working', 'completed', 'completed']);
    const closed = await eventually(async () => {
      const text = await scrape(server);
      return sample(text, 'a2actor_push_circuits_open') === 0 ? text : undefined;
    }, 2000);
    expect(sample(closed, 'a2actor_push_deliveries_total', 'outcome="delivered"')).toBe(1);
    expect(logs.events('push.circuit_closed')).toHaveLength(1);
  });

  it('a receiver that cannot keep up gets newer states in place of older ones, in order, and always the final one', async () => {
    const a2a = client(server.url, 'rest');
    const sent = await a2a.send({
      message: userMessage('slow 1500'),
      configuration: { blocking: false, pushNotificationConfig: { url: slow.url } },
    });
    const id = sent.result.id as string;
    const finalArrived = eventually(
      () => (slow.bodiesOf(id).some((b: Json) => TERMINAL.includes(b.status.state)) ? true : undefined),
      10_000,
    );
    const peak = await peakWhile(() => server.stats().push.queued, finalArrived);
    // One line: at most its cap waiting and one being sent.
    expect(peak).toBeLessThanOrEqual(4);
    const bodies = slow.bodiesOf(id);
    expect(statesOf(bodies).at(-1)).toBe('completed');
    expect(statesOf(bodies).filter((s) => s === 'completed')).toHaveLength(1);
    const timestamps = bodies.map((b: Json) => b.status.timestamp as string);
    expect(timestamps).toEqual([...timestamps].sort());
    const text = await scrape(server);
    expect(sample(text, 'a2actor_push_deliveries_total', 'outcome="replaced"')).toBeGreaterThan(0);
  });

  it('the push gauges and counters pass promtool', async () => {
    const text = await scrape(server);
    for (const name of ['a2actor_push_queued', 'a2actor_push_in_flight', 'a2actor_push_circuits_open']) {
      expect(sample(text, name)).toBeTypeOf('number');
    }
    if (!existsSync(PROMTOOL)) return;
    const checked = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    const remarks = `${checked.stdout}${checked.stderr}`
      .split('\n')
      .filter((l) => l.trim() !== '' && !/^nodejs_active_(handles|requests|resources)_total non-counter/.test(l));
    expect(remarks).toEqual([]);
  });
});
