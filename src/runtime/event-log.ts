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
 */
import type { StreamEvent, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '../a2a/schemas.js';

export interface LoggedEvent {
  readonly seq: number;
  readonly event: StreamEvent;
}

export type EventListener = (entry: LoggedEvent) => void;

/** Metadata key of a task's newest event number: a snapshot with it reflects events up to it. */
export const EVENT_SEQ_KEY = '_eventSeq';

/** The newest event number a task record reflects (0 before its first event). */
export function eventSeqOf(task: Task): number {
  const seq = task.metadata?.[EVENT_SEQ_KEY];
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq > 0 ? seq : 0;
}

export interface EventLogStats {
  /** Logs in memory. */
  logs: number;
  /** Live listeners over all logs. */
  subscribers: number;
  /** Logs of paused or ended tasks, kept for replay until their retention expires. */
  retained: number;
  /** Logs with no turn and no retention left, kept only because someone still listens. */
  held: number;
}

export interface TaskEventLog {
  /**
   * A turn of the task starts: its events are numbered after `afterSeq` (the task's stored
   * `_eventSeq`; the counter never goes down). `watched`: a streaming client will read this
   * turn, so keep its events for replay after it ends.
   */
  open(taskId: string, opts: { afterSeq: number; watched: boolean }): void;
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
  stats(): EventLogStats;
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

/**
 * The ring of a log whose turn ended, as one JSON text: a retained log is replayed rarely but
 * kept for the whole retention period, and as objects its events cost several times their text
 * and give the garbage collector tens of objects per task to trace (under a mixed load, the
 * retained logs of streamed tasks were most of the live heap, and V8 sizes the heap after it).
 */
interface PackedRing {
  /** Sequence number of the first event. */
  readonly first: number;
  /** The task's context id: the text leaves it out. */
  readonly contextId: string;
  /**
   * The events as one JSON array. An event that starts `kind, taskId, contextId` with the task's
   * own ids (all the runtime logs) is an object without the two ids; any other is `[event]`.
   */
  readonly text: string;
}

type UpdateEvent = TaskStatusUpdateEvent | TaskArtifactUpdateEvent;
type Stripped = Omit<TaskStatusUpdateEvent, 'taskId' | 'contextId'> | Omit<TaskArtifactUpdateEvent, 'taskId' | 'contextId'>;

const isPacked = (ring: LoggedEvent[] | PackedRing): ring is PackedRing => !Array.isArray(ring);

/** Whether `event` is written `{kind, taskId, contextId, …}` with these ids, so both can be left out and put back in place. */
function carriesIds(event: StreamEvent, taskId: string, contextId: string): event is UpdateEvent {
  if (event.kind !== 'status-update' && event.kind !== 'artifact-update') return false;
  if (event.taskId !== taskId || event.contextId !== contextId) return false;
  let i = 0;
  for (const key in event) {
    if (key !== ['kind', 'taskId', 'contextId'][i]) return false;
    if (++i === 3) return true;
  }
  return false;
}

function pack(taskId: string, ring: LoggedEvent[] | PackedRing): LoggedEvent[] | PackedRing {
  if (isPacked(ring)) return ring;
  const head = ring[0];
  const contextId = head?.event.contextId;
  if (!head || contextId === undefined) return ring;
  const items = ring.map(({ event }): Stripped | [StreamEvent] => {
    if (!carriesIds(event, taskId, contextId)) return [event];
    const { taskId: _taskId, contextId: _contextId, ...rest } = event;
    return rest;
  });
  // JSON.stringify's result is one flat string, which holds nothing else alive.
  return { first: head.seq, contextId, text: JSON.stringify(items) };
}

/** The event as it was logged: the ids back in their place after `kind`. */
function withIds(item: Stripped, taskId: string, contextId: string): UpdateEvent {
  if (item.kind === 'status-update') {
    const { kind, ...rest } = item;
    return { kind, taskId, contextId, ...rest };
  }
  const { kind, ...rest } = item;
  return { kind, taskId, contextId, ...rest };
}

function unpack(taskId: string, ring: LoggedEvent[] | PackedRing): LoggedEvent[] {
  if (!isPacked(ring)) return ring;
  const { contextId } = ring;
  const items = JSON.parse(ring.text) as (Stripped | [StreamEvent])[];
  return items.map((item, i) => ({
    seq: ring.first + i,
    event: Array.isArray(item) ? item[0] : withIds(item, taskId, contextId),
  }));
}

interface Log {
  seq: number;
  /**
   * Ring of the newest events, oldest first, consecutive numbers ending at `seq`; packed while
   * the log is retained (no turn appends to it), unpacked when a turn opens it again.
   */
  ring: LoggedEvent[] | PackedRing;
  listeners: Set<EventListener>;
  /** Someone streamed or subscribed: worth keeping after the turn ends. */
  watched: boolean;
  /**
   * `active`: a turn runs. `retained`: the turn ended, kept for replay until `expiry`.
   * `idle`: no turn and no retention (expired, or made by a subscriber of a paused task):
   * kept only while someone listens.
   */
  state: 'active' | 'retained' | 'idle';
  /** When a retained log expires (ms since the epoch); undefined when it is not retained. */
  expiresAt?: number | undefined;
}

/** A retained log's place in the expiry queue; stale once the log's `expiresAt` moved on. */
interface Expiry {
  readonly taskId: string;
  readonly log: Log;
  readonly at: number;
}

export class MemoryEventLog implements TaskEventLog {
  private readonly logs = new Map<string, Log>();
  /**
   * Retained logs in expiry order. Retention is one fixed period, so the order is the order
   * of closing: one queue and one timer serve every log (a timer per streamed task cost more
   * than the rest of its log).
   */
  private expiries: Expiry[] = [];
  private expiryHead = 0;
  private sweepTimer: NodeJS.Timeout | undefined;

  /**
   * @param capacity events kept per task (SERVICE_EVENT_REPLAY; 0 = no replay)
   * @param retentionMs how long a paused or ended task's events stay replayable (SERVICE_EVENT_RETENTION)
   */
  constructor(
    private readonly capacity: number,
    private readonly retentionMs: number,
  ) {}

  /**
   * One log object per task for as long as anything refers to it: subscribers hold it across
   * turns, so it is never replaced while it has listeners.
   */
  private logOf(taskId: string, state: Log['state']): Log {
    let log = this.logs.get(taskId);
    if (!log) {
      log = { seq: 0, ring: [], listeners: new Set(), watched: false, state };
      this.logs.set(taskId, log);
    }
    return log;
  }

  open(taskId: string, opts: { afterSeq: number; watched: boolean }): void {
    const log = this.logOf(taskId, 'active');
    this.cancelExpiry(log);
    log.state = 'active';
    if (opts.watched) log.watched = true;
    if (opts.afterSeq > log.seq) {
      // The task went on elsewhere (another process, or before a restart): the events this
      // log holds do not connect to the next ones, so none of them can be replayed.
      log.seq = opts.afterSeq;
      log.ring = [];
    } else {
      log.ring = unpack(taskId, log.ring);
    }
  }

  append(taskId: string, event: StreamEvent): number {
    const log = this.logOf(taskId, 'active');
    const entry: LoggedEvent = { seq: ++log.seq, event };
    if (this.capacity > 0) {
      const ring = unpack(taskId, log.ring);
      log.ring = ring;
      ring.push(entry);
      if (ring.length > this.capacity) ring.shift();
    }
    for (const listener of log.listeners) listener(entry);
    return entry.seq;
  }

  lastSeq(taskId: string): number {
    return this.logs.get(taskId)?.seq ?? 0;
  }

  since(taskId: string, afterSeq: number): LoggedEvent[] | undefined {
    const log = this.logs.get(taskId);
    if (!log || afterSeq > log.seq) return undefined;
    if (afterSeq === log.seq) return [];
    const ring = log.ring;
    const first = isPacked(ring) ? ring.first : ring[0]?.seq;
    if (first === undefined || first > afterSeq + 1) return undefined;
    // A retained log stays packed: a replay parses its events, which nothing else holds.
    return unpack(taskId, ring).slice(afterSeq + 1 - first);
  }

  subscribe(taskId: string, listener: EventListener): () => void {
    const log = this.logOf(taskId, 'idle');
    log.watched = true;
    log.listeners.add(listener);
    return () => {
      if (!log.listeners.delete(listener)) return;
      if (log.listeners.size === 0 && log.state === 'idle') this.drop(taskId, log);
    };
  }

  close(taskId: string, opts: { discard?: boolean } = {}): void {
    const log = this.logs.get(taskId);
    if (!log) return;
    this.cancelExpiry(log);
    if (opts.discard) {
      this.drop(taskId, log);
      return;
    }
    if (!log.watched || this.retentionMs === 0) {
      this.expire(taskId, log);
      return;
    }
    log.state = 'retained';
    log.ring = pack(taskId, log.ring);
    log.expiresAt = Date.now() + this.retentionMs;
    this.expiries.push({ taskId, log, at: log.expiresAt });
    this.armSweep();
  }

  private armSweep(): void {
    const next = this.expiries[this.expiryHead];
    if (this.sweepTimer || !next) return;
    this.sweepTimer = setTimeout(() => this.sweep(), Math.max(0, next.at - Date.now()));
    this.sweepTimer.unref();
  }

  /** Expires every retained log whose time has come, then waits for the next one. */
  private sweep(): void {
    this.sweepTimer = undefined;
    const now = Date.now();
    while (this.expiryHead < this.expiries.length) {
      const entry = this.expiries[this.expiryHead] as Expiry;
      if (entry.at > now) break;
      this.expiryHead++;
      if (entry.log.expiresAt === entry.at && entry.log.state === 'retained') this.expire(entry.taskId, entry.log);
    }
    if (this.expiryHead > 1024 && this.expiryHead * 2 > this.expiries.length) {
      this.expiries = this.expiries.slice(this.expiryHead);
      this.expiryHead = 0;
    }
    this.armSweep();
  }

  private expire(taskId: string, log: Log): void {
    log.expiresAt = undefined;
    log.state = 'idle';
    // A subscriber of a paused task waits for its next turn: its log must stay the same object.
    if (log.listeners.size === 0) this.drop(taskId, log);
  }

  /** Its queue entry goes stale and is skipped when its time comes. */
  private cancelExpiry(log: Log): void {
    log.expiresAt = undefined;
  }

  private drop(taskId: string, log: Log): void {
    this.cancelExpiry(log);
    if (this.logs.get(taskId) === log) this.logs.delete(taskId);
  }

  stats(): EventLogStats {
    let subscribers = 0;
    let retained = 0;
    let held = 0;
    for (const log of this.logs.values()) {
      subscribers += log.listeners.size;
      if (log.state === 'retained') retained++;
      else if (log.state === 'idle') held++;
    }
    return { logs: this.logs.size, subscribers, retained, held };
  }

  dispose(): void {
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
    this.expiries = [];
    this.expiryHead = 0;
    for (const log of this.logs.values()) this.cancelExpiry(log);
    this.logs.clear();
  }
}
