/**
 * The delivery actor of one push config on one task: a p-queue with concurrency 1, so its
 * deliveries go out one at a time and in transition order (spec "Push notifications" 4), each
 * with its own retries. Every HTTP attempt also takes a slot of the shared limiter, which caps
 * the attempts in flight across all configs (`push_max_concurrent`); a delivery waiting for its
 * backoff holds no slot.
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

export interface DeliveryJob {
  taskId: string;
  configId: string;
  state: TaskState;
  terminal: boolean;
  request: WebhookRequest;
  /** The trace of the turn that produced this notification, when it was traced. */
  trace?: TraceLink | undefined;
  /** Its row in the delivery outbox (outbox.ts), when it is recorded there. */
  outboxId?: string | undefined;
}

export interface DeliveryDeps {
  client: WebhookClient;
  /** The global limiter shared by every worker. */
  limiter: PQueue;
  logger: Logger;
  /** Attempts per delivery (`push_max_retries`). */
  maxAttempts: number;
  /** First backoff (`push_retry_delay`), doubled after each failed attempt. */
  retryDelayMs: number;
  idleTimeoutMs: number;
  /** Aborted when the server stops waiting for deliveries. */
  shutdown: AbortSignal;
  /** Where outcomes and attempt durations are counted. */
  metrics: Metrics;
  /** A delivery was made or gave up (not one that a stop cut short: that one is sent after a restart). */
  finished?: ((job: DeliveryJob) => void) | undefined;
}

/** Where a webhook lives, for logs: the origin only (paths and queries can carry secrets). */
export function webhookForLog(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(malformed url)';
  }
}

/** One attempt through the global limiter; a delivery still waiting for a slot at shutdown is aborted. */
async function attemptOnce(deps: DeliveryDeps, job: DeliveryJob, attempt: number): Promise<PostOutcome> {
  // Timed from the limiter's slot on, so waiting for a slot is not counted.
  const post = async (headers?: Record<string, string>): Promise<PostOutcome> => {
    const started = performance.now();
    try {
      return await deps.client.post(headers ? { ...job.request, headers } : job.request, deps.shutdown);
    } finally {
      deps.metrics.pushAttemptDone((performance.now() - started) / 1000);
    }
  };
  try {
    return await deps.limiter.add(() => traceDelivery(job.trace, job, attempt, post), { signal: deps.shutdown });
  } catch (err) {
    if (deps.shutdown.aborted) return { kind: 'aborted' };
    throw err;
  }
}

/** One delivery with retries (spec "Limits": attempts, base delay, exponential backoff). Never throws. */
export async function deliver(job: DeliveryJob, deps: DeliveryDeps): Promise<PostOutcome> {
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
      case 'retryable':
        deps.metrics.pushDelivery(attempt >= deps.maxAttempts ? 'failed' : 'retried');
        if (attempt >= deps.maxAttempts) {
          deps.logger.warn('push.delivery_failed', { ...fields, attempts: attempt, reason: outcome.reason, ...statusOf(outcome) });
          return outcome;
        }
        deps.logger.debug('push.attempt_failed', { ...fields, attempt, reason: outcome.reason, ...statusOf(outcome) });
    }
  }
}

const statusOf = (o: { status?: number }) => (o.status === undefined ? {} : { status: o.status });

export class DeliveryWorker {
  private readonly queue = new PQueue({ concurrency: 1 });
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
    return this.queue.size + this.queue.pending;
  }

  enqueue(job: DeliveryJob): void {
    if (this.stopped) return;
    this.disarmIdle();
    void this.queue.add(async () => {
      const outcome = await deliver(job, this.deps);
      if (outcome.kind !== 'aborted') this.deps.finished?.(job);
      // The terminal state ends the worker even when it could not be delivered: nothing follows it.
      if (job.terminal && outcome.kind !== 'aborted') this.terminalDelivered = true;
    });
  }

  /** Resolves when every accepted delivery has finished. */
  drained(): Promise<void> {
    return this.queue.onIdle();
  }

  /** Drops what is still queued; the running delivery sees the shutdown signal. */
  stop(): void {
    this.stopped = true;
    this.disarmIdle();
    this.queue.clear();
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
