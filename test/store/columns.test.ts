import { describe, expect, it } from 'vitest';
import { timeOf } from '../../src/store/columns.js';

/** A small deterministic generator: the property test is the same on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('status time column', () => {
  it('reads every toISOString timestamp as Date.parse does, from year 0 to 9999', () => {
    const next = random(19);
    const first = Date.parse('0000-01-01T00:00:00.000Z');
    const last = Date.parse('9999-12-31T23:59:59.999Z');
    for (let i = 0; i < 200_000; i++) {
      const ms = Math.floor(first + next() * (last - first));
      const iso = new Date(ms).toISOString();
      expect(timeOf(iso)).toBe(ms);
    }
    // Days around every month end, leap years and the epoch.
    for (const year of [0, 1, 99, 100, 400, 1600, 1899, 1900, 1969, 1970, 2000, 2024, 2026, 2100, 9999])
      for (let month = 1; month <= 12; month++)
        for (const day of [1, 28, 29, 30, 31]) {
          const iso = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T23:59:59.999Z`;
          expect(timeOf(iso)).toBe(Date.parse(iso));
        }
  });

  it('gives Date.parse its other forms and out-of-range fields', () => {
    const others = [
      '2026-11-24T14:59:55Z',
      '2026-11-24T14:59:55.939+01:00',
      '2026-11-24',
      '2026-11-24T24:00:00.000Z',
      '2026-13-01T00:00:00.000Z',
      '2026-00-10T00:00:00.000Z',
      '2026-11-00T00:00:00.000Z',
      '2026-11-32T00:00:00.000Z',
      '2026-11-24T14:60:55.939Z',
      '2026-11-24T14:59:60.939Z',
      '2026-11-24T1a:59:55.939Z',
      '+02026-11-24T14:59:55.939Z',
      '2026-11-24T14:59:55.939z',
      'not a time at all, 24 ch',
      '',
    ];
    for (const iso of others) expect(timeOf(iso)).toBe(Date.parse(iso));
  });
});
