/**
 * Group commit for a networked store: calls of one kind that arrive while earlier ones are on
 * their way go to the database together, as one statement, when a slot frees. One call alone is
 * sent at the end of its tick; under load the batches grow by themselves, and every caller
 * still waits for its own answer (a write is acknowledged only once its batch is committed).
 */
interface Waiting<I, O> {
  item: I;
  resolve: (out: O | Promise<O>) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitOptions<I, O> {
  /**
   * Runs one batch; answers in the order of the items, each a value or a promise (a batch that
   * failed may try its items one by one, so one bad item does not fail the others).
   */
  run: (items: I[]) => Promise<ReadonlyArray<O | Promise<O>>>;
  /** Batches on their way at once. */
  maxInFlight: number;
  /** Items per batch at most. */
  maxBatch: number;
  /** Items with the same key never share a batch (a statement may touch a row once); none: any may. */
  key?: (item: I) => string;
}

export class GroupCommit<I, O> {
  private queue: Waiting<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly opts: GroupCommitOptions<I, O>) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0 || this.inFlight >= this.opts.maxInFlight) return;
    this.scheduled = true;
    // The end of the tick: calls made by the same burst of work go together.
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    while (this.queue.length > 0 && this.inFlight < this.opts.maxInFlight) {
      const batch = this.take();
      this.inFlight++;
      this.opts
        .run(batch.map((w) => w.item))
        .then(
          (outs) => batch.forEach((w, i) => w.resolve(outs[i] as O | Promise<O>)),
          (err: unknown) => batch.forEach((w) => w.reject(err)),
        )
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
    }
  }

  /** The oldest waiting items, up to the cap or the first key seen twice. */
  private take(): Waiting<I, O>[] {
    const keyOf = this.opts.key;
    if (!keyOf) return this.queue.splice(0, this.opts.maxBatch);
    const keys = new Set<string>();
    let n = 0;
    while (n < this.queue.length && n < this.opts.maxBatch) {
      const key = keyOf((this.queue[n] as Waiting<I, O>).item);
      if (keys.has(key)) break;
      keys.add(key);
      n++;
    }
    return this.queue.splice(0, n);
  }
}
