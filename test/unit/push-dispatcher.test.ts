/**
 * The push dispatcher at its seam (src/push/dispatcher.ts), delivering to real webhook
 * receivers on 127.0.0.1 without a server around it: transitions become deliveries per config
 * in order, one slow config does not hold up another, retries happen on a 5xx, configs are read
 * once per turn, `drained` waits for a task's deliveries, and `recorded` for their outbox rows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Task, TaskState } from '../../src/a2a/schemas.js';
import { silentLogger } from '../../src/log.js';
import { PushDispatcher, type PushSettings } from '../../src/push/dispatcher.js';
import { DeliveryOutbox } from '../../src/push/outbox.js';
import { MemoryTaskStore } from '../../src/store/memory.js';
import { inProcessOutbox } from '../../src/store/outbox-memory.js';
import type { OutboxTable } from '../../src/store/outbox-table.js';
import type { StoredPushConfig } from '../../src/store/types.js';
import { eventually } from '../support/a2a.js';
import { gate, sequence, startReceiver, type Receiver, type Responder } from '../support/webhook.js';

const SETTINGS: PushSettings = {
  pushMaxRetries: 3,
  pushRetryDelay: 0.05,
  pushTimeout: 2,
  pushMaxConcurrent: 50,
  pushAllowHttp: true,
  pushIdleTimeout: 5,
  pushAllowedHosts: ['127.0.0.1'],
  pushBlockedHosts: [],
  pushMaxConcurrentPerCaller: 50,
  pushMaxQueuedPerConfig: 20,
  pushCircuitFailures: 5,
  pushCircuitCooldown: 15,
};

let transitionClock = Date.parse('2026-01-01T00:00:00.000Z');
/** The task as the runtime hands it over after each transition (timeline included). */
function taskIn(id: string, states: TaskState[]): Task {
  const transitions = states.map((state) => ({ state, timestamp: new Date(transitionClock++).toISOString() }));
  const last = transitions.at(-1)!;
  return {
    kind: 'task',
    id,
    contextId: 'c',
    status: { state: last.state, timestamp: last.timestamp },
    metadata: { stateTransitions: transitions },
  };
}

const open: { receivers: Receiver[]; dispatchers: PushDispatcher[] } = { receivers: [], dispatchers: [] };
afterEach(async () => {
  for (const d of open.dispatchers.splice(0)) await d.close(1000);
  for (const r of open.receivers.splice(0)) await r.close();
});

async function setUp(configs: Record<string, StoredPushConfig[]>, settings = SETTINGS) {
  let lookups = 0;
  const dispatcher = new PushDispatcher({
    configs: {
      async configsOf(taskId) {
        lookups++;
        return configs[taskId] ?? [];
      },
    },
    settings,
    logger: silentLogger,
  });
  open.dispatchers.push(dispatcher);
  return { dispatcher, lookups: () => lookups };
}

const receiver = async (respond?: Responder) => {
  const r = await startReceiver(respond ? { respond } : {});
  open.receivers.push(r);
  return r;
};

