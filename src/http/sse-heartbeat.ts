/**
 * The SSE heartbeat: one timer for every open stream of a front end, instead of a timer set and
 * cleared per stream. Each stream gets a ping within `everyMs` of opening, then every `everyMs`.
 * The timer stops at the first tick that finds no stream, not when the last one leaves: under
 * load the set empties and fills again many times a second, and restarting it each time would
 * cost a setInterval and a clearInterval per stream.
 */

/** A stream the heartbeat pings: a comment line, which also wakes a stream blocked by its reader. */
export interface Pinged {
  ping(): void;
}

export class Heartbeat {
  private readonly streams = new Set<Pinged>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly everyMs: number) {}

  add(stream: Pinged): void {
    this.streams.add(stream);
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.streams.size === 0) {
        clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      // A ping may close its stream, which leaves the set: safe while iterating a Set.
      for (const s of this.streams) s.ping();
    }, this.everyMs);
    this.timer.unref();
  }

  delete(stream: Pinged): void {
    this.streams.delete(stream);
  }
}
