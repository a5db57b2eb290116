/**
 * The per-task event log: every status and artifact update of a task gets a per-task,
 * increasing sequence number (the SSE `id:`), is delivered to live subscribers, and is kept in a
 * bounded ring so a client can resume with `Last-Event-ID`. A Redis Streams implementation
 * of the same port serves several replicas.
 *
 * Numbering spans the task's whole life, not one turn: the service stores the newest number in
 * the task's metadata (`_eventSeq`, an internal key per the spec's Task table) at every event,
 * and `open` seeds the log from it when a paused task continues, even after the log was
 * dropped or the process restarted. A `Last-Event-ID` therefore never points at two events.
 *
 * What a log keeps is bounded by count (SERVICE_EVENT_REPLAY) and by the length of its events'
 * JSON (SERVICE_EVENT_REPLAY_MAX_BYTES), the oldest going first; the logs retained after their
 * turn are bounded together too (SERVICE_EVENT_RETAINED_MAX_BYTES), the oldest turns' going
 * first. A resume from before what was dropped is served as after an expired retention: the
 * task as it stands, then what follows. JSON is measured in characters: what a string holds in
 * memory, and its UTF-8 size for ASCII text.
 */
import type { StreamEvent, Task } from '../a2a/schemas.js';
import { eventJson, pack, PackedLog, type LoggedEvent } from './packed-log.js';

export { eventJson, type LoggedEvent };

/** Called with each event appended to a task's log. */
export type EventListener = (entry: LoggedEvent) => void;

/** Metadata key of a task's newest event number: a snapshot with it reflects events up to it. */
export const EVENT_SEQ_KEY = '_eventSeq';

/** The newest event number a task record reflects (0 before its first event). */
export function eventSeqOf(task: Task): number {
  const seq = task.metadata?.[EVENT_SEQ_KEY];
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq > 0 ? seq : 0;
}

/** What an event log holds now, for leak checks and `server.stats()`. */
export interface EventLogStats {
  /** Logs in memory. */
  logs: number;
  /** Live listeners over all logs. */
  subscribers: number;
  /** Logs of paused or ended tasks, kept for replay until their retention expires. */
  retained: number;
  /** Logs with no turn and no retention left, kept only because someone still listens. */
  held: number;
  /** JSON characters of the retained logs kept packed (bounded by SERVICE_EVENT_RETAINED_MAX_BYTES). */
  retainedBytes?: number;
}

/** Bounds on the length of what the logs keep, in JSON characters. */
export interface EventLogByteLimits {
  /** Per task (SERVICE_EVENT_REPLAY_MAX_BYTES); default: no bound. */
  perTask?: number;
  /** Every retained log together (SERVICE_EVENT_RETAINED_MAX_BYTES); default: no bound. */
  retained?: number;
}

/**
 * Each task's stream events, numbered, for live subscribers and `Last-Event-ID` replay: in
 * memory (`MemoryEventLog`) or shared by replicas through Redis Streams.
 */
export interface TaskEventLog {
  /**
   * A turn of the task starts: its events are numbered after `afterSeq` (the task's stored
   * `_eventSeq`; the counter never goes down). `watched`: a streaming client will read this
   * turn, so keep its events for replay after it ends.
   */
  open(taskId: string, opts: { afterSeq: number; watched: boolean }): void;
  /** Adds an event to the task's log and tells its listeners; returns the event's number. */
  append(taskId: string, event: StreamEvent): number;
  /** Sequence number of the newest event (0 when the log holds none). */
  lastSeq(taskId: string): number;
  /**
   * Every event after `afterSeq`, oldest first; `undefined` when the log cannot tell them all
   * (some fell out of the ring, the log was dropped, or `afterSeq` is newer than anything it
   * has seen): the caller then starts from a snapshot.
   */
  since(taskId: string, afterSeq: number): LoggedEvent[] | undefined;
  /** Live events from now on. Returns the unsubscribe function. A listened log is never dropped. */
  subscribe(taskId: string, listener: EventListener): () => void;
  /**
   * The turn ended (paused or terminal): keep the events for replay for a while, then drop
   * them; `discard` drops them at once (a task replaced by a direct reply).
   */
  close(taskId: string, opts?: { discard?: boolean }): void;
  /** What the log holds now. */
  stats(): EventLogStats;
  /** Stops its timers and drops every log: the server is closing. */
  dispose(): void;
  /**
   * Makes a task's events readable here although another replica may run it (logs shared
   * through a backend); resolves once what the backend holds is loaded, and keeps following
   * until the returned release is called. Logs that live in this process only omit it.
   */
  prepare?(taskId: string): Promise<() => void>;
  /** Readiness: throws when the backend cannot be reached (logs in this process omit it). */
  ping?(): Promise<void>;
}

