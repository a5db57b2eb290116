import { describe, expect, it } from 'vitest';
import { ANONYMOUS, BodyBudget, SMALL_BODY_BYTES } from '../../src/http/body-budget.js';

const MB = 1024 * 1024;

/** Joins a body and records when it starts; `leave` gives its place back. */
function joiner(budget: BodyBudget, started: string[]) {
  return (name: string, bytes: number, caller: string) => {
    let refused = false;
    const leave = budget.join(
      bytes,
      caller,
      () => started.push(name),
      () => {
        refused = true;
      },
    );
    return { leave, refused: () => refused };
  };
}

describe('the body budget', () => {
  it('lets small bodies through at once, uncounted, however full it is', () => {
    const started: string[] = [];
    const join = joiner(new BodyBudget({ budgetBytes: MB, maxWaiting: 0, readTimeoutMs: 1000 }), started);
    join('big', MB, 'alice');
    join('small', SMALL_BODY_BYTES, 'bob');
    expect(started).toEqual(['big', 'small']);
  });

  it('always lets one large body go, even one larger than the budget', () => {
    const started: string[] = [];
    const join = joiner(new BodyBudget({ budgetBytes: MB, maxWaiting: 4, readTimeoutMs: 1000 }), started);
    join('huge', 10 * MB, 'alice');
    expect(started).toEqual(['huge']);
  });

  it('serves waiting callers in turn, not in arrival order, and never gives one caller more than half', () => {
    const started: string[] = [];
    const join = joiner(new BodyBudget({ budgetBytes: 16 * MB, maxWaiting: 10, readTimeoutMs: 1000 }), started);
    const first = join('bob-1', 6 * MB, 'bob');
    join('bob-2', 6 * MB, 'bob'); // bob would hold 12 of 16 MB: past his half
    join('bob-3', 6 * MB, 'bob');
    join('alice-1', 6 * MB, 'alice');
    expect(started).toEqual(['bob-1', 'alice-1']);
    first.leave();
    expect(started).toEqual(['bob-1', 'alice-1', 'bob-2']);
  });

  it('a body that leaves while waiting gives up its turn; leaving twice changes nothing', () => {
    const started: string[] = [];
    const budget = new BodyBudget({ budgetBytes: 10 * MB, maxWaiting: 10, readTimeoutMs: 1000 });
    const join = joiner(budget, started);
    const a = join('a', 8 * MB, ANONYMOUS);
    const b = join('b', 8 * MB, ANONYMOUS);
    join('c', 8 * MB, ANONYMOUS);
    b.leave();
    a.leave();
    a.leave();
    expect(started).toEqual(['a', 'c']);
    expect(budget.stats()).toEqual({ waiting: 0, inFlightBytes: 8 * MB });
  });

  it('refuses a large body when too many wait already', () => {
    const started: string[] = [];
    const join = joiner(new BodyBudget({ budgetBytes: MB, maxWaiting: 1, readTimeoutMs: 1000 }), started);
    join('a', MB, 'alice');
    const b = join('b', MB, 'bob');
    const c = join('c', MB, 'carol');
    expect(started).toEqual(['a']);
    expect(b.refused()).toBe(false);
    expect(c.refused()).toBe(true);
  });
});
