/**
 * The circuit breaker of a webhook origin (src/push/circuit.ts): it opens after the configured
 * failures in a row, holds attempts back for the cool-down, lets one probe through, and closes
 * (everyone goes) or opens again (waiters count a failed attempt) on the probe's verdict.
 */
import { describe, expect, it } from 'vitest';
import { Circuits, type Admission } from '../../src/push/circuit.js';

const never = new AbortController().signal;
const O = 'http://127.0.0.1:9';

function breaker(failures = 3, cooldownMs = 60) {
  const changes: boolean[] = [];
  const circuits = new Circuits({ failures, cooldownMs, onChange: (_origin, open) => changes.push(open) });
  return { circuits, changes };
}

/** Fails `n` attempts in a row. */
async function fail(circuits: Circuits, n: number): Promise<void> {
  for (let i = 0; i < n; i++) circuits.record(O, await circuits.admit(O, never), 'failed');
}

describe('Circuits', () => {
  it('stays closed below the threshold; a success resets the count', async () => {
    const { circuits, changes } = breaker(3);
    await fail(circuits, 2);
    circuits.record(O, await circuits.admit(O, never), 'ok');
    await fail(circuits, 2);
    expect(circuits.isOpen(O)).toBe(false);
    expect(await circuits.admit(O, never)).toBe('go');
    expect(changes).toEqual([]);
  });

  it('opens after the failures in a row; after the cool-down one probe goes and its success lets everyone go', async () => {
    const { circuits, changes } = breaker(3, 60);
    await fail(circuits, 3);
    expect(circuits.isOpen(O)).toBe(true);
    expect(circuits.openCount).toBe(1);
    const started = Date.now();
    const first = circuits.admit(O, never);
    const second = circuits.admit(O, never);
    expect(await first).toBe('probe');
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    let secondAnswer: Admission | undefined;
    void second.then((a) => (secondAnswer = a));
    await new Promise((r) => setTimeout(r, 20));
    // The other attempt waits for the probe's verdict.
    expect(secondAnswer).toBeUndefined();
    circuits.record(O, 'probe', 'ok');
    expect(await second).toBe('go');
    expect(circuits.isOpen(O)).toBe(false);
    expect(changes).toEqual([true, false]);
  });

  it('a failed probe opens the circuit again and the waiters are refused (one failed attempt each)', async () => {
    const { circuits, changes } = breaker(2, 40);
    await fail(circuits, 2);
    const probe = circuits.admit(O, never);
    const waiter = circuits.admit(O, never);
    expect(await probe).toBe('probe');
    circuits.record(O, 'probe', 'failed');
    expect(await waiter).toBe('refused');
    expect(circuits.isOpen(O)).toBe(true);
    // A probe with no verdict (nothing was sent) passes the turn to the next attempt.
    const next = circuits.admit(O, never);
    const after = circuits.admit(O, never);
    expect(await next).toBe('probe');
    circuits.record(O, 'probe', 'none');
    expect(await after).toBe('probe');
    circuits.record(O, 'probe', 'ok');
    expect(changes).toEqual([true, false]);
  });

  it('an attempt waiting on an open circuit is released by its abort signal', async () => {
    const { circuits } = breaker(1, 10_000);
    await fail(circuits, 1);
    const stop = new AbortController();
    const waiting = circuits.admit(O, stop.signal);
    stop.abort();
    expect(await waiting).toBe('refused');
    circuits.stop();
  });
});
