/**
 * The delivery actor of one push config on one task: a line of deliveries sent one at a time and
 * in transition order (spec "Push notifications" 4), each with its own retries. The line is
 * bounded (backlog.ts says what a newer state replaces). Every HTTP attempt first asks the
 * webhook origin's circuit (circuit.ts), then takes a slot of the shared limit, in the caller's
 * fair share (fair-slots.ts); a delivery waiting for its backoff or an open circuit holds no slot.
 *
 * The worker exits once the terminal state is delivered (nothing can follow it) or after
 * `push_idle_timeout` without work (a task paused in input-required may be resumed much later;
 * a new worker then takes over).
 */
import PQueue from 'p-queue';
import { type Logger } from '../log.js';
import { pause } from '../pause.js';
import type { TaskState } from '../a2a/schemas.js';
import type { PostOutcome, WebhookClient, WebhookRequest } from './webhook-client.js';
import { traceDelivery } from '../observe/deliveries.js';
import type { TraceLink } from '../observe/tracing.js';
import type { Metrics } from '../observe/metrics.js';
import { admitToLine } from './backlog.js';
import type { Circuits, Verdict } from './circuit.js';
import type { FairSlots } from './fair-slots.js';

export interface DeliveryJob {
  taskId: string;
  configId: string;
  state: TaskState;
  terminal: boolean;
  request: WebhookRequest;
  /** The principal the task belongs to (with auth on): whose share of the slots it takes. */
  owner?: string | undefined;
  /** The trace of the turn that produced this notification, when it was traced. */
  trace?: TraceLink | undefined;
  /** Its row in the delivery outbox (outbox.ts), when it is recorded there. */
  outboxId?: string | undefined;
}

/** Where a delivery's end is told: the one place that sees every job finish or be replaced. */
export interface DeliveryEvents {
  /** The delivery is over: delivered, failed for good, refused, or stopped by shutdown (`aborted`). */
  settled(job: DeliveryJob, outcome: PostOutcome): void;
  /** `dropped` will never be sent: `by`, a newer state of the same task for the same config, replaces it. */
  replaced(dropped: DeliveryJob, by: DeliveryJob): void;
}

export interface DeliveryDeps {
  client: WebhookClient;
  /** The global limit shared by every worker, in fair shares. */
  slots: FairSlots;
  /** The circuit breakers of webhook origins, shared by every worker. */
  circuits: Circuits;
  events: DeliveryEvents;
  logger: Logger;
  /** Attempts per delivery (`push_max_retries`). */
  maxAttempts: number;
  /** First backoff (`push_retry_delay`), doubled after each failed attempt. */
  retryDelayMs: number;
  idleTimeoutMs: number;
  /** Deliveries one config's line holds (`push_max_queued_per_config`). */
  maxQueued: number;
  /** Aborted when the server stops waiting for deliveries. */
  shutdown: AbortSignal;
  /** Where outcomes and attempt durations are counted. */
  metrics: Metrics;
}

/** Where a webhook lives, for logs: the origin only (paths and queries can carry secrets). */
export function webhookForLog(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(malformed url)';
  }
}

/**
 * Whose share of the slots an attempt takes: the task's owner; without auth every caller is
 * anonymous, so the webhook's origin stands in (one receiver cannot take every slot).
 */
export const shareOf = (job: DeliveryJob, origin: string): string => (job.owner === undefined ? `origin ${origin}` : `owner ${job.owner}`);

/** What an attempt's outcome says about the origin's health: it answered, it did not, or nothing was sent. */
function verdictOf(outcome: PostOutcome): Verdict {
  switch (outcome.kind) {
    case 'delivered':
      return 'ok';
    case 'retryable':
      return 'failed';
    case 'failed':
      // A 3xx or 4xx is an answer; an invalid request was never sent.
      return outcome.status === undefined ? 'none' : 'ok';
    default:
      return 'none';
  }
}

