/**
 * A string -> number index for the memory store's task ids (id -> slot), where a `Map` as large
 * as the store cost every new task an insert into a hash table of hundreds of thousands of
 * entries: a bucket, a chain entry and the key's header, most likely three cache misses, and
 * three pointers the garbage collector then marks at every full collection. Every new task pays
 * that insert, so it sits on the write path of every turn.
 *
 * Here the table is one Int32Array of (hash, value) pairs probed linearly: an insert or a miss
 * usually reads one cache line, and the table lives outside the JS heap, so the collector never
 * walks it. Keys are not copied in: the caller keeps each one by the number it maps to (the
 * store's id column), and `keyOf` reads it there to confirm a hash match. Nothing is ever
 * removed (a stored task stays stored), so there are no tombstones.
 *
 * The keys added are the runtime's own task ids; a client's id is only ever looked up, which
 * probes the table as it is and cannot grow a run of colliding entries. The hash is seeded per
 * index all the same, but it is no keyed cryptographic hash: keys that clients choose (message
 * ids) stay in a `Map`.
 */
import { randomBytes } from 'node:crypto';

/**
 * The table doubles once it is half full: at that load a linear probe is expected to read one and a
 * half pairs for a hit and two and a half for a miss (Knuth's analysis of linear probing).
 */
const MAX_LOAD = 0.5;
const INITIAL_PAIRS = 1024;
/** Stored in place of a hash of 0, which marks an empty pair. */
const NONZERO = 1;

export class StringIndex {
  /** `[hash, value, hash, value, …]`; a hash of 0 is an empty pair. */
  private pairs = new Int32Array(2 * INITIAL_PAIRS);
  /** Pairs in the table minus one (the table holds a power of two of them). */
  private mask = INITIAL_PAIRS - 1;
  private count = 0;
  private readonly seed = randomBytes(4).readInt32LE(0);

  /** `keyOf(value)`: the key the caller stored `value` under. */
  constructor(private readonly keyOf: (value: number) => string) {}

  get size(): number {
    return this.count;
  }

  /** The value stored for `key`, or -1. */
  get(key: string): number {
    const pairs = this.pairs;
    const mask = this.mask;
    const hash = this.hash(key);
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const found = pairs[2 * at] as number;
      if (found === 0) return -1;
      if (found === hash) {
        const value = pairs[2 * at + 1] as number;
        if (this.keyOf(value) === key) return value;
      }
    }
  }

  /**
   * Adds `key` -> `value` (a non-negative int32). The caller adds a key only once, after `get`
   * answered -1 for it, and must keep `keyOf(value)` answering `key` from now on.
   */
  add(key: string, value: number): void {
    if (this.count + 1 > (this.mask + 1) * MAX_LOAD) this.grow();
    this.place(this.pairs, this.mask, this.hash(key), value);
    this.count++;
  }

  private place(pairs: Int32Array, mask: number, hash: number, value: number): void {
    let at = hash & mask;
    while (pairs[2 * at] !== 0) at = (at + 1) & mask;
    pairs[2 * at] = hash;
    pairs[2 * at + 1] = value;
  }

  /** Twice the pairs, each moved by its stored hash: no key is read or hashed again. */
  private grow(): void {
    const old = this.pairs;
    const mask = this.mask * 2 + 1;
    const pairs = new Int32Array(2 * (mask + 1));
    for (let i = 0; i < old.length; i += 2) {
      const hash = old[i] as number;
      if (hash !== 0) this.place(pairs, mask, hash, old[i + 1] as number);
    }
    this.pairs = pairs;
    this.mask = mask;
  }

  /**
   * A 32-bit hash of every UTF-16 unit of `key` (two per step), never 0. The final mixing
   * spreads the bits that differ between ids made one after another (their last characters)
   * into the low bits the table is indexed by.
   */
  private hash(key: string): number {
    const length = key.length;
    let h = this.seed ^ length;
    let i = 0;
    for (; i + 1 < length; i += 2) h = Math.imul(h ^ (key.charCodeAt(i) | (key.charCodeAt(i + 1) << 16)), 0x5bd1e995) ^ (h >>> 15);
    if (i < length) h = Math.imul(h ^ key.charCodeAt(i), 0x5bd1e995) ^ (h >>> 15);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h === 0 ? NONZERO : h;
  }
}
