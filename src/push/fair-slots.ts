/**
 * The global limit on webhook attempts in flight (`push_max_concurrent`), shared fairly: each
 * share (a caller, see `shareOf` in delivery.ts) may hold at most `perShare` slots, and a slot
 * that frees up goes to the next share in turn, not to whoever asked first. So one caller whose
 * receivers never answer holds at most its share, and another caller's delivery waits for one
 * slot at most, however long the first one's line is.
 */

interface Waiter {
  grant(): void;
}

export class FairSlots {
  /** Slots held now, per share (a share holding none has no entry). */
  private readonly held = new Map<string, number>();
  /** Waiters per share, oldest first. */
  private readonly lines = new Map<string, Waiter[]>();
  /**
   * When each share active now (holding or waiting) last got a slot, as a grant count: the
   * lowest goes next, and a share new to the line goes before all that were served.
   */
  private readonly lastServed = new Map<string, number>();
  private grants = 0;
  private used = 0;
  private waitingCount = 0;

  constructor(
    private readonly limit: number,
    private readonly perShare: number,
  ) {}

  /** Attempts holding a slot now. */
  get inUse(): number {
    return this.used;
  }

  /** Attempts waiting for a slot. */
  get waiting(): number {
    return this.waitingCount;
  }

  /**
   * Resolves true once a slot is held for `share` (give it back with `release`), or false if
   * `signal` aborts first.
   */
  acquire(share: string, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    // With a slot free, every waiter is at its share's cap (else it would hold that slot).
    if (this.used < this.limit && this.heldBy(share) < this.perShare) {
      this.take(share);
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        if (this.forget(share, waiter)) resolve(false);
      };
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(true);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      let line = this.lines.get(share);
      if (!line) this.lines.set(share, (line = []));
      line.push(waiter);
      this.waitingCount++;
    });
  }

  release(share: string): void {
    const held = this.heldBy(share);
    if (held <= 0) return;
    if (held === 1) {
      this.held.delete(share);
      if (!this.lines.has(share)) this.lastServed.delete(share);
    } else this.held.set(share, held - 1);
    this.used--;
    this.grantNext();
  }

  private heldBy(share: string): number {
    return this.held.get(share) ?? 0;
  }

  private take(share: string): void {
    this.held.set(share, this.heldBy(share) + 1);
    this.lastServed.set(share, ++this.grants);
    this.used++;
  }

  /** Free slots go to the waiting shares below their cap, the one served least recently first. */
  private grantNext(): void {
    while (this.used < this.limit && this.waitingCount > 0) {
      let next: { share: string; line: Waiter[] } | undefined;
      let nextServed = Infinity;
      for (const [share, line] of this.lines) {
        if (this.heldBy(share) >= this.perShare) continue;
        const served = this.lastServed.get(share) ?? 0;
        if (served < nextServed) {
          next = { share, line };
          nextServed = served;
        }
      }
      if (!next) return;
      const waiter = next.line.shift() as Waiter;
      this.waitingCount--;
      if (next.line.length === 0) this.lines.delete(next.share);
      this.take(next.share);
      waiter.grant();
    }
  }

  /** Removes a waiter that gave up; false if it was granted already. */
  private forget(share: string, waiter: Waiter): boolean {
    const line = this.lines.get(share);
    const at = line ? line.indexOf(waiter) : -1;
    if (!line || at < 0) return false;
    line.splice(at, 1);
    this.waitingCount--;
    if (line.length === 0) {
      this.lines.delete(share);
      if (this.heldBy(share) === 0) this.lastServed.delete(share);
    }
    return true;
  }
}
