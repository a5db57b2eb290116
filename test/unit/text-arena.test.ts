import { describe, expect, it } from 'vitest';
import { TextArena } from '../../src/store/text-arena.js';

describe('TextArena', () => {
  it('keeps texts off the heap and gives them back exactly, including non-ASCII and large ones', () => {
    const arena = new TextArena();
    const texts = ['{"a":1}', 'héllo wörld ✓ 日本語 🎉', 'x'.repeat(3 << 20), '{"b":2}'];
    texts.forEach((t, slot) => arena.set(slot, t));
    texts.forEach((t, slot) => expect(arena.get(slot)).toBe(t));
    expect(arena.stats().liveBytes).toBe(texts.reduce((n, t) => n + Buffer.byteLength(t), 0));
  });

  it('grows its slot columns past their first size', () => {
    const arena = new TextArena();
    for (let slot = 0; slot < 5000; slot++) arena.set(slot, `{"slot":${slot}}`);
    for (let slot = 0; slot < 5000; slot += 499) expect(arena.get(slot)).toBe(`{"slot":${slot}}`);
  });

  it('replaces a slot and compacts once dead bytes outweigh live ones, keeping every text', () => {
    const arena = new TextArena();
    const body = (slot: number, round: number) => `{"slot":${slot},"round":${round},"pad":"${'p'.repeat(100_000)}"}`;
    for (let slot = 0; slot < 20; slot++) arena.set(slot, body(slot, 0));
    let maxChunks = 0;
    for (let round = 1; round <= 60; round++) {
      for (let slot = 0; slot < 20; slot++) arena.set(slot, body(slot, round));
      maxChunks = Math.max(maxChunks, arena.stats().chunks);
    }
    for (let slot = 0; slot < 20; slot++) expect(arena.get(slot)).toBe(body(slot, 60));
    const { liveBytes, deadBytes, chunks } = arena.stats();
    expect(liveBytes).toBe(Array.from({ length: 20 }, (_, slot) => Buffer.byteLength(body(slot, 60))).reduce((a, b) => a + b));
    // 120 MB were written; compaction kept the arena near twice the live bytes (plus the 8 MiB floor).
    expect(deadBytes).toBeLessThanOrEqual(Math.max(liveBytes, 8 << 20) + (1 << 20));
    expect(maxChunks).toBeLessThan(16);
    expect(chunks).toBeLessThan(16);
  });

  it('takes a text written in place at its free offset, in a new chunk when the current one has no room', () => {
    const arena = new TextArena();
    const put = (slot: number, text: string, room = text.length) => {
      const chunk = arena.beginWrite(slot, room);
      chunk.write(text, arena.freeOffset, 'latin1');
      arena.commit(slot, text.length);
    };
    put(0, 'first');
    const filler = 'f'.repeat((1 << 20) - 100);
    put(1, filler);
    // 99 bytes are left in the chunk: room for 200 asked, 10 used, goes to a new chunk.
    put(2, 'next chunk', 200);
    put(3, 'z'.repeat(3 << 20));
    put(0, 'replaced');
    expect([0, 1, 2, 3].map((slot) => arena.get(slot))).toEqual(['replaced', filler, 'next chunk', 'z'.repeat(3 << 20)]);
    expect(arena.stats().chunks).toBe(4);
    expect(arena.stats().liveBytes).toBe(8 + filler.length + 10 + (3 << 20));
    arena.beginWrite(4, 10);
    expect(() => arena.commit(4, 2 << 20)).toThrow(/past the room/);
  });

  it('refuses to read a slot it never stored', () => {
    const arena = new TextArena();
    arena.set(0, 'a');
    expect(() => arena.get(1)).toThrow(/empty/);
    expect(() => arena.get(5000)).toThrow(/empty/);
  });
});
