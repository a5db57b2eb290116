/** Group commit (src/store/group-commit.ts): calls that arrive while batches are on their way go together. */
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/store/group-commit.js';

/** A batch runner that answers when told to, recording each batch. */
function gated() {
  const batches: number[][] = [];
  const open: (() => void)[] = [];
  const run = (items: number[]) => {
    batches.push(items);
    return new Promise<number[]>((resolve) => open.push(() => resolve(items.map((i) => i * 10))));
  };
  return { batches, run, answerAll: () => open.splice(0).forEach((answer) => answer()) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('a call alone goes at the end of its tick; calls made while the slots are busy go together after', async () => {
    const { batches, run, answerAll } = gated();
    const group = new GroupCommit({ run, maxInFlight: 1, maxBatch: 10 });
    const first = group.submit(1);
    await tick();
    expect(batches).toEqual([[1]]);
    const later = [2, 3, 4].map((i) => group.submit(i));
    await tick();
    expect(batches).toEqual([[1]]);
    answerAll();
    expect(await first).toBe(10);
    await tick();
    await tick();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    answerAll();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
  });

  it('keeps batches under the cap and never puts one key twice in a batch', async () => {
    const { batches, run, answerAll } = gated();
    const group = new GroupCommit({ run, maxInFlight: 3, maxBatch: 2, key: (i: number) => String(i % 5) });
    const all = [1, 2, 3, 6, 7].map((i) => group.submit(i));
    await tick();
    expect(batches).toEqual([[1, 2], [3, 6], [7]]);
    answerAll();
    expect(await Promise.all(all)).toEqual([10, 20, 30, 60, 70]);
  });

  it('a batch answers each item on its own: a failed item fails alone, a failed batch fails all', async () => {
    const group = new GroupCommit<number, number>({
      run: async (items) => {
        if (items.includes(0)) throw new Error('down');
        return items.map((i) => (i < 0 ? Promise.reject(new Error(`bad ${i}`)) : i));
      },
      maxInFlight: 1,
      maxBatch: 10,
    });
    const mixed = await Promise.allSettled([group.submit(1), group.submit(-1), group.submit(2)]);
    expect(mixed.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const down = await Promise.allSettled([group.submit(0), group.submit(3)]);
    expect(down.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
