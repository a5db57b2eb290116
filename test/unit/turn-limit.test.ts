/** The per-turn time limit's deadlines (src/runtime/turn-limit.ts): one per running turn, none left behind. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { turnLimitOf } from '../../src/runtime/turn-limit.js';

afterEach(() => {
  vi.useRealTimers();
});

interface Turn {
  readonly name: string;
}

describe('the turn limit', () => {
  it('is off at 0 and when unset', () => {
    expect(turnLimitOf(0, () => {})).toBeUndefined();
    expect(turnLimitOf(undefined, () => {})).toBeUndefined();
  });

  it('expires a turn still running at the limit, once, and not one that ended before', () => {
    vi.useFakeTimers();
    const expired: string[] = [];
    const limit = turnLimitOf<Turn>(0.1, (turn) => expired.push(turn.name));
    if (!limit) throw new Error('a limit of 0.1 s is on');
    const quick: Turn = { name: 'quick' };
    const stuck: Turn = { name: 'stuck' };
    limit.started(quick);
    limit.started(stuck);
    expect(limit.pending).toBe(2);
    limit.ended(quick);
    vi.advanceTimersByTime(99);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['stuck']);
    // Its handler settling later ends nothing more.
    limit.ended(stuck);
    vi.advanceTimersByTime(1000);
    expect(expired).toEqual(['stuck']);
    expect(limit.pending).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a new turn of the same task starts a new deadline in place of the old one', () => {
    vi.useFakeTimers();
    const expired: string[] = [];
    const limit = turnLimitOf<Turn>(0.1, (turn) => expired.push(turn.name));
    if (!limit) throw new Error('a limit of 0.1 s is on');
    const task: Turn = { name: 'task' };
    limit.started(task);
    vi.advanceTimersByTime(60);
    limit.started(task);
    expect(limit.pending).toBe(1);
    vi.advanceTimersByTime(60);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(40);
    expect(expired).toEqual(['task']);
  });

  it('holds the process up only while a turn runs', () => {
    vi.useFakeTimers();
    const limit = turnLimitOf<Turn>(30, () => {});
    if (!limit) throw new Error('a limit of 30 s is on');
    const turns: Turn[] = Array.from({ length: 100 }, (_, i) => ({ name: String(i) }));
    for (const turn of turns) limit.started(turn);
    expect(limit.holdsProcess).toBe(true);
    // One timer for every turn.
    expect(vi.getTimerCount()).toBe(1);
    for (const turn of turns) limit.ended(turn);
    expect(limit.pending).toBe(0);
    expect(limit.holdsProcess).toBe(false);
  });
});
