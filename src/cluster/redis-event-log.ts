/**
 * The event log shared by replicas, on Redis Streams. The replica running a task keeps its
 * events in the local MemoryEventLog (its own subscribers are served from memory, at once) and
 * mirrors every event to the Stream `<prefix>:events:<task>` with the id `0-<seq>`, capped at
 * SERVICE_EVENT_REPLAY entries and trimmed to what the local log keeps (which also bounds the
 * events' JSON: SERVICE_EVENT_REPLAY_MAX_BYTES), plus a notification on `<prefix>:ev:<task>`. The events a tick
 * appends (a turn's working status and artifacts, its final event and the close after it) go
 * out together: one script call per task, one pipeline for every task, one round trip. Another replica
 * that must serve a subscribe or a `Last-Event-ID` resume first `prepare`s the task: it loads
 * the Stream into its own local log and follows the notifications while its clients listen, so
 * the feeds read one local log either way and keep their no-gap, no-duplicate guarantees.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import { a2aError } from '../a2a/errors.js';
import type { StreamEvent } from '../a2a/schemas.js';
import { NO_METRICS, type Metrics } from '../observe/metrics.js';
import type { EventListener, EventLogStats, LoggedEvent, MemoryEventLog, TaskEventLog } from '../runtime/event-log.js';

export interface RedisEventLogOptions {
  url: string;
  local: MemoryEventLog;
  /** Events kept per task (SERVICE_EVENT_REPLAY). */
  capacity: number;
  /** How long a finished turn's events stay in Redis (SERVICE_EVENT_RETENTION), ms. */
  retentionMs: number;
  logger: Logger;
  prefix?: string;
  /** Where appends mirrored to Redis and Stream reads are counted and timed. */
  metrics?: Metrics;
}

/** A running turn's Stream expires after this even if its replica dies without closing it. */
const ORPHAN_EXPIRY_MS = 24 * 60 * 60 * 1000;

/**
 * One task's batch: KEYS[1] the Stream; ARGV: cap, expiry (ms), channel, the oldest id to keep
 * (`0` for no such bound), then id and JSON of each event. Appends them in order, drops what is
 * older than the oldest id to keep, sets the expiry and, if any was appended, notifies followers
 * with the newest id (they read the Stream after what they have, whatever it says).
 */
const APPEND_EVENTS = `
for i = 5, #ARGV, 2 do redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], ARGV[i], 'e', ARGV[i + 1]) end
if ARGV[4] ~= '0' then redis.call('XTRIM', KEYS[1], 'MINID', ARGV[4]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if #ARGV >= 5 then redis.call('PUBLISH', ARGV[3], ARGV[#ARGV - 1]) end
return 1`;

/** What a task's mirror still has to send at the end of this tick. */
interface Outbox {
  /** Stream ids and event JSON, in order. */
  events: string[];
  /** The turn was closed: the Stream's expiry becomes the retention (or it goes, `discard`). */
  closed: 'retain' | 'discard' | undefined;
  /** The oldest Stream id to keep, as of the last event (`0`: no bound). */
  minId: string;
}

type BatchingRedis = Redis & {
  appendEvents(stream: string, cap: number, expiryMs: number, channel: string, minId: string, ...events: string[]): Promise<number>;
};

interface Mirror {
  refs: number;
  /** The initial load; later notifications wait for it. */
  loaded: Promise<void>;
  /** Serializes the reads of one task's Stream. */
  reading: Promise<void>;
}

export class RedisEventLog implements TaskEventLog {
  private readonly redis: BatchingRedis;
  private readonly sub: Redis;
  private readonly prefix: string;
  /** Tasks whose turn runs in this process (this replica writes their Stream). */
  private readonly ownTurns = new Set<string>();
  /** Owned turns with events or a close not yet sent; flushed once per tick. */
  private readonly outboxes = new Map<string, Outbox>();
  /** Owned turns whose Stream has been written (a close must reach it). */
  private readonly written = new Set<string>();
  private flushScheduled = false;
  private readonly mirrors = new Map<string, Mirror>();
  private lastErrorLog = 0;
  private readonly metrics: Metrics;

