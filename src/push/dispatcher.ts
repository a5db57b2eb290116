/**
 * Push delivery (spec "Push notifications (webhooks)"): fed with every transition of an exposed
 * task (TaskService.onTransition), it finds the task's configs and hands one delivery per config
 * to that config's worker. A config added while the task runs gets the transitions that follow,
 * and a deleted one gets no more.
 *
 * Configs are cached while a task's turn runs and dropped when it ends; every change made through
 * PushConfigs invalidates the task's entry (`invalidate`). A brand-new task's first transition
 * needs no lookup at all: nobody outside knows its id yet, so its only configs are the inline
 * ones, and the inline registrar says so (`registeredInline`).
 *
 * Order: the config lookups of one task are chained, so the transitions of a task reach each
 * worker in the order they happened even when the store answers out of order.
 *
 * Acknowledged means recorded: `recorded(taskId)` is what a turn's answer waits for, the task's
 * lookups still running, then the outbox's write of the deliveries they and the transitions
 * before them added. A task none of whose transitions went to a config since it was last asked
 * waits for nothing.
 *
 * Under load: each config's line is bounded (backlog.ts), callers share the global limit fairly
 * (fair-slots.ts), and an origin that keeps failing is left alone for a while (circuit.ts).
 * Every delivery enters through `enqueue` and leaves through `settled` or `replaced`.
 */
import { setMaxListeners } from 'node:events';
import type { Settings } from '../config.js';
import { errorFields, type Logger } from '../log.js';
import type { Task } from '../a2a/schemas.js';
import type { ProtocolVersion } from '../a2a/versions.js';
import { isTerminalState } from '../../machines/task.machine.js';
import { policyFromSettings } from './address-policy.js';
import type { StoredPushConfig } from './configs.js';
import { NO_METRICS, type Metrics } from '../observe/metrics.js';
import { DeliveryWorker, type DeliveryDeps, type DeliveryJob } from './delivery.js';
import { Circuits } from './circuit.js';
import { FairSlots } from './fair-slots.js';
import type { DeliveryOutbox } from './outbox.js';
import { createWebhookClient, type PostOutcome, type WebhookClient } from './webhook-client.js';
import { traceOf } from '../observe/turns.js';

export type PushSettings = Pick<
  Settings,
  | 'pushMaxRetries'
  | 'pushRetryDelay'
  | 'pushTimeout'
  | 'pushMaxConcurrent'
  | 'pushAllowHttp'
  | 'pushIdleTimeout'
  | 'pushAllowedHosts'
  | 'pushBlockedHosts'
  | 'pushMaxConcurrentPerCaller'
  | 'pushMaxQueuedPerConfig'
  | 'pushCircuitFailures'
  | 'pushCircuitCooldown'
>;

export interface PushDispatcherOptions {
  configs: { configsOf(taskId: string): Promise<StoredPushConfig[]> };
  settings: PushSettings;
  logger: Logger;
  /** Where deliveries are counted (default: nowhere). */
  metrics?: Metrics;
  /**
   * How a task is written for a config registered in a version other than v0.3 (whose body is
   * the task's own JSON): the wire layer supplies these, push knows no wire shapes.
   */
  bodies?: Partial<Record<ProtocolVersion, PushBody>>;
  /** Where accepted deliveries are recorded until they finish, so a restart sends them (outbox.ts). */
  outbox?: DeliveryOutbox | undefined;
}

/** A delivery body for one protocol version. */
export interface PushBody {
  contentType: string;
  encode(task: Task): string;
}

/** What webhook delivery holds now. */
export interface PushStats {
  /** Delivery workers alive (one per config with recent or pending work). */
  workers: number;
  /** Deliveries accepted and not finished: waiting, backing off or in flight. */
  queued: number;
  /** HTTP attempts running now (never more than push_max_concurrent). */
  inFlight: number;
  /** Running tasks whose configs are cached (zero once every turn has ended). */
  cachedTasks: number;
}