interface Log {
  seq: number;
  /**
   * Ring of the newest events, oldest first, consecutive numbers ending at `seq`. A log that
   * was retained and packed keeps its PackedLog here while someone listens.
   */
  ring: LoggedEvent[] | PackedLog;
  /** Made by the first subscriber, dropped by the last (most logs never have one). */
  listeners: Set<EventListener> | undefined;
  /** Someone streamed or subscribed: worth keeping after the turn ends. */
  watched: boolean;
  /**
   * JSON characters of the ring's events, once they are counted: from when the log is watched
   * (its readers serialize every event anyway) or its events come with their JSON (a mirrored
   * log). An unwatched turn's events are never retained: they are dropped when it ends.
   */
  bytes: number | undefined;
  /**
   * `active`: a turn runs. `retained`: the turn ended, kept for replay until `expiresAt`.
   * `idle`: no turn and no retention (expired, or made by a subscriber of a paused task):
   * kept only while someone listens.
   */
  state: 'active' | 'retained' | 'idle';
  /** When a retained log expires (ms since the epoch); undefined when it is not retained. */
  expiresAt?: number | undefined;
}

/** JSON characters of a ring's events (made once each: eventJson keeps them). */
const bytesOf = (ring: readonly LoggedEvent[]): number => {
  let bytes = 0;
  for (const entry of ring) bytes += eventJson(entry).length;
  return bytes;
};

/** The event log of one process: a bounded ring per task, kept a while after each turn ends. */
export class MemoryEventLog implements TaskEventLog {
  /**
   * Logs held as objects: turns that run, logs someone listens to (and the rare retained log
   * that cannot be packed). Few at a time, so the lookups of every event stay in cache.
   */
  private readonly logs = new Map<string, Log>();
  /**
   * Retained logs nobody listens to, packed: under streaming load, every task of the retention
   * period. A task is in one map at most. Kept apart, this big map is touched about twice per
   * task (its packing, its expiry) instead of at every event.
   */
  private readonly packed = new Map<string, PackedLog>();
  /**
   * Retained logs in expiry order, as two parallel arrays (task ids, and when they expire)
   * rather than an object per entry. Retention is one fixed period, so the order is the order
   * of closing: one queue and one timer serve every log (a timer per streamed task cost more
   * than the rest of its log). An entry is stale once its log's `expiresAt` moved on.
   */
  private expiryIds: string[] = [];
  private expiryAts: number[] = [];
  private expiryHead = 0;
  /** Where the next eviction for SERVICE_EVENT_RETAINED_MAX_BYTES looks in the expiry queue (the oldest not yet passed). */
  private evictHead = 0;
  /** JSON characters of the logs in `packed`. */
  private packedBytes = 0;
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly maxBytesPerTask: number;
  private readonly maxRetainedBytes: number;

  /**
   * An empty log with these bounds.
   * @param capacity events kept per task (SERVICE_EVENT_REPLAY; 0 = no replay)
   * @param retentionMs how long a paused or ended task's events stay replayable (SERVICE_EVENT_RETENTION)
   * @param bytes bounds on the JSON the logs keep (SERVICE_EVENT_REPLAY_MAX_BYTES, SERVICE_EVENT_RETAINED_MAX_BYTES)
   */
  constructor(
    private readonly capacity: number,
    private readonly retentionMs: number,
    bytes: EventLogByteLimits = {},
  ) {
    this.maxBytesPerTask = bytes.perTask ?? Infinity;
    this.maxRetainedBytes = bytes.retained ?? Infinity;
  }

  /**
   * One log object per task for as long as anything refers to it: subscribers hold it across
   * turns, so it is never replaced while it has listeners. A packed log becomes a Log again
   * (still retained, until the same time) when a turn or a subscriber needs one.
   */
  private logOf(taskId: string, state: Log['state']): Log {
    const held = this.logs.get(taskId);
    if (held) return held;
    const found = this.packed.get(taskId);
    if (found) this.forgetPacked(taskId, found);
    const log: Log = found
      ? {
          seq: found.seq,
          ring: found,
          listeners: undefined,
          watched: true,
          bytes: undefined,
          state: 'retained',
          expiresAt: found.expiresAt,
        }
      : { seq: 0, ring: [], listeners: undefined, watched: false, bytes: undefined, state, expiresAt: undefined };
    this.logs.set(taskId, log);
    return log;
  }

  /** The task's log in either form, as it is (a read does not unpack it). */
  private found(taskId: string): Log | PackedLog | undefined {
    return this.logs.get(taskId) ?? this.packed.get(taskId);
  }

