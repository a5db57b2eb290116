/** Reading an SSE response the way A2A clients do (wire reference §2.3): `id:` and `data:` lines. */
import type { Json } from './a2a.js';

export interface SseEvent {
  id?: string;
  data: Json;
}

export interface SseStream {
  status: number;
  contentType: string | null;
  headers: Headers;
  /** Every event until the server ends the stream (or `stopAfter` events were read). */
  events: Promise<SseEvent[]>;
  /** Drops the connection now (a client that vanishes). */
  abort(): void;
}

/**
 * Splits a byte stream into SSE event blocks (text up to a blank line). An event's text may
 * span many chunks (a task snapshot of megabytes): its pieces are kept apart and joined once,
 * and each chunk is searched once, so reading an event costs its length, not its length times
 * its number of chunks.
 */
export class SseBlocks {
  private readonly decoder = new TextDecoder();
  private readonly pieces: string[] = [];
  /** The last piece ends with a newline: a chunk starting with one ends the block. */
  private endsWithNewline = false;

  /** The blocks that `chunk` completes, in order. */
  push(chunk: Uint8Array): string[] {
    const done: string[] = [];
    let text = this.decoder.decode(chunk, { stream: true });
    while (text.length > 0) {
      if (this.endsWithNewline && text.startsWith('\n')) {
        done.push(this.pieces.join('').slice(0, -1));
        text = text.slice(1);
      } else {
        const at = text.indexOf('\n\n');
        if (at < 0) {
          this.pieces.push(text);
          this.endsWithNewline = text.endsWith('\n');
          break;
        }
        done.push(this.pieces.join('') + text.slice(0, at));
        text = text.slice(at + 2);
      }
      this.pieces.length = 0;
      this.endsWithNewline = false;
    }
    return done;
  }
}

export async function openSse(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; stopAfter?: number; onEvent?: (e: SseEvent) => void } = {},
): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: controller.signal,
  });
  const read = async (): Promise<SseEvent[]> => {
    const out: SseEvent[] = [];
    if (!res.body) return out;
    /** Takes one event block; true when the reader has read enough (`stopAfter`). */
    const take = (block: string): boolean => {
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) id = line.slice(3).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length === 0) return false;
      const event: SseEvent = { ...(id !== undefined ? { id } : {}), data: JSON.parse(data.join('\n')) };
      out.push(event);
      init.onEvent?.(event);
      return init.stopAfter !== undefined && out.length >= init.stopAfter;
    };
    const blocks = new SseBlocks();
    try {
      for await (const chunk of res.body) {
        for (const block of blocks.push(chunk)) {
          if (take(block)) {
            controller.abort();
            return out;
          }
        }
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
    return out;
  };
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    headers: res.headers,
    events: read(),
    abort: () => controller.abort(),
  };
}