/** `Authorization: <scheme> <credentials>` (spec "Authentication" 3); clients send `{}` for none. */
function authorizationOf(config: StoredPushConfig): string | undefined {
  const scheme = config.authentication?.schemes[0];
  const credentials = config.authentication?.credentials;
  return scheme && credentials ? `${scheme} ${credentials}` : undefined;
}

export class PushDispatcher {
  private readonly workers = new Map<string, DeliveryWorker>();
  /** Per task: the chain of config lookups still running. */
  private readonly lookups = new Map<string, Promise<void>>();
  /** Configs of tasks whose turn runs, as last read. */
  private readonly known = new Map<string, StoredPushConfig[]>();
  /** Tasks whose configs changed while a lookup of them was in flight: do not cache its answer. */
  private readonly stale = new Set<string>();
  /** New tasks given an inline config, until their first transition. */
  private readonly inline = new Set<string>();
  /** Tasks whose deliveries were handed to the outbox since `recorded` was last asked for them. */
  private readonly unacknowledged = new Set<string>();
  private readonly slots: FairSlots;
  private readonly circuits: Circuits;
  private readonly client: WebhookClient;
  private readonly shutdown = new AbortController();
  private readonly deps: DeliveryDeps;
  private closing: Promise<void> | undefined;

  constructor(private readonly opts: PushDispatcherOptions) {
    // Every waiting or running delivery listens for shutdown: hundreds at once is normal here.
    setMaxListeners(0, this.shutdown.signal);
    const s = opts.settings;
    const metrics = opts.metrics ?? NO_METRICS;
    this.slots = new FairSlots(s.pushMaxConcurrent, s.pushMaxConcurrentPerCaller);
    this.circuits = new Circuits({
      failures: s.pushCircuitFailures,
      cooldownMs: s.pushCircuitCooldown * 1000,
      onChange: (webhook, open) => {
        metrics.pushCircuitChanged(open);
        if (open)
          opts.logger.warn('push.circuit_opened', { webhook, failures: s.pushCircuitFailures, cooldownSeconds: s.pushCircuitCooldown });
        else opts.logger.info('push.circuit_closed', { webhook });
      },
    });
    this.client = createWebhookClient({ policy: policyFromSettings(s), timeoutMs: s.pushTimeout * 1000 });
    this.deps = {
      client: this.client,
      slots: this.slots,
      circuits: this.circuits,
      events: { settled: (job, outcome) => this.settled(job, outcome), replaced: (dropped, by) => this.replaced(dropped, by) },
      logger: opts.logger,
      maxAttempts: s.pushMaxRetries,
      retryDelayMs: s.pushRetryDelay * 1000,
      idleTimeoutMs: s.pushIdleTimeout * 1000,
      maxQueued: s.pushMaxQueuedPerConfig,
      shutdown: this.shutdown.signal,
      metrics,
    };
  }

  /** PushConfigs changed the task's configs: read them again at its next transition. */
  invalidate(taskId: string): void {
    this.known.delete(taskId);
    if (this.lookups.has(taskId)) this.stale.add(taskId);
  }

  /** A config was registered with the message that starts this task (before its first transition). */
  registeredInline(taskId: string): void {
    this.inline.add(taskId);
  }

  /**
   * The transition hook. Never throws and never waits: delivery must not affect the task.
   * `owner`: the principal the task belongs to (with auth on), whose share of the slots its
   * deliveries take.
   */
  notify(task: Task, owner?: string): void {
    if (this.closing) return;
    const pending = this.lookups.get(task.id);
    if (!pending) {
      const cached = this.known.get(task.id) ?? (this.isFirstTransitionOfNewTask(task) ? [] : undefined);
      if (cached) {
        this.deliver(task, cached, owner);
        return;
      }
    }
    const previous = pending ?? Promise.resolve();
    const next = previous
      .then(() => this.fanOut(task, owner))
      .catch((err: unknown) => this.opts.logger.error('push.config_lookup_failed', { taskId: task.id, ...errorFields(err) }));
    this.lookups.set(task.id, next);
    void next.then(() => {
      if (this.lookups.get(task.id) === next) this.lookups.delete(task.id);
    });
  }