  open(taskId: string, opts: { afterSeq: number; watched: boolean }): void {
    const log = this.logOf(taskId, 'active');
    log.expiresAt = undefined;
    log.state = 'active';
    if (opts.watched) log.watched = true;
    if (opts.afterSeq > log.seq) {
      // The task went on elsewhere (another process, or before a restart): the events this
      // log holds do not connect to the next ones, so none of them can be replayed.
      log.seq = opts.afterSeq;
      log.ring = [];
      if (log.bytes !== undefined) log.bytes = 0;
    } else if (log.ring instanceof PackedLog) {
      log.ring = log.ring.entries(taskId);
      log.bytes = undefined;
    }
  }

  /** `json`: the event's JSON text when the caller made it already (a mirrored log). */
  append(taskId: string, event: StreamEvent, json?: string): number {
    const log = this.logOf(taskId, 'active');
    const entry: LoggedEvent = { seq: ++log.seq, event, json };
    // Unpacked even with no room for the event: a packed ring must not lag behind `seq`.
    if (log.ring instanceof PackedLog) {
      log.ring = log.ring.entries(taskId);
      log.bytes = undefined;
    }
    const ring = log.ring;
    if (this.capacity > 0) {
      ring.push(entry);
      if (log.bytes !== undefined) log.bytes += eventJson(entry).length;
      else if (log.watched || json !== undefined) log.bytes = bytesOf(ring);
      const gone = ring.length > this.capacity ? ring.shift() : undefined;
      if (gone && log.bytes !== undefined) log.bytes -= eventJson(gone).length;
      if (log.bytes !== undefined && log.bytes > this.maxBytesPerTask) this.trimToBytes(log, ring);
    }
    if (log.listeners) for (const listener of log.listeners) listener(entry);
    return entry.seq;
  }

  /** Number of the oldest event the task's log keeps; `lastSeq + 1` when it keeps none. */
  firstSeq(taskId: string): number {
    const found = this.found(taskId);
    if (!found) return 1;
    const ring = found instanceof PackedLog ? found : found.ring;
    if (ring instanceof PackedLog) return ring.first;
    return ring[0]?.seq ?? found.seq + 1;
  }

  /** Drops the oldest events until what is left fits SERVICE_EVENT_REPLAY_MAX_BYTES. */
  private trimToBytes(log: Log, ring: LoggedEvent[]): void {
    let bytes = log.bytes ?? bytesOf(ring);
    let drop = 0;
    while (drop < ring.length && bytes > this.maxBytesPerTask) {
      bytes -= eventJson(ring[drop] as LoggedEvent).length;
      drop++;
    }
    log.bytes = bytes;
    if (drop > 0) ring.splice(0, drop);
  }

  lastSeq(taskId: string): number {
    return this.found(taskId)?.seq ?? 0;
  }

  since(taskId: string, afterSeq: number): LoggedEvent[] | undefined {
    const found = this.found(taskId);
    if (!found || afterSeq > found.seq) return undefined;
    if (afterSeq === found.seq) return [];
    // A packed log stays packed: a replay parses its events, which nothing else holds.
    const ring = found instanceof PackedLog ? found : found.ring;
    if (ring instanceof PackedLog) return ring.since(taskId, afterSeq);
    const first = ring[0]?.seq;
    if (first === undefined || first > afterSeq + 1) return undefined;
    return ring.slice(afterSeq + 1 - first);
  }

  subscribe(taskId: string, listener: EventListener): () => void {
    const log = this.logOf(taskId, 'idle');
    log.watched = true;
    const listeners = (log.listeners ??= new Set());
    listeners.add(listener);
    return () => {
      if (!listeners.delete(listener) || listeners.size > 0 || log.listeners !== listeners) return;
      log.listeners = undefined;
      if (log.state === 'idle') this.drop(taskId, log);
      // Packed only now that nobody reads it: see close.
      else if (log.state === 'retained') this.packRetained(taskId, log);
    };
  }

  close(taskId: string, opts: { discard?: boolean } = {}): void {
    if (!this.found(taskId)) return;
    // A packed log closed again (a replica's turn ended with no event here) is retained afresh.
    const log = this.logOf(taskId, 'idle');
    log.expiresAt = undefined;
    if (opts.discard) {
      this.drop(taskId, log);
      return;
    }
    if (!log.watched || this.retentionMs === 0) {
      this.expire(taskId, log);
      return;
    }
    // A log watched only late in its turn was not held to its bound yet.
    if (this.maxBytesPerTask !== Infinity && !(log.ring instanceof PackedLog) && (log.bytes ?? Infinity) > this.maxBytesPerTask) {
      this.trimToBytes(log, log.ring);
    }
    log.state = 'retained';
    log.expiresAt = Date.now() + this.retentionMs;
    this.expiryIds.push(taskId);
    this.expiryAts.push(log.expiresAt);
    // A stream still attached is about to read the turn's events (it usually attaches after a
    // fast turn has ended): packing now would make it parse what it can read as objects. The
    // last listener to leave packs the log instead.
    if (!log.listeners) this.packRetained(taskId, log);
    this.armSweep();
  }