  private constructor(private readonly opts: RedisEventLogOptions) {
    this.prefix = opts.prefix ?? 'a2actor';
    this.metrics = opts.metrics ?? NO_METRICS;
    // Owner writes are fire-and-forget: with no offline queue they fail fast while Redis is
    // down (logged) instead of piling up in memory.
    this.redis = new Redis(opts.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true }) as BatchingRedis;
    // EVALSHA, and EVAL once if Redis does not know the script yet.
    this.redis.defineCommand('appendEvents', { numberOfKeys: 1, lua: APPEND_EVENTS });
    // Subscriptions are restored by ioredis after a reconnect; new ones fail fast while Redis
    // is away (prepare answers 503 instead of waiting for it).
    this.sub = new Redis(opts.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    this.redis.on('error', (err: Error) => this.report(err));
    this.sub.on('error', (err: Error) => this.report(err));
    this.sub.on('message', (channel: string) => {
      const taskId = channel.slice(`${this.prefix}:ev:`.length);
      if (this.mirrors.has(taskId)) this.pull(taskId);
    });
  }

  static async open(opts: RedisEventLogOptions): Promise<RedisEventLog> {
    const log = new RedisEventLog(opts);
    try {
      await log.redis.connect();
      await log.sub.connect();
    } catch (err) {
      log.redis.disconnect();
      log.sub.disconnect();
      throw err;
    }
    return log;
  }

  private streamKey(taskId: string): string {
    return `${this.prefix}:events:${taskId}`;
  }

  private channel(taskId: string): string {
    return `${this.prefix}:ev:${taskId}`;
  }

  private report(err: Error): void {
    if (Date.now() - this.lastErrorLog < 5000) return;
    this.lastErrorLog = Date.now();
    this.opts.logger.warn('events.redis_error', { error: err.message });
  }

  // ---- the owner's side: local first, then mirrored to Redis

  open(taskId: string, opts: { afterSeq: number; watched: boolean }): void {
    // A close of the task's previous turn still waiting for this tick goes out first.
    if (this.outboxes.get(taskId)?.closed) this.flush();
    this.ownTurns.add(taskId);
    this.opts.local.open(taskId, opts);
  }

  append(taskId: string, event: StreamEvent): number {
    if (!this.ownTurns.has(taskId)) return this.opts.local.append(taskId, event);
    // Serialized once, for the Stream and the local log (which then counts its bytes).
    const json = JSON.stringify(event);
    const seq = this.opts.local.append(taskId, event, json);
    const outbox = this.outboxOf(taskId);
    outbox.events.push(`0-${seq}`, json);
    // Read now: a turn that ends unwatched this tick drops its local log before the flush.
    outbox.minId = this.minIdOf(taskId);
    return seq;
  }

  /**
   * The oldest Stream id to keep: the oldest event the local log keeps (bounded by count and
   * bytes), but never past the newest, which followers on other replicas have still to read.
   */
  private minIdOf(taskId: string): string {
    const local = this.opts.local;
    const last = local.lastSeq(taskId);
    if (this.opts.capacity === 0 || last === 0) return '0';
    return `0-${Math.min(local.firstSeq(taskId), last)}`;
  }

  close(taskId: string, opts: { discard?: boolean } = {}): void {
    this.opts.local.close(taskId, opts);
    if (!this.ownTurns.delete(taskId)) return;
    const outbox = this.outboxOf(taskId);
    outbox.closed = opts.discard ? 'discard' : 'retain';
  }

  private outboxOf(taskId: string): Outbox {
    let outbox = this.outboxes.get(taskId);
    if (!outbox) this.outboxes.set(taskId, (outbox = { events: [], closed: undefined, minId: '0' }));
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return outbox;
  }

  /**
   * Sends what this tick appended and closed, every task in one pipeline. Owner writes are
   * fire-and-forget, as before: followers on other replicas catch up from the Stream, and a
   * write that fails (Redis down) is logged, not retried.
   */
  private flush(): void {
    this.flushScheduled = false;
    if (this.outboxes.size === 0) return;
    const pipeline = this.redis.pipeline() as ReturnType<Redis['pipeline']> & {
      appendEvents(stream: string, cap: number, expiryMs: number, channel: string, minId: string, ...events: string[]): unknown;
    };
    let appended = 0;
    for (const [taskId, outbox] of this.outboxes) {
      const key = this.streamKey(taskId);
      const written = this.written.has(taskId);
      if (outbox.closed) this.written.delete(taskId);
      if (outbox.closed === 'discard') {
        // A task replaced by a direct reply: its events were never anyone's; only what went out is deleted.
        if (written) pipeline.del(key);
        continue;
      }
      // A turn closed before any event of it went out has no Stream to expire.
      if (outbox.events.length === 0 && !written) continue;
      if (!outbox.closed) this.written.add(taskId);
      const expiry = outbox.closed ? Math.max(1, this.opts.retentionMs) : ORPHAN_EXPIRY_MS;
      pipeline.appendEvents(key, Math.max(1, this.opts.capacity), expiry, this.channel(taskId), outbox.minId, ...outbox.events);
      appended += outbox.events.length / 2;
    }
    this.outboxes.clear();
    if (pipeline.length === 0) return;
    const started = performance.now();
    const done = (ok: boolean) => {
      const seconds = (performance.now() - started) / 1000;
      for (let i = 0; i < appended; i++) this.metrics.eventLogOpDone('append', ok, seconds);
    };
    pipeline.exec().then(
      (results) => {
        const failed = results?.find(([err]) => err)?.[0];
        done(!failed);
        if (failed) this.report(failed);
      },
      (err: Error) => {
        done(false);
        this.report(err);
      },
    );
  }