  /**
   * The transition of an exposed task, read now (`task` is the running task itself, not a copy):
   * when this turn's configs are known to be none, the bookkeeping notify would do is done here
   * and true returned, so the runtime makes no copy of the task (one per transition without it).
   */
  handledWithoutCopy(task: Task): boolean {
    if (this.closing) return true;
    if (this.lookups.has(task.id)) return false;
    const cached = this.known.get(task.id) ?? (this.isFirstTransitionOfNewTask(task) ? [] : undefined);
    if (cached === undefined || cached.length > 0) return false;
    this.deliver(task, cached);
    return true;
  }

  /**
   * submitted -> working of a task that nobody outside has seen yet. Not a later status of that
   * `working` (same timeline, later timestamp): by then a config may have been registered.
   */
  private isFirstTransitionOfNewTask(task: Task): boolean {
    const transitions = task.metadata?.stateTransitions;
    if (!Array.isArray(transitions) || transitions.length !== 2 || this.inline.has(task.id)) return false;
    const entered = transitions[1] as { timestamp?: unknown } | undefined;
    return entered?.timestamp === task.status.timestamp;
  }

  private async fanOut(task: Task, owner: string | undefined): Promise<void> {
    this.inline.delete(task.id);
    let configs = this.known.get(task.id);
    if (!configs) {
      configs = await this.opts.configs.configsOf(task.id);
      if (this.stale.delete(task.id)) this.known.delete(task.id);
      else this.known.set(task.id, configs);
    }
    this.deliver(task, configs, owner);
  }

  private deliver(task: Task, configs: StoredPushConfig[], owner?: string): void {
    const state = task.status.state;
    // The turn ends here: the next turn may run on another replica, so read configs afresh then.
    if (isTerminalState(state) || state === 'input-required' || state === 'auth-required') this.known.delete(task.id);
    else if (configs.length === 0 && !this.known.has(task.id)) this.known.set(task.id, configs);
    if (configs.length === 0 || this.shutdown.signal.aborted) return;
    // One serialization per transition and version, shared by every config (the task given is a copy).
    const bodies = new Map<ProtocolVersion, { body: string; contentType?: string }>();
    const bodyFor = (version: ProtocolVersion) => {
      let made = bodies.get(version);
      if (!made) {
        const encoder = version === '0.3' ? undefined : this.opts.bodies?.[version];
        made = encoder ? { body: encoder.encode(task), contentType: encoder.contentType } : { body: JSON.stringify(task) };
        bodies.set(version, made);
      }
      return made;
    };
    for (const config of configs) {
      const { body, contentType } = bodyFor(config.protocolVersion ?? '0.3');
      const job: DeliveryJob = {
        taskId: task.id,
        configId: config.id,
        state,
        terminal: isTerminalState(state),
        request: { url: config.url, body, contentType, token: config.token, authorization: authorizationOf(config) },
        owner,
        trace: traceOf(task),
      };
      if (this.opts.outbox) job.outboxId = this.opts.outbox.add(job);
      this.enqueue(job);
    }
    if (this.opts.outbox) this.unacknowledged.add(task.id);
  }

  /** Every delivery enters here: into its config's line, behind the deliveries already there. */
  enqueue(job: DeliveryJob): void {
    if (this.shutdown.signal.aborted) return;
    this.workerFor(job.taskId, job.configId).enqueue(job);
  }

  /**
   * Resolves once the deliveries of every transition of the task told so far are recorded with
   * the outbox (its config lookups done, their rows written); undefined when there is nothing to
   * wait for: no outbox, or no delivery of the task since the last call.
   */
  recorded(taskId: string): Promise<void> | undefined {
    const outbox = this.opts.outbox;
    if (!outbox) return undefined;
    const lookup = this.lookups.get(taskId);
    if (lookup) {
      return lookup.then(() => {
        this.unacknowledged.delete(taskId);
        return outbox.recorded();
      });
    }
    return this.unacknowledged.delete(taskId) ? outbox.recorded() : undefined;
  }

