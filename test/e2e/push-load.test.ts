/**
 * The global delivery limit (spec "Limits": push_max_concurrent = 50) under load: 200 configs
 * on 200 tasks, all pointing at one slow receiver on 127.0.0.1. The receiver holds every
 * request until the test opens its gate, so "never more than 50 in flight" is observed with
 * the limit saturated, not hoped for; each config's deliveries must still arrive in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, userMessage, type Json } from '../support/a2a.js';
import { startServer, type TestServer } from '../support/server.js';
import { gate, startReceiver, type Receiver } from '../support/webhook.js';

const TASKS = 200;
const LIMIT = 50;
const TERMINAL = ['completed', 'failed', 'canceled', 'rejected'];

describe('push under load', () => {
  let server: TestServer;
  let rx: Receiver;
  const doors = gate();
  beforeAll(async () => {
    // Held at the gate first; afterwards still slow (each answer takes 10 ms).
    rx = await startReceiver({
      respond: async () => {
        await doors.wait;
        return { status: 200, delayMs: 10 };
      },
    });
    // One receiver (one origin, no auth: one caller) may take the whole limit: the global cap is what is tested here.
    server = await startServer({ pushAllowHttp: true, pushAllowedHosts: ['127.0.0.1'], pushMaxConcurrentPerCaller: LIMIT });
  });
  afterAll(async () => {
    doors.open();
    await server.stop();
    await rx.close();
  });

  it(`${TASKS} configs on ${TASKS} tasks never have more than ${LIMIT} deliveries in flight, and each stays in order`, async () => {
    expect(server.settings.pushMaxConcurrent).toBe(LIMIT);
    const a2a = client(server.url, 'rest');
    const ids: string[] = [];
    // "slow 200": working, a few status updates, completed: several deliveries per config.
    for (let batch = 0; batch < TASKS / 20; batch++) {
      const sent = await Promise.all(
        Array.from({ length: 20 }, () =>
          a2a.send({ message: userMessage('slow 200'), configuration: { blocking: false, pushNotificationConfig: { url: rx.url } } }),
        ),
      );
      for (const r of sent) ids.push(r.result.id);
    }
    expect(new Set(ids).size).toBe(TASKS);

    // The gate is shut: the limit fills up and nothing gets past it.
    await eventually(() => (rx.inFlight >= LIMIT ? true : undefined), 20_000);
    await eventually(() => (server.stats().push.workers === TASKS ? true : undefined), 20_000);
    const held = server.stats().push;
    expect(held.inFlight).toBe(LIMIT);
    expect(held.queued).toBeGreaterThan(LIMIT);
    // Give an over-limit request every chance to show up (bounded wait, no timing assertion).
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.received).toHaveLength(LIMIT);
    expect(rx.maxInFlight).toBe(LIMIT);

    doors.open();
    await eventually(
      () => (ids.every((id) => rx.bodiesOf(id).some((b: Json) => TERMINAL.includes(b.status.state))) ? true : undefined),
      60_000,
      50,
    );
    expect(rx.maxInFlight).toBe(LIMIT);

    for (const id of ids) {
      const bodies = rx.bodiesOf(id);
      const states = bodies.map((b: Json) => b.status.state as string);
      expect(states[0]).toBe('working');
      expect(states.at(-1)).toBe('completed');
      expect(states.filter((s) => s === 'completed')).toHaveLength(1);
      const timestamps = bodies.map((b: Json) => b.status.timestamp as string);
      expect(timestamps).toEqual([...timestamps].sort());
    }
    await eventually(() => {
      const p = server.stats().push;
      return p.workers === 0 && p.queued === 0 && p.inFlight === 0 ? p : undefined;
    }, 20_000);
  }, 120_000);
});