  /** A retained log nobody listens to: the map keeps it packed until it expires. */
  private packRetained(taskId: string, log: Log): void {
    const { ring, seq } = log;
    const expiresAt = log.expiresAt as number;
    if (!(ring instanceof PackedLog)) {
      let packed: PackedLog;
      try {
        packed = pack(taskId, seq, ring, expiresAt);
      } catch {
        // An event the agent changed after handing it over no longer serializes: the log stays
        // as objects until it expires (a replay of that event fails that stream alone). Thrown
        // on, it would break the unsubscribe of the stream that is ending, which then never ends.
        return;
      }
      this.keepPacked(taskId, packed);
    } else if (ring.expiresAt === expiresAt) this.keepPacked(taskId, ring);
    else this.keepPacked(taskId, new PackedLog(seq, ring.first, ring.contextId, ring.text, expiresAt));
  }

  /** The log leaves the small map for the big one. */
  private keepPacked(taskId: string, packed: PackedLog): void {
    this.logs.delete(taskId);
    const before = this.packed.get(taskId);
    if (before) this.forgetPacked(taskId, before);
    this.packed.set(taskId, packed);
    this.packedBytes += packed.text.length;
    if (this.packedBytes > this.maxRetainedBytes) this.evictOldest();
  }

  private forgetPacked(taskId: string, packed: PackedLog): void {
    this.packed.delete(taskId);
    this.packedBytes -= packed.text.length;
  }

  /**
   * Drops the oldest retained logs until the packed ones fit SERVICE_EVENT_RETAINED_MAX_BYTES, as
   * if their retention had ended. The expiry queue is in closing order: its head is the oldest.
   * A log someone listens to is not packed, so not dropped: it is passed over.
   */
  private evictOldest(): void {
    let at = Math.max(this.evictHead, this.expiryHead);
    while (this.packedBytes > this.maxRetainedBytes && at < this.expiryIds.length) {
      const taskId = this.expiryIds[at] as string;
      const packed = this.packed.get(taskId);
      if (packed && packed.expiresAt === this.expiryAts[at]) this.forgetPacked(taskId, packed);
      at++;
    }
    this.evictHead = at;
  }

  private armSweep(): void {
    const at = this.expiryAts[this.expiryHead];
    if (this.sweepTimer || at === undefined) return;
    this.sweepTimer = setTimeout(() => this.sweep(), Math.max(0, at - Date.now()));
    this.sweepTimer.unref();
  }

  /** Expires every retained log whose time has come, then waits for the next one. */
  private sweep(): void {
    this.sweepTimer = undefined;
    const now = Date.now();
    while (this.expiryHead < this.expiryIds.length) {
      const at = this.expiryAts[this.expiryHead] as number;
      if (at > now) break;
      const taskId = this.expiryIds[this.expiryHead] as string;
      this.expiryHead++;
      const packed = this.packed.get(taskId);
      if (packed) {
        if (packed.expiresAt === at) this.forgetPacked(taskId, packed);
        continue;
      }
      const log = this.logs.get(taskId);
      if (log?.expiresAt === at && log.state === 'retained') this.expire(taskId, log);
    }
    if (this.expiryHead > 1024 && this.expiryHead * 2 > this.expiryIds.length) {
      this.expiryIds = this.expiryIds.slice(this.expiryHead);
      this.expiryAts = this.expiryAts.slice(this.expiryHead);
      this.evictHead = Math.max(0, this.evictHead - this.expiryHead);
      this.expiryHead = 0;
    }
    this.armSweep();
  }

  private expire(taskId: string, log: Log): void {
    log.expiresAt = undefined;
    log.state = 'idle';
    // A subscriber of a paused task waits for its next turn: its log must stay the same object.
    if (!log.listeners) this.drop(taskId, log);
  }

  private drop(taskId: string, log: Log): void {
    log.expiresAt = undefined;
    if (this.logs.get(taskId) === log) this.logs.delete(taskId);
  }

  /** What the log holds now. */
  stats(): EventLogStats {
    let subscribers = 0;
    let retained = 0;
    let held = 0;
    for (const log of this.logs.values()) {
      subscribers += log.listeners?.size ?? 0;
      if (log.state === 'retained') retained++;
      else if (log.state === 'idle') held++;
    }
    return {
      logs: this.logs.size + this.packed.size,
      subscribers,
      retained: retained + this.packed.size,
      held,
      retainedBytes: this.packedBytes,
    };
  }

  /** Stops the expiry timer and drops every log. */
  dispose(): void {
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
    this.expiryIds = [];
    this.expiryAts = [];
    this.expiryHead = 0;
    this.evictHead = 0;
    for (const log of this.logs.values()) log.expiresAt = undefined;
    this.logs.clear();
    this.packed.clear();
    this.packedBytes = 0;
  }
}