/** An attempt that found the origin's circuit open and the probe failed: it counts, unsent (compared by identity). */
const CIRCUIT_OPEN: PostOutcome = { kind: 'retryable', reason: 'circuit-open' };

/** One attempt: through the origin's circuit, then in a slot of the caller's share. */
async function attemptOnce(deps: DeliveryDeps, job: DeliveryJob, attempt: number): Promise<PostOutcome> {
  const origin = webhookForLog(job.request.url);
  const share = shareOf(job, origin);
  let admission;
  for (;;) {
    admission = await deps.circuits.admit(origin, deps.shutdown);
    if (deps.shutdown.aborted) return { kind: 'aborted' };
    if (admission === 'refused') return CIRCUIT_OPEN;
    if (!(await deps.slots.acquire(share, deps.shutdown))) {
      deps.circuits.record(origin, admission, 'none');
      return { kind: 'aborted' };
    }
    // The circuit may have opened while this attempt waited for its slot: then it waits again.
    if (admission === 'probe' || !deps.circuits.isOpen(origin)) break;
    deps.slots.release(share);
  }
  let outcome: PostOutcome;
  try {
    outcome = await sendInSlot(deps, job, attempt);
  } catch (err) {
    outcome = { kind: 'retryable', reason: err instanceof Error ? err.message : 'unexpected error' };
  } finally {
    deps.slots.release(share);
  }
  deps.circuits.record(origin, admission, verdictOf(outcome));
  return outcome;
}

/** The POST itself, timed from the slot on, so waiting for a slot is not counted. */
function sendInSlot(deps: DeliveryDeps, job: DeliveryJob, attempt: number): Promise<PostOutcome> {
  const post = async (headers?: Record<string, string>): Promise<PostOutcome> => {
    const started = performance.now();
    try {
      return await deps.client.post(headers ? { ...job.request, headers } : job.request, deps.shutdown);
    } finally {
      deps.metrics.pushAttemptDone((performance.now() - started) / 1000);
    }
  };
  return traceDelivery(job.trace, job, attempt, post);
}

/** How a delivery ended: as its last attempt did, or replaced by a newer state of its task. */
export type DeliveryResult = PostOutcome | { kind: 'replaced'; by: DeliveryJob };

/**
 * One delivery with retries (spec "Limits": attempts, base delay, exponential backoff). Never
 * throws. `newer` tells of a later state waiting behind this one: a non-final state whose
 * origin's circuit stays open gives way to it rather than wait out every retry.
 */
export async function deliver(
  job: DeliveryJob,
  deps: DeliveryDeps,
  newer: () => DeliveryJob | undefined = () => undefined,
): Promise<DeliveryResult> {
  const fields = { taskId: job.taskId, configId: job.configId, state: job.state, webhook: webhookForLog(job.request.url) };
  // push_max_retries is at least 1 (settings schema), so every path below returns.
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1) await pause(deps.retryDelayMs * 2 ** (attempt - 2), deps.shutdown);
    if (deps.shutdown.aborted) return { kind: 'aborted' };
    let outcome: PostOutcome;
    try {
      outcome = await attemptOnce(deps, job, attempt);
    } catch (err) {
      outcome = { kind: 'retryable', reason: err instanceof Error ? err.message : 'unexpected error' };
    }
    switch (outcome.kind) {
      case 'delivered':
        deps.metrics.pushDelivery('delivered');
        deps.logger.debug('push.delivered', { ...fields, attempt, status: outcome.status });
        return outcome;
      case 'aborted':
        return outcome;
      case 'refused':
        deps.metrics.pushDelivery('refused_url');
        deps.logger.warn('push.url_rejected', { ...fields, reason: outcome.reason });
        return outcome;
      case 'failed':
        deps.metrics.pushDelivery('failed');
        deps.logger.warn('push.delivery_failed', { ...fields, attempts: attempt, reason: outcome.reason, ...statusOf(outcome) });
        return outcome;
      case 'retryable': {
        const by = outcome === CIRCUIT_OPEN && !job.terminal ? newer() : undefined;
        if (by) return { kind: 'replaced', by };
        deps.metrics.pushDelivery(attempt >= deps.maxAttempts ? 'failed' : 'retried');
        if (attempt >= deps.maxAttempts) {
          deps.logger.warn('push.delivery_failed', { ...fields, attempts: attempt, reason: outcome.reason, ...statusOf(outcome) });
          return outcome;
        }
        deps.logger.debug('push.attempt_failed', { ...fields, attempt, reason: outcome.reason, ...statusOf(outcome) });
      }
    }
  }
}

