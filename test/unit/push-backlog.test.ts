/**
 * A config's line of deliveries (src/push/backlog.ts): every transition waits while the line is
 * short; past the cap the oldest non-final state is replaced; with the circuit open only the
 * newest non-final state and the final one wait; a final state is never replaced.
 */
import { describe, expect, it } from 'vitest';
import { admitToLine } from '../../src/push/backlog.js';

interface Job {
  name: string;
  terminal: boolean;
}
const working = (name: string): Job => ({ name, terminal: false });
const completed: Job = { name: 'completed', terminal: true };
const names = (jobs: Job[]) => jobs.map((j) => j.name);

describe('admitToLine', () => {
  it('under the cap every state waits, in order', () => {
    const line: Job[] = [];
    for (const job of [working('w1'), working('w2'), completed]) expect(admitToLine(line, job, { cap: 3, squeeze: false })).toEqual([]);
    expect(names(line)).toEqual(['w1', 'w2', 'completed']);
  });

  it('at the cap the oldest waiting non-final state is replaced; the final one stays', () => {
    const line: Job[] = [working('w1'), working('w2')];
    expect(names(admitToLine(line, working('w3'), { cap: 2, squeeze: false }))).toEqual(['w1']);
    expect(names(admitToLine(line, completed, { cap: 2, squeeze: false }))).toEqual(['w2']);
    expect(names(line)).toEqual(['w3', 'completed']);
    expect(names(admitToLine(line, working('late'), { cap: 2, squeeze: false }))).toEqual(['w3']);
    expect(names(line)).toEqual(['completed', 'late']);
  });

  it('with the circuit open a newer state replaces every waiting non-final one', () => {
    const line: Job[] = [working('w1'), working('w2')];
    expect(names(admitToLine(line, working('w3'), { cap: 20, squeeze: true }))).toEqual(['w1', 'w2']);
    expect(names(admitToLine(line, completed, { cap: 20, squeeze: true }))).toEqual(['w3']);
    expect(names(line)).toEqual(['completed']);
  });
});