describe('PushDispatcher', () => {
  it('delivers every transition to each config in order, reading the configs once per turn', async () => {
    const a = await receiver();
    const b = await receiver();
    const { dispatcher, lookups } = await setUp({
      t1: [
        { id: 'a', url: a.url, token: 'tok-a' },
        { id: 'b', url: b.url },
      ],
    });
    dispatcher.registeredInline('t1');
    dispatcher.notify(taskIn('t1', ['submitted', 'working']));
    dispatcher.notify(taskIn('t1', ['submitted', 'working', 'working']));
    dispatcher.notify(taskIn('t1', ['submitted', 'working', 'working', 'completed']));
    await dispatcher.drained('t1', 5000);
    for (const r of [a, b]) expect(r.bodiesOf('t1').map((body) => body.status.state)).toEqual(['working', 'working', 'completed']);
    expect(a.received[0]?.headers['x-a2a-notification-token']).toBe('tok-a');
    expect(b.received[0]?.headers['x-a2a-notification-token']).toBeUndefined();
    expect(lookups()).toBe(1);
    expect(dispatcher.stats().cachedTasks).toBe(0);
  });

  it('a config whose receiver is stuck does not hold up another config of the same task', async () => {
    const held = gate();
    const slow = await receiver(async () => {
      await held.wait;
      return { status: 200 };
    });
    const fast = await receiver();
    const { dispatcher } = await setUp({
      t2: [
        { id: 'slow', url: slow.url },
        { id: 'fast', url: fast.url },
      ],
    });
    dispatcher.registeredInline('t2');
    dispatcher.notify(taskIn('t2', ['submitted', 'working']));
    dispatcher.notify(taskIn('t2', ['submitted', 'working', 'completed']));
    await eventually(() => (fast.bodiesOf('t2').length === 2 ? true : undefined));
    expect(slow.bodiesOf('t2')).toHaveLength(1);
    held.open();
    await dispatcher.drained('t2', 5000);
    expect(slow.bodiesOf('t2').map((body) => body.status.state)).toEqual(['working', 'completed']);
  });

  it('retries a 5xx until the receiver takes it, and a new task nobody configured costs no lookup', async () => {
    const flaky = await receiver(sequence([{ status: 503 }, { status: 500 }]));
    const { dispatcher, lookups } = await setUp({ t3: [{ id: 'x', url: flaky.url }] });
    dispatcher.registeredInline('t3');
    dispatcher.notify(taskIn('t3', ['submitted', 'working', 'completed']));
    await dispatcher.drained('t3', 5000);
    expect(flaky.bodiesOf('t3')).toHaveLength(3);
    // First transition of a task with no inline config: nothing outside has seen it yet.
    dispatcher.notify(taskIn('t4', ['submitted', 'working']));
    await dispatcher.drained('t4', 1000);
    expect(lookups()).toBe(1);
  });

  it("each owner holds at most its share of the slots; without auth the webhook's origin is the share", async () => {
    const held = gate();
    const rx = await receiver(async () => {
      await held.wait;
      return { status: 200 };
    });
    const configsOf = (task: string) => Array.from({ length: 5 }, (_, i) => ({ id: `${task}-${i}`, url: `${rx.url}/${i}` }));
    const { dispatcher } = await setUp(
      { ta: configsOf('ta'), tb: configsOf('tb'), tc: configsOf('tc') },
      { ...SETTINGS, pushMaxConcurrentPerCaller: 2 },
    );
    for (const id of ['ta', 'tb', 'tc']) dispatcher.registeredInline(id);
    dispatcher.notify(taskIn('ta', ['submitted', 'working']), 'alice');
    await eventually(() => (rx.inFlight === 2 ? true : undefined));
    dispatcher.notify(taskIn('tb', ['submitted', 'working']), 'bob');
    await eventually(() => (rx.inFlight === 4 ? true : undefined));
    dispatcher.notify(taskIn('tc', ['submitted', 'working']));
    await eventually(() => (rx.inFlight === 6 ? true : undefined));
    // Give an over-share attempt every chance to show up (bounded wait, no timing assertion).
    await new Promise((r) => setTimeout(r, 100));
    expect(rx.inFlight).toBe(6);
    expect(dispatcher.stats()).toMatchObject({ inFlight: 6, queued: 15 });
    held.open();
    for (const id of ['ta', 'tb', 'tc']) await dispatcher.drained(id, 5000);
    expect(rx.received).toHaveLength(15);
  });

  it('recorded waits for a config lookup still running and for the write of its rows; a task without configs waits for nothing', async () => {
    const rx = await receiver();
    const inner = inProcessOutbox(new MemoryTaskStore());
    let written = 0;
    const heldWrites: Array<() => void> = [];
    let holding = true;
    const table: OutboxTable = {
      write: (added, done) =>
        new Promise<void>((resolve) => (holding ? heldWrites.push(resolve) : resolve())).then(() => {
          written += added.length;
          return inner.write(added, done);
        }),
      claim: (limit) => inner.claim(limit),
      close: () => inner.close(),
    };
    let answerLookup: (() => void) | undefined;
    const dispatcher = new PushDispatcher({
      configs: {
        async configsOf(taskId) {
          if (taskId !== 'hooked') return [];
          await new Promise<void>((resolve) => (answerLookup = resolve));
          return [{ id: 'a', url: rx.url }];
        },
      },
      settings: SETTINGS,
      logger: silentLogger,
      outbox: new DeliveryOutbox(table, silentLogger),
    });
    open.dispatchers.push(dispatcher);
    const flush = async () => {
      for (let i = 0; i < 10; i++) await Promise.resolve();
    };

    dispatcher.notify(taskIn('plain', ['submitted', 'working', 'input-required']));
    await flush();
    expect(dispatcher.recorded('plain')).toBeUndefined();

    dispatcher.notify(taskIn('hooked', ['submitted', 'working', 'input-required']));
    let done = false;
    void dispatcher.recorded('hooked')?.then(() => (done = true));
    await flush();
    expect(done).toBe(false);
    answerLookup?.();
    await flush();
    expect(done).toBe(false);
    for (const release of heldWrites.splice(0)) release();
    await flush();
    expect(written).toBe(1);
    expect(done).toBe(true);
    expect(dispatcher.recorded('hooked')).toBeUndefined();
    holding = false;
    for (const release of heldWrites.splice(0)) release();
  });
});
