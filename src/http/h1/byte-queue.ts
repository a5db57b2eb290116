/**
 * Bytes read from a socket and not used yet. A client may send a head one byte per packet:
 * joining each new chunk to all the bytes before it would copy the head once per byte, so the
 * queue grows its buffer by doubling (each byte is copied a bounded number of times), and holds a
 * single chunk, the common case, without copying it at all.
 */
export class ByteQueue {
  private buffer: Buffer | undefined;
  private start = 0;
  private end = 0;
  /** The buffer is ours to write into (not a chunk the socket handed over). */
  private owned = false;

  get length(): number {
    return this.end - this.start;
  }

  push(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.buffer === undefined || this.length === 0) {
      this.buffer = bytes;
      this.start = 0;
      this.end = bytes.length;
      this.owned = false;
      return;
    }
    const length = this.length;
    if (!this.owned || this.buffer.length - this.end < bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(length + bytes.length, length * 2, 1024));
      this.buffer.copy(grown, 0, this.start, this.end);
      this.buffer = grown;
      this.start = 0;
      this.end = length;
      this.owned = true;
    }
    bytes.copy(this.buffer, this.end);
    this.end += bytes.length;
  }

  /** The queued bytes, as a view (valid until the next push or take). */
  view(): Buffer | undefined {
    const buffer = this.buffer;
    if (buffer === undefined || this.length === 0) return undefined;
    // A chunk held whole is its own view: a subarray is an object made per call, twice a request.
    return this.start === 0 && this.end === buffer.length ? buffer : buffer.subarray(this.start, this.end);
  }

  /** Drops the first `count` bytes. */
  skip(count: number): void {
    this.start = Math.min(this.end, this.start + count);
    if (this.length === 0) this.clear();
  }

  /** All the queued bytes, leaving the queue empty. */
  take(): Buffer | undefined {
    const all = this.view();
    this.clear();
    return all;
  }

  clear(): void {
    this.buffer = undefined;
    this.start = 0;
    this.end = 0;
    this.owned = false;
  }
}
