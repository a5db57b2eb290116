/**
 * The global webhook limit in fair shares (src/push/fair-slots.ts): a share never holds more
 * than its cap, a freed slot goes to the next share in turn rather than to the longest line,
 * and a waiter that gives up leaves no trace.
 */
import { describe, expect, it } from 'vitest';
import { FairSlots } from '../../src/push/fair-slots.js';

const never = new AbortController().signal;

/** Starts `n` acquisitions for `share`; `granted` counts those that got a slot so far. */
function ask(slots: FairSlots, share: string, n: number, signal = never) {
  const state = { granted: 0, aborted: 0 };
  for (let i = 0; i < n; i++) {
    void slots.acquire(share, signal).then((ok) => (ok ? state.granted++ : state.aborted++));
  }
  return state;
}

const settle = () => new Promise((r) => setImmediate(r));

describe('FairSlots', () => {
  it('a share holds at most its cap even with the global limit free', async () => {
    const slots = new FairSlots(50, 10);
    const bob = ask(slots, 'bob', 100);
    await settle();
    expect(bob.granted).toBe(10);
    expect(slots.inUse).toBe(10);
    expect(slots.waiting).toBe(90);
    const alice = ask(slots, 'alice', 1);
    await settle();
    expect(alice.granted).toBe(1);
  });

  it('a freed slot goes to the waiting share served least recently, not to the longest line', async () => {
    const slots = new FairSlots(4, 4);
    const bob = ask(slots, 'bob', 40);
    await settle();
    expect(bob.granted).toBe(4);
    const alice = ask(slots, 'alice', 2);
    const carol = ask(slots, 'carol', 1);
    await settle();
    expect([alice.granted, carol.granted]).toEqual([0, 0]);
    // Bob was served (his first four); Alice and Carol never were: they go first.
    slots.release('bob');
    await settle();
    expect([bob.granted, alice.granted, carol.granted]).toEqual([4, 1, 0]);
    slots.release('bob');
    await settle();
    expect([bob.granted, alice.granted, carol.granted]).toEqual([4, 1, 1]);
    slots.release('bob');
    await settle();
    // Then Bob, served before Alice was.
    expect([bob.granted, alice.granted, carol.granted]).toEqual([5, 1, 1]);
    slots.release('bob');
    await settle();
    expect([bob.granted, alice.granted, carol.granted]).toEqual([5, 2, 1]);
    expect(slots.inUse).toBe(4);
  });

  it('a waiter whose signal aborts gives up its place; the slot goes to the next', async () => {
    const slots = new FairSlots(1, 1);
    const first = ask(slots, 'a', 1);
    const stop = new AbortController();
    const quitter = ask(slots, 'b', 1, stop.signal);
    const next = ask(slots, 'c', 1);
    await settle();
    stop.abort();
    await settle();
    expect([first.granted, quitter.aborted, next.granted]).toEqual([1, 1, 0]);
    slots.release('a');
    await settle();
    expect([quitter.granted, next.granted, slots.waiting]).toEqual([0, 1, 0]);
  });
});