const statusOf = (o: { status?: number }) => (o.status === undefined ? {} : { status: o.status });

/**
 * One config's deliveries, one at a time, in order: the config's p-queue (concurrency 1) runs
 * them. Beside it, the line holds what waits, so that a newer state can replace older ones
 * (backlog.ts): each queued run sends whatever is at the head of the line then, and a run whose
 * delivery was replaced finds less to send and ends at once.
 */
export class DeliveryWorker {
  private readonly queue = new PQueue({ concurrency: 1 });
  /** Deliveries waiting, oldest first; the one being delivered is `current`. */
  private readonly line: DeliveryJob[] = [];
  private current: DeliveryJob | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private terminalDelivered = false;
  private stopped = false;

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly onExit: () => void,
  ) {
    this.queue.on('idle', () => this.onIdle());
  }

  /** Deliveries accepted and not finished (waiting, backing off or in flight). */
  get backlog(): number {
    return this.line.length + (this.current ? 1 : 0);
  }

  /** Takes a delivery into the line; a newer state may replace older waiting ones (backlog.ts). */
  enqueue(job: DeliveryJob): void {
    if (this.stopped) return;
    this.disarmIdle();
    const squeeze = this.deps.circuits.isOpen(webhookForLog(job.request.url));
    for (const dropped of admitToLine(this.line, job, { cap: this.deps.maxQueued, squeeze })) this.deps.events.replaced(dropped, job);
    // One queued run per waiting delivery, never more: the queue stays as short as the line.
    if (this.queue.size < this.line.length) void this.queue.add(() => this.sendHead());
  }

  /** Resolves when every accepted delivery has finished. */
  drained(): Promise<void> {
    return this.queue.onIdle();
  }

  /** Drops what is still waiting; the running delivery sees the shutdown signal. */
  stop(): void {
    this.stopped = true;
    this.disarmIdle();
    this.line.length = 0;
    this.queue.clear();
  }

  private async sendHead(): Promise<void> {
    const job = this.line.shift();
    if (!job || this.stopped) return;
    this.current = job;
    const result = await deliver(job, this.deps, () => this.newestWaiting());
    this.current = undefined;
    if (result.kind === 'replaced') {
      this.deps.events.replaced(job, result.by);
      return;
    }
    this.deps.events.settled(job, result);
    // The terminal state ends the worker even when it could not be delivered: nothing follows it.
    if (job.terminal && result.kind !== 'aborted') this.terminalDelivered = true;
  }

  /**
   * The circuit held back the delivery being sent and a newer state waits: the newest state
   * replaces every older one waiting (a final state is always the newest), so an open circuit
   * is waited out once per line, not once per state.
   */
  private newestWaiting(): DeliveryJob | undefined {
    const newest = this.line.at(-1);
    if (newest) for (const older of this.line.splice(0, this.line.length - 1)) this.deps.events.replaced(older, newest);
    return newest;
  }

  private onIdle(): void {
    if (this.stopped) return;
    if (this.terminalDelivered) return this.exit();
    this.disarmIdle();
    this.idleTimer = setTimeout(() => this.exit(), this.deps.idleTimeoutMs);
    // An idle worker must not keep the process alive on its own.
    this.idleTimer.unref();
  }

  private disarmIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private exit(): void {
    this.stop();
    this.onExit();
  }
}
