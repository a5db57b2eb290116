/**
 * Runs an SSE writer's writes inside the response's `cork` (uWS sends what a cork gathers in one
 * packet) without allocating a function per call.
 *
 * `cork` takes a function, and the writes need arguments (the writer, and a probe line or the
 * reply's headers). A closure per call is garbage made at every event of every stream, on the
 * hottest path there is; so each front end has one SseCork, whose two callbacks are made once
 * and find their arguments here. The state is "the writer being corked now": it belongs to the
 * cork, not to a writer (which would need its own callbacks, two more objects per stream) nor to
 * the class (which every front end in the process would share). `cork` runs its function at
 * once, and each callback takes its arguments and clears them before it writes, so a cork
 * nested inside a write cannot mix them up.
 */
import type { WireResponse } from './wire.js';

/** The two writes a stream does inside a cork (SseWriter; only SseCork calls them). */
export interface CorkedWrites {
  /** The status, the stream's headers, the reply's own `headers`, and a first ping. */
  writeHead(headers: Readonly<Record<string, string>> | undefined): void;
  /** Queued chunks until the response pushes back; with none queued, `probe`. */
  writeQueued(probe: string | undefined): void;
}

export class SseCork {
  private writer: CorkedWrites | undefined;
  private probe: string | undefined;
  private headers: Readonly<Record<string, string>> | undefined;

  private readonly queuedCorked = (): void => {
    const writer = this.writer as CorkedWrites;
    const probe = this.probe;
    this.writer = undefined;
    this.probe = undefined;
    writer.writeQueued(probe);
  };

  private readonly headCorked = (): void => {
    const writer = this.writer as CorkedWrites;
    const headers = this.headers;
    this.writer = undefined;
    this.headers = undefined;
    writer.writeHead(headers);
  };

  /** `writer.writeHead(headers)` inside `res.cork`. */
  head(res: WireResponse, writer: CorkedWrites, headers: Readonly<Record<string, string>> | undefined): void {
    this.writer = writer;
    this.headers = headers;
    res.cork(this.headCorked);
  }

  /** `writer.writeQueued(probe)` inside `res.cork`. */
  queued(res: WireResponse, writer: CorkedWrites, probe: string | undefined): void {
    this.writer = writer;
    this.probe = probe;
    res.cork(this.queuedCorked);
  }
}
