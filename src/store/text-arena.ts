/**
 * Off-heap storage for many small UTF-8 texts (the memory store's task JSON). Texts are written
 * back to back into 1 MiB chunks and addressed by (chunk, offset, length) numbers, so a stored
 * text costs its bytes and no JavaScript object: the garbage collector neither walks nor moves
 * it, however many tasks the store holds. Replaced texts leave dead bytes behind; once they
 * outweigh the live ones the arena copies the live texts into fresh chunks (amortized: the copy
 * is never larger than the bytes written since the last one).
 */
import { withRoom } from './columns.js';

const CHUNK_BYTES = 1 << 20;
/** Below this, dead bytes are not worth a compaction. */
const MIN_COMPACT_BYTES = 8 << 20;

export class TextArena {
  private chunks: Buffer[] = [];
  /** Free space starts here in the last chunk. */
  private offset = 0;
  private chunkOf: Uint32Array<ArrayBuffer> = new Uint32Array(1024);
  private offsetOf: Uint32Array<ArrayBuffer> = new Uint32Array(1024);
  /** Byte length; 0 means the slot holds no text. */
  private lengthOf: Uint32Array<ArrayBuffer> = new Uint32Array(1024);
  private liveBytes = 0;
  private deadBytes = 0;

  /** Stores `text` in `slot` (replacing what the slot held). */
  set(slot: number, text: string): void {
    this.makeRoom(slot);
    this.release(slot);
    const length = Buffer.byteLength(text, 'utf8');
    this.write(slot, length, (chunk, at) => chunk.write(text, at, length, 'utf8'));
  }

  /**
   * Empties `slot` and returns the chunk its next text goes into, with room for `maxLength`
   * bytes from `freeOffset`: the caller writes the text there and then calls `commit` (nothing
   * else may write to the arena in between). The memory store's packer compacts a task's text
   * in place there, so the text is written once, not packed elsewhere and copied.
   */
  beginWrite(slot: number, maxLength: number): Buffer {
    this.makeRoom(slot);
    this.release(slot);
    return this.room(maxLength);
  }

  /** Where `beginWrite`'s caller writes. */
  get freeOffset(): number {
    return this.offset;
  }

  /** Records the `length` bytes written at `freeOffset` of `beginWrite`'s chunk as `slot`'s text. */
  commit(slot: number, length: number): void {
    if (length === 0) throw new Error('text arena: empty text');
    const chunk = this.chunks[this.chunks.length - 1];
    if (!chunk || this.offset + length > chunk.length) throw new Error('text arena: commit past the room begun');
    this.chunkOf[slot] = this.chunks.length - 1;
    this.offsetOf[slot] = this.offset;
    this.lengthOf[slot] = length;
    this.offset += length;
    this.liveBytes += length;
  }

  /** Empties `slot` (its text is kept elsewhere now). */
  clear(slot: number): void {
    this.makeRoom(slot);
    this.release(slot);
  }

  get(slot: number): string {
    const length = this.lengthOf[slot] ?? 0;
    const chunk = this.chunks[this.chunkOf[slot] as number];
    if (length === 0 || !chunk) throw new Error(`text arena: slot ${slot} is empty`);
    const at = this.offsetOf[slot] as number;
    return chunk.toString('utf8', at, at + length);
  }

  /** Bytes held by stored texts, and bytes lost to replaced ones (for tests and stats). */
  stats(): { liveBytes: number; deadBytes: number; chunks: number } {
    return { liveBytes: this.liveBytes, deadBytes: this.deadBytes, chunks: this.chunks.length };
  }

  private release(slot: number): void {
    const old = this.lengthOf[slot] as number;
    if (old === 0) return;
    this.lengthOf[slot] = 0;
    this.liveBytes -= old;
    this.deadBytes += old;
    if (this.deadBytes > this.liveBytes && this.deadBytes >= MIN_COMPACT_BYTES) this.compact();
  }

  /** Reserves `length` bytes for `slot` and lets `fill` write them. */
  private write(slot: number, length: number, fill: (chunk: Buffer, at: number) => void): void {
    if (length === 0) throw new Error('text arena: empty text');
    fill(this.room(length), this.offset);
    this.commit(slot, length);
  }

  /** The last chunk, with `length` free bytes from `offset` (a new chunk when it has not). */
  private room(length: number): Buffer {
    const last = this.chunks[this.chunks.length - 1];
    if (last && this.offset + length <= last.length) return last;
    // The rest of the current chunk is too small: it stays unused (dead).
    if (last) this.deadBytes += last.length - this.offset;
    // A text larger than a chunk gets a chunk of its own.
    const chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, length));
    this.chunks.push(chunk);
    this.offset = 0;
    return chunk;
  }

  /** Copies every live text into fresh chunks and lets the old ones go. */
  private compact(): void {
    const old = this.chunks;
    this.chunks = [];
    this.offset = 0;
    this.liveBytes = 0;
    this.deadBytes = 0;
    for (let slot = 0; slot < this.lengthOf.length; slot++) {
      const length = this.lengthOf[slot] as number;
      if (length === 0) continue;
      const from = old[this.chunkOf[slot] as number] as Buffer;
      const at = this.offsetOf[slot] as number;
      this.write(slot, length, (chunk, to) => from.copy(chunk, to, at, at + length));
    }
  }

  private makeRoom(slot: number): void {
    const make = (size: number) => new Uint32Array(size);
    this.chunkOf = withRoom(this.chunkOf, slot, make);
    this.offsetOf = withRoom(this.offsetOf, slot, make);
    this.lengthOf = withRoom(this.lengthOf, slot, make);
  }
}
