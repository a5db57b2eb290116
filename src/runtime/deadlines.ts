/**
 * Waits that all last the same time (every blocking send waits SERVICE_BLOCKING_TIMEOUT), kept
 * in one queue with one timer. Their deadlines come in the order they were added, so the queue
 * is a FIFO: adding is a push, and a wait that ends early is marked and skipped. A timer per
 * wait cost node a timer-list insert and removal on every blocking send.
 *
 * The timer outlives the waits it was armed for. A quick agent's blocking send begins and ends
 * its wait within one request, so the queue empties after nearly every task: clearing the timer
 * then and arming a new one for the next task was a timer insert and removal per task again.
 * An idle queue keeps its timer, unref'd so that it holds no process up; the
 * next wait refs it. Every wait lasts as long, so a timer armed for an earlier wait fires no
 * later than the new one's deadline; it re-arms for what is still pending or, finding nothing,
 * goes. An idle queue's timer is thus gone one wait length after the last wait at the latest.
 */

export interface Deadline {
  /** When it fires (Date.now() time). */
  readonly at: number;
  /** Called once when the deadline passes; cleared when the wait ends first. */
  onExpire: (() => void) | undefined;
}

export class DeadlineQueue {
  private entries: Deadline[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;
  /**
   * The setTimeout and clearTimeout the timer came from. A test that installs fake timers after
   * a wait on real ones must not have its next wait ride the real timer left idle: a wait that
   * finds the global functions changed arms a timer of its own.
   */
  private armedWith: typeof setTimeout | undefined;
  private clearWith: typeof clearTimeout | undefined;

  constructor(private readonly ms: number) {}

  /** Number of waits not yet ended or expired (for tests). */
  get pending(): number {
    let n = 0;
    for (let i = this.head; i < this.entries.length; i++) if (this.entries[i]?.onExpire) n++;
    return n;
  }

  /** No wait is pending: dropping the queue loses nothing. */
  get idle(): boolean {
    return this.head === this.entries.length;
  }

  /** Whether the queue's timer keeps the process up: only while a wait is pending (for tests). */
  get holdsProcess(): boolean {
    return this.timer?.hasRef() ?? false;
  }

  add(onExpire: () => void): Deadline {
    const deadline: Deadline = { at: Date.now() + this.ms, onExpire };
    const wasIdle = this.head === this.entries.length;
    this.entries.push(deadline);
    if (!this.timer) this.arm(deadline.at);
    else if (!wasIdle) return deadline;
    else if (this.armedWith === setTimeout) this.timer.ref();
    else {
      this.clearWith?.(this.timer);
      this.arm(deadline.at);
    }
    return deadline;
  }

  /** The wait ended before its deadline. */
  cancel(deadline: Deadline): void {
    deadline.onExpire = undefined;
    // Waits mostly end in the order they began: the ended ones at the front leave now, so the
    // queue stays as short as the waits still running.
    if (this.entries[this.head] === deadline) this.skipEnded();
    if (this.head === this.entries.length) this.reset();
  }

  private skipEnded(): void {
    const entries = this.entries;
    while (this.head < entries.length && (entries[this.head] as Deadline).onExpire === undefined) this.head++;
    if (this.head > 1024 && this.head * 2 > entries.length) {
      this.entries = entries.slice(this.head);
      this.head = 0;
    }
  }

  /** Nothing left to wait for: the timer, if armed, stays for the next wait but holds no process up. */
  private reset(): void {
    // Emptied in place: a new array per task would be garbage per task.
    this.entries.length = 0;
    this.head = 0;
    this.timer?.unref();
  }

  private arm(at: number): void {
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - Date.now()));
    this.armedWith = setTimeout;
    this.clearWith = clearTimeout;
  }

  private fire(): void {
    this.timer = undefined;
    const now = Date.now();
    for (let entry = this.entries[this.head]; entry; entry = this.entries[this.head]) {
      if (entry.onExpire !== undefined && entry.at > now) break;
      this.head++;
      const expire = entry.onExpire;
      entry.onExpire = undefined;
      expire?.();
    }
    this.skipEnded();
    // An expiry may have added a wait, and armed the timer for it.
    if (this.timer) return;
    const next = this.entries[this.head];
    if (next) this.arm(next.at);
    else this.reset();
  }
}
