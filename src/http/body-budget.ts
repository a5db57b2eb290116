/**
 * How much request body is read and parsed at once. Parsing a large JSON body holds the event
 * loop, and reading one holds its bytes: a few callers posting large bodies in a loop would
 * otherwise starve every other request, their own small ones included.
 *
 * Small bodies pass at once and are not counted. A large one is read when the large bodies in
 * flight leave it room in the budget (one always may when none is in flight), and its caller's
 * own large bodies in flight leave it room in half the budget, so that one caller never holds it
 * all. Waiting bodies are served caller by caller in turn (anonymous callers share one turn: they
 * cannot be told apart); while one waits its socket is not read. A body counts until its request
 * has been parsed and handed on. Past `maxWaiting` waiting bodies, a new one is refused; the
 * exchange refuses one that does not arrive within `readTimeoutMs` of its turn.
 */

export interface BodyBudgetLimits {
  /** Bytes of large bodies read and parsed at once, server-wide (SERVICE_BODY_BUDGET_BYTES). */
  budgetBytes: number;
  /** Large bodies that may wait for their turn (SERVICE_BODY_QUEUE). */
  maxWaiting: number;
  /** How long a large body may take to arrive once its turn has come (SERVICE_BODY_READ_TIMEOUT). */
  readTimeoutMs: number;
}

/** Bodies up to this size are never held back: a health probe or a small send never waits. */
export const SMALL_BODY_BYTES = 64 * 1024;

/** Who waits: the caller's key, the body's size and what runs on its turn. */
interface Waiter {
  readonly caller: string;
  readonly bytes: number;
  readonly start: (leave: () => void) => void;
  readonly leave: () => void;
  state: 'waiting' | 'running' | 'done';
}

/** The caller key of requests whose caller is not known (auth off, or not authenticated yet). */
export const ANONYMOUS = '';

/** The `leave` of a small body: it holds no place in the budget. */
export const NO_PLACE = (): void => {};

/** What the budget holds now: large bodies waiting for their turn, and bytes of large bodies in flight. */
export interface BodyBudgetStats {
  /** Large bodies waiting for their turn. */
  waiting: number;
  /** Bytes of large bodies being read or parsed. */
  inFlightBytes: number;
}

/** A budget with nothing waiting or in flight (and what a front end without one reports). */
export const IDLE_BODY_BUDGET: Readonly<BodyBudgetStats> = Object.freeze({ waiting: 0, inFlightBytes: 0 });

export class BodyBudget {
  private inFlight = 0;
  private readonly callerBytes = new Map<string, number>();
  /** Waiting bodies per caller; the Map's order is the turn order (a served caller goes last). */
  private readonly waiting = new Map<string, Waiter[]>();
  private waitingCount = 0;

  constructor(private readonly limits: BodyBudgetLimits) {}

  /**
   * Asks to read a body of `bytes` for `caller`: `start` runs at once or on the body's turn,
   * `full` at once when too many wait already. Both `start`'s argument and the returned function
   * are `leave`, called once the body has been handed on, or when the request ends before
   * (aborted, refused): the next waiting body goes. Calling it again does nothing.
   */
  join(bytes: number, caller: string, start: (leave: () => void) => void, full: () => void): () => void {
    if (bytes <= SMALL_BODY_BYTES) {
      start(NO_PLACE);
      return NO_PLACE;
    }
    if (this.waitingCount >= this.limits.maxWaiting && !this.fits(caller, bytes)) {
      full();
      return NO_PLACE;
    }
    const waiter: Waiter = { caller, bytes, start, leave: () => this.leave(waiter), state: 'waiting' };
    const queue = this.waiting.get(caller);
    if (queue) queue.push(waiter);
    else this.waiting.set(caller, [waiter]);
    this.waitingCount++;
    this.pump();
    return waiter.leave;
  }

  /** Large bodies waiting for their turn, and bytes of large bodies in flight (for /metrics and tests). */
  stats(): BodyBudgetStats {
    return { waiting: this.waitingCount, inFlightBytes: this.inFlight };
  }

  private fits(caller: string, bytes: number): boolean {
    if (this.inFlight > 0 && this.inFlight + bytes > this.limits.budgetBytes) return false;
    if (caller === ANONYMOUS) return true;
    const own = this.callerBytes.get(caller) ?? 0;
    return own === 0 || own + bytes <= this.limits.budgetBytes / 2;
  }

  private leave(waiter: Waiter): void {
    if (waiter.state === 'done') return;
    const was = waiter.state;
    waiter.state = 'done';
    if (was === 'waiting') {
      const queue = this.waiting.get(waiter.caller);
      const at = queue ? queue.indexOf(waiter) : -1;
      if (queue && at >= 0) {
        queue.splice(at, 1);
        if (queue.length === 0) this.waiting.delete(waiter.caller);
        this.waitingCount--;
      }
      return;
    }
    this.inFlight -= waiter.bytes;
    const own = (this.callerBytes.get(waiter.caller) ?? 0) - waiter.bytes;
    if (own > 0) this.callerBytes.set(waiter.caller, own);
    else this.callerBytes.delete(waiter.caller);
    this.pump();
  }

  /** Starts every waiting body that fits now, one caller's turn at a time. */
  private pump(): void {
    let started = true;
    while (started && this.waitingCount > 0) {
      started = false;
      for (const [caller, queue] of this.waiting) {
        const next = queue[0] as Waiter;
        if (!this.fits(caller, next.bytes)) continue;
        queue.shift();
        // Served: this caller's next body waits behind every other caller's.
        this.waiting.delete(caller);
        if (queue.length > 0) this.waiting.set(caller, queue);
        this.waitingCount--;
        next.state = 'running';
        this.inFlight += next.bytes;
        this.callerBytes.set(caller, (this.callerBytes.get(caller) ?? 0) + next.bytes);
        next.start(next.leave);
        started = true;
        break;
      }
    }
  }
}