  // ---- reading: always from the local log

  lastSeq(taskId: string): number {
    return this.opts.local.lastSeq(taskId);
  }

  since(taskId: string, afterSeq: number): LoggedEvent[] | undefined {
    return this.opts.local.since(taskId, afterSeq);
  }

  subscribe(taskId: string, listener: EventListener): () => void {
    return this.opts.local.subscribe(taskId, listener);
  }

  // ---- another replica's task: load its Stream here and follow it while needed

  async prepare(taskId: string): Promise<() => void> {
    if (this.ownTurns.has(taskId)) return () => {};
    let mirror = this.mirrors.get(taskId);
    if (!mirror) {
      if (this.redis.status !== 'ready' || this.sub.status !== 'ready') {
        throw a2aError('unavailable', 'the shared event log (Redis) is not reachable');
      }
      const created: Mirror = { refs: 0, loaded: Promise.resolve(), reading: Promise.resolve() };
      this.mirrors.set(taskId, created);
      // Subscribe before the first read: an event added in between is read by the next pull.
      created.loaded = this.sub.subscribe(this.channel(taskId)).then(() => this.read(taskId));
      created.reading = created.loaded.catch(() => {});
      mirror = created;
    }
    mirror.refs++;
    const held = mirror;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (--held.refs === 0) this.stopMirror(taskId, held);
    };
    try {
      await mirror.loaded;
    } catch (err) {
      release();
      throw a2aError('unavailable', `the shared event log (Redis) is not reachable: ${err instanceof Error ? err.message : String(err)}`);
    }
    return release;
  }

  private pull(taskId: string): void {
    const mirror = this.mirrors.get(taskId);
    if (!mirror) return;
    mirror.reading = mirror.reading.then(() => this.read(taskId)).catch((err: Error) => this.report(err));
  }

  /** Reads the Stream after the newest event the local log has, into the local log. */
  private async read(taskId: string): Promise<void> {
    if (this.ownTurns.has(taskId)) return;
    const last = this.opts.local.lastSeq(taskId);
    const started = performance.now();
    const entries = await this.redis.xrange(this.streamKey(taskId), last > 0 ? `(0-${last}` : '-', '+').then(
      (found) => {
        this.metrics.eventLogOpDone('read', true, (performance.now() - started) / 1000);
        return found;
      },
      (err: unknown) => {
        this.metrics.eventLogOpDone('read', false, (performance.now() - started) / 1000);
        throw err;
      },
    );
    for (const [id, fields] of entries) {
      const seq = Number(id.slice(2));
      const raw = fields[1];
      if (!Number.isSafeInteger(seq) || raw === undefined || this.ownTurns.has(taskId)) continue;
      this.adopt(taskId, seq, JSON.parse(raw) as StreamEvent, raw);
    }
  }

  /** Puts an event with its owner's number into the local log (a gap restarts the ring). */
  private adopt(taskId: string, seq: number, event: StreamEvent, json: string): void {
    const local = this.opts.local;
    const last = local.lastSeq(taskId);
    if (seq <= last) return;
    if (seq !== last + 1) local.open(taskId, { afterSeq: seq - 1, watched: true });
    local.append(taskId, event, json);
  }

  private stopMirror(taskId: string, mirror: Mirror): void {
    if (this.mirrors.get(taskId) !== mirror) return;
    this.mirrors.delete(taskId);
    this.sub.unsubscribe(this.channel(taskId)).catch((err: Error) => this.report(err));
    // The mirrored events stay replayable here for the retention time, like the owner's.
    if (!this.ownTurns.has(taskId)) this.opts.local.close(taskId);
  }

  stats(): EventLogStats & { mirrors: number } {
    return { ...this.opts.local.stats(), mirrors: this.mirrors.size };
  }

  /** Readiness. */
  async ping(): Promise<void> {
    await this.redis.ping();
  }

  dispose(): void {
    this.flush();
    this.opts.local.dispose();
    this.mirrors.clear();
    this.ownTurns.clear();
    this.written.clear();
    this.sub.disconnect();
    this.redis.disconnect();
  }
}
