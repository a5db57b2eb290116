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
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          let id: string | undefined;
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('id:')) id = line.slice(3).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length === 0) continue;
          const event: SseEvent = { ...(id !== undefined ? { id } : {}), data: JSON.parse(data.join('\n')) };
          out.push(event);
          init.onEvent?.(event);
          if (init.stopAfter !== undefined && out.length >= init.stopAfter) {
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
