/**
 * Leases and cancel signals in Redis, for several replicas behind one load balancer.
 * - Lease: `SET a2actor:lease:<task> <replica> PX <ttl> NX`, renewed every ttl/3 while held,
 *   released by compare-and-delete. A replica that dies stops renewing; its leases expire.
 * - Cancel: `PUBLISH a2actor:cancel <task>`; every replica hears it, the owner acts on it.
 * Commands fail fast while Redis is down (no offline queue), so callers can answer 503.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { a2aError } from '../a2a/errors.js';
import type { Coordinator } from '../runtime/coordinator.js';
import { NO_METRICS, type Metrics } from '../observe/metrics.js';

const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export interface RedisCoordinatorOptions {
  url: string;
  /** Lease time to live (ms); a dead owner's tasks are taken over after this. */
  leaseTtlMs: number;
  /** Key prefix, so several services can share one Redis. */
  prefix?: string;
  onError?: (err: Error) => void;
  /** Where lease claims and renewals are counted. */
  metrics?: Metrics;
}

export class RedisCoordinator implements Coordinator {
  readonly replicaId = randomUUID();
  readonly description: string;
  private readonly redis: Redis;
  private readonly sub: Redis;
  private readonly held = new Set<string>();
  private readonly listeners = new Set<(taskId: string) => void>();
  private readonly renewTimer: NodeJS.Timeout;
  private readonly prefix: string;
  private readonly metrics: Metrics;

  private constructor(private readonly opts: RedisCoordinatorOptions) {
    const url = new URL(opts.url);
    url.password = '';
    this.description = `redis://${url.host}${url.pathname}`;
    this.prefix = opts.prefix ?? 'a2actor';
    this.metrics = opts.metrics ?? NO_METRICS;
    const connection = { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true } as const;
    this.redis = new Redis(opts.url, connection);
    this.sub = new Redis(opts.url, { ...connection, enableOfflineQueue: true });
    const report = (err: Error) => opts.onError?.(err);
    this.redis.on('error', report);
    this.sub.on('error', report);
    this.sub.on('message', (channel: string, taskId: string) => {
      if (channel === this.cancelChannel) for (const l of this.listeners) l(taskId);
    });
    this.renewTimer = setInterval(() => void this.renewAll(), Math.max(50, Math.floor(opts.leaseTtlMs / 3)));
    this.renewTimer.unref();
  }

  static async open(opts: RedisCoordinatorOptions): Promise<RedisCoordinator> {
    const c = new RedisCoordinator(opts);
    try {
      await c.redis.connect();
      await c.sub.connect();
      await c.sub.subscribe(c.cancelChannel);
    } catch (err) {
      await c.close();
      throw err;
    }
    return c;
  }

  private get cancelChannel(): string {
    return `${this.prefix}:cancel`;
  }

  private leaseKey(taskId: string): string {
    return `${this.prefix}:lease:${taskId}`;
  }

  /** Redis commands; an unreachable Redis becomes the 503 `unavailable` error. */
  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw a2aError('unavailable', `coordination (Redis) is not reachable: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async acquire(taskId: string): Promise<boolean> {
    const key = this.leaseKey(taskId);
    let mine: boolean;
    try {
      const ok = await this.call(() => this.redis.set(key, this.replicaId, 'PX', this.opts.leaseTtlMs, 'NX'));
      mine = ok === 'OK' || (await this.call(() => this.redis.get(key))) === this.replicaId;
    } catch (err) {
      this.metrics.leaseOpDone('claim', 'error');
      throw err;
    }
    this.metrics.leaseOpDone('claim', mine ? 'acquired' : 'held_elsewhere');
    if (mine) this.held.add(taskId);
    return mine;
  }

  async release(taskId: string): Promise<void> {
    this.held.delete(taskId);
    await this.call(() => this.redis.eval(RELEASE, 1, this.leaseKey(taskId), this.replicaId));
  }

  async isOwned(taskId: string): Promise<boolean> {
    return (await this.call(() => this.redis.exists(this.leaseKey(taskId)))) === 1;
  }

  async requestCancel(taskId: string): Promise<void> {
    await this.call(() => this.redis.publish(this.cancelChannel, taskId));
  }

  onCancelRequest(listener: (taskId: string) => void): void {
    this.listeners.add(listener);
  }

  private async renewAll(): Promise<void> {
    if (this.held.size === 0 || this.redis.status !== 'ready') return;
    const tasks = [...this.held];
    const pipeline = this.redis.pipeline();
    for (const taskId of tasks) pipeline.eval(RENEW, 1, this.leaseKey(taskId), this.replicaId, this.opts.leaseTtlMs);
    const results = await pipeline.exec().catch((err: Error) => {
      this.opts.onError?.(err);
      return null;
    });
    // Each renewal answers 1 (still ours, extended) or 0 (expired or taken: the lease is lost).
    if (!results) for (const _ of tasks) this.metrics.leaseOpDone('renew', 'error');
    else for (const [err, renewed] of results) this.metrics.leaseOpDone('renew', err ? 'error' : renewed === 1 ? 'renewed' : 'lost');
  }

  get connected(): boolean {
    return this.redis.status === 'ready';
  }

  async ping(): Promise<void> {
    await this.call(() => this.redis.ping());
  }

  async close(): Promise<void> {
    clearInterval(this.renewTimer);
    const held = [...this.held];
    this.held.clear();
    if (this.redis.status === 'ready') {
      await Promise.all(held.map((t) => this.redis.eval(RELEASE, 1, this.leaseKey(t), this.replicaId).catch(() => 0)));
    }
    this.sub.disconnect();
    this.redis.disconnect();
  }
}
