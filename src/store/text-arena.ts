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
  private offset = CHUNK_BYTES;
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

  /** Stores the first `length` bytes of `source` (UTF-8) in `slot`: a text already encoded. */
  setBytes(slot: number, source: Buffer, length: number): void {
    this.makeRoom(slot);
    this.release(slot);
    this.write(slot, length, (chunk, at) => source.copy(chunk, at, 0, length));
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
    if (this.offset + length > CHUNK_BYTES || this.chunks.length === 0) {
      // The rest of the current chunk is too small: it stays unused (dead).
      if (this.chunks.length > 0) this.deadBytes += CHUNK_BYTES - this.offset;
      this.chunks.push(Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, length)));
      this.offset = 0;
    }
    const index = this.chunks.length - 1;
    fill(this.chunks[index] as Buffer, this.offset);
    this.chunkOf[slot] = index;
    this.offsetOf[slot] = this.offset;
    this.lengthOf[slot] = length;
    // A text larger than a chunk got a chunk of its own, which is then full.
    this.offset = length > CHUNK_BYTES ? CHUNK_BYTES : this.offset + length;
    this.liveBytes += length;
  }

  /** Copies every live text into fresh chunks and lets the old ones go. */
  private compact(): void {
    const old = this.chunks;
    this.chunks = [];
    this.offset = CHUNK_BYTES;
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