  /** Start-up: the deliveries a stopped process left in the outbox go out before any new one. */
  resumeRecorded(): Promise<number> {
    return this.opts.outbox?.resume((job) => this.enqueue(job), this.shutdown.signal) ?? Promise.resolve(0);
  }

  /**
   * Every delivery that was tried ends here, once: delivered, failed for good, refused or
   * aborted. Outcomes are already counted and logged per attempt (delivery.ts); here the
   * outbox's record of it is marked done, unless a stop cut it off: a restart sends it again.
   */
  private settled(job: DeliveryJob, outcome: PostOutcome): void {
    if (outcome.kind !== 'aborted' && job.outboxId !== undefined) this.opts.outbox?.finished(job.outboxId);
  }

  /** `dropped` will never be sent: `by`, a newer state of its task for the same config, replaces it. */
  private replaced(dropped: DeliveryJob, _by: DeliveryJob): void {
    this.deps.metrics.pushDelivery('replaced');
    if (dropped.outboxId !== undefined) this.opts.outbox?.finished(dropped.outboxId);
  }

  private workerFor(taskId: string, configId: string): DeliveryWorker {
    const key = `${taskId}\u0000${configId}`;
    let worker = this.workers.get(key);
    if (!worker) {
      const created: DeliveryWorker = new DeliveryWorker(this.deps, () => {
        if (this.workers.get(key) === created) this.workers.delete(key);
      });
      worker = created;
      this.workers.set(key, worker);
    }
    return worker;
  }

  /**
   * Resolves when every delivery queued so far for the task has finished (or after `capMs`):
   * the replica that ran a turn waits for this before another replica may run the next one,
   * so one config's deliveries stay in order across replicas.
   */
  async drained(taskId: string, capMs: number): Promise<void> {
    const prefix = `${taskId}\u0000`;
    const work = (async () => {
      await this.lookups.get(taskId);
      const workers = [...this.workers.entries()].filter(([key]) => key.startsWith(prefix)).map(([, w]) => w.drained());
      await Promise.all(workers);
    })();
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, capMs);
    });
    await Promise.race([work, cap]);
    clearTimeout(timer);
  }

  stats(): PushStats {
    let queued = 0;
    for (const worker of this.workers.values()) queued += worker.backlog;
    return {
      workers: this.workers.size,
      queued,
      inFlight: this.slots.inUse,
      cachedTasks: this.known.size,
    };
  }

  /**
   * Graceful stop: no new transitions are taken; what is queued may finish for up to `graceMs`
   * (settings.shutdownGrace), then everything still pending is dropped and logged.
   */
  close(graceMs: number): Promise<void> {
    this.closing ??= this.stop(graceMs);
    return this.closing;
  }

  private async stop(graceMs: number): Promise<void> {
    const drained = (async () => {
      while (this.lookups.size > 0) await Promise.all([...this.lookups.values()]);
      await Promise.all([...this.workers.values()].map((w) => w.drained()));
    })();
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), graceMs);
    });
    const result = await Promise.race([drained.then(() => 'drained' as const), graceOver]);
    clearTimeout(timer);
    if (result === 'timeout') {
      const { queued } = this.stats();
      const keptForRestart = this.opts.outbox !== undefined;
      this.opts.logger.warn('push.shutdown_dropped', { deliveries: queued, graceSeconds: graceMs / 1000, keptForRestart });
    }
    this.shutdown.abort();
    for (const worker of this.workers.values()) worker.stop();
    this.workers.clear();
    this.known.clear();
    this.stale.clear();
    this.inline.clear();
    this.unacknowledged.clear();
    this.circuits.stop();
    await this.opts.outbox?.close().catch((err: unknown) => this.opts.logger.error('push.outbox_close_failed', errorFields(err)));
    if (result === 'drained') await this.client.close();
    else await this.client.destroy();
  }
}
