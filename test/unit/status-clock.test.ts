import { describe, expect, it } from 'vitest';
import { isoAt, nextStatusMs, nextStatusTimestamp } from '../../src/runtime/status-clock.js';

describe('status clock', () => {
  it('formats exactly as Date#toISOString, across seconds, days, years and before 1970', () => {
    const samples = [
      0,
      1,
      999,
      1000,
      -1,
      -999,
      -1000,
      -1001,
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1),
      253402300799999,
    ];
    for (let ms = Date.now() - 5000; ms < Date.now() + 5000; ms += 7) samples.push(ms);
    for (const ms of samples) expect(isoAt(ms)).toBe(new Date(ms).toISOString());
    // Years past 9999 have the extended form.
    expect(isoAt(253402300800000)).toBe(new Date(253402300800000).toISOString());
  });

  it('never repeats or goes back for one task, even within one millisecond', () => {
    let ms = Date.now() + 50; // a previous timestamp in the future
    const seen: string[] = [];
    for (let i = 0; i < 100; i++) {
      ms = nextStatusMs(ms);
      seen.push(isoAt(ms));
    }
    expect(new Set(seen).size).toBe(100);
    expect(seen.slice().sort()).toEqual(seen);
    const task = { status: { timestamp: seen[99] as string } } as Parameters<typeof nextStatusTimestamp>[0];
    expect(nextStatusTimestamp(task) > (seen[99] as string)).toBe(true);
    // A status time that is not a date (a hand-edited store) starts again from now.
    const before = Date.now();
    const fresh = nextStatusMs(Number.NaN);
    expect(fresh).toBeGreaterThanOrEqual(before);
    expect(fresh).toBeLessThanOrEqual(Date.now());
  });
});
