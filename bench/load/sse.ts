/**
 * An incremental reader of server-sent events (WHATWG "event stream" format, the framing A2A
 * streams use): feed it chunks as they arrive, get each event's joined `data:` lines back.
 * Comments (`: ping`), `id:` and `event:` lines are skipped: the bench only needs the data.
 */
export class SseReader {
  private buffer = '';

  /** Appends a chunk and returns the data of every event it completed. */
  push(chunk: string): string[] {
    this.buffer += chunk.includes('\r') ? chunk.replace(/\r\n?/g, '\n') : chunk;
    const events: string[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('data:')) data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      }
      if (data.length > 0) events.push(data.join('\n'));
    }
    return events;
  }

  /** Bytes of an unfinished event still held (a stream that ended mid-event). */
  get pending(): number {
    return this.buffer.trim().length;
  }
}
