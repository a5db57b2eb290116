/**
 * A chunked request body (RFC 9112 §7.1), decoded as its bytes arrive: each chunk's data is handed
 * on as a view of the bytes it came in, and the decoder says where the body ended so that what
 * follows (a pipelined request) is kept. Read strictly, as the head is (head.ts): a chunk size of
 * hex digits, extensions skipped, CRLF after every line and after the data, trailers read and
 * dropped, with limits on every line.
 */

/** A chunk-size line with its extensions, or one trailer line, in bytes. */
const MAX_LINE_BYTES = 4096;
/** All trailer lines together. */
const MAX_TRAILER_BYTES = 16 * 1024;
/** Hex digits of a chunk size: 13 of them already pass any body limit there is. */
const MAX_SIZE_DIGITS = 13;

const CR = 13;
const LF = 10;

type Phase =
  /** Reading hex digits of the size. */
  | 'size'
  /** After the size: extensions, up to CR. */
  | 'extension'
  /** After the CR of the size line. */
  | 'size-lf'
  | 'data'
  | 'data-cr'
  | 'data-lf'
  /** Trailer lines after the last chunk, until an empty line. */
  | 'trailer'
  | 'trailer-lf'
  | 'done';

function hexValue(byte: number): number {
  if (byte >= 48 && byte <= 57) return byte - 48;
  const lower = byte | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

export class ChunkedDecoder {
  private phase: Phase = 'size';
  private size = 0;
  private digits = 0;
  /** Bytes in the current size or trailer line. */
  private lineBytes = 0;
  private trailerBytes = 0;
  /** Why the body was refused; once set, nothing more is read. */
  refused: string | undefined;

  get done(): boolean {
    return this.phase === 'done';
  }

  /**
   * Reads from `bytes`, handing each piece of chunk data to `data`; returns how many bytes it
   * used: all of them, or fewer once the body ended (or was refused).
   */
  feed(bytes: Buffer, data: (piece: Buffer) => void): number {
    let at = 0;
    const end = bytes.length;
    while (at < end && this.refused === undefined) {
      switch (this.phase) {
        case 'data': {
          const take = Math.min(this.size, end - at);
          data(bytes.subarray(at, at + take));
          at += take;
          this.size -= take;
          if (this.size === 0) this.phase = 'data-cr';
          continue;
        }
        case 'done':
          return at;
        default:
          this.step(bytes[at] as number);
          at++;
      }
    }
    return at;
  }

  /** One byte of a line (size, extension, trailer) or of a CRLF. */
  private step(byte: number): void {
    switch (this.phase) {
      case 'size': {
        const digit = hexValue(byte);
        if (digit >= 0) {
          if (++this.digits > MAX_SIZE_DIGITS) return this.refuse('a chunk size too large');
          this.size = this.size * 16 + digit;
          return;
        }
        if (this.digits === 0) return this.refuse('a chunk size that is not hex');
        if (byte === CR) this.phase = 'size-lf';
        else if (byte === 59 /* ; */ || byte === 32 || byte === 9) this.phase = 'extension';
        else this.refuse('a chunk size that is not hex');
        this.lineBytes = this.digits + 1;
        return;
      }
      case 'extension':
        if (++this.lineBytes > MAX_LINE_BYTES) return this.refuse('a chunk extension too long');
        if (byte === CR) this.phase = 'size-lf';
        else if (byte === LF || byte === 0 || byte === 127) this.refuse('a control character in a chunk extension');
        return;
      case 'size-lf':
        if (byte !== LF) return this.refuse('a chunk size line not ended by CRLF');
        this.digits = 0;
        if (this.size === 0) {
          this.phase = 'trailer';
          this.lineBytes = 0;
        } else this.phase = 'data';
        return;
      case 'data-cr':
        if (byte !== CR) return this.refuse('chunk data longer than its size');
        this.phase = 'data-lf';
        return;
      case 'data-lf':
        if (byte !== LF) return this.refuse('chunk data not ended by CRLF');
        this.phase = 'size';
        return;
      case 'trailer':
        if (byte === CR) {
          this.phase = 'trailer-lf';
          return;
        }
        if (byte === LF || byte === 0) return this.refuse('a bare LF or NUL in a trailer');
        this.lineBytes++;
        if (this.lineBytes > MAX_LINE_BYTES || ++this.trailerBytes > MAX_TRAILER_BYTES) return this.refuse('trailers too long');
        return;
      case 'trailer-lf':
        if (byte !== LF) return this.refuse('a trailer line not ended by CRLF');
        // An empty line ends the trailers, and the body.
        this.phase = this.lineBytes === 0 ? 'done' : 'trailer';
        this.lineBytes = 0;
        return;
      default:
        return;
    }
  }

  private refuse(why: string): void {
    this.refused = why;
  }
}
