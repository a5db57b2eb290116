/**
 * The per-task event log: every status and artifact update of a task gets a per-task,
 * increasing sequence number (the SSE `id:`), is delivered to live subscribers, and is kept in a
 * bounded ring so a client can resume with `Last-Event-ID`. A Redis Streams implementation
 * of the same port serves several replicas.
 */
import type { StreamEvent } from '../protocol/schemas.js';

export interface LoggedEvent {
  readonly seq: number;
  readonly event: StreamEvent;
}

export type EventListener = (entry: LoggedEvent) => void;

export interface TaskEventLog {
  append(taskId: string, event: StreamEvent): number;
  /** Sequence number of the newest event (0 when none). */
  lastSeq(taskId: string): number;
  /**
   * Events after `afterSeq`, oldest first, or `undefined` when the log no longer holds all of
   * them (the caller then starts from a snapshot).
   */
  since(taskId: string, afterSeq: number): LoggedEvent[] | undefined;
  /** Live events from now on. Returns the unsubscribe function. */
  subscribe(taskId: string, listener: EventListener): () => void;
  /** The task ended (or was discarded): keep its events for replay for a while, then drop them. */
  close(taskId: string, opts?: { discard?: boolean }): void;
  stats(): { logs: number; subscribers: number; retained: number };
  dispose(): void;
}

interface Log {
  seq: number;
  /** Ring of the newest events; `ring[i]` has seq `firstSeq + i`. */
  ring: LoggedEvent[];
  listeners: Set<EventListener>;
  /** Someone streamed or subscribed: worth keeping after the task ends. */
  watched: boolean;
  expiry?: NodeJS.Timeout;
}

export class MemoryEventLog implements TaskEventLog {
  private readonly logs = new Map<string, Log>();

  /**
   * @param capacity events kept per task (SERVICE_EVENT_REPLAY)
   * @param retentionMs how long a finished task's events stay replayable (SERVICE_EVENT_RETENTION)
   */
  constructor(
    private readonly capacity: number,
    private readonly retentionMs: number,
  ) {}

  private logOf(taskId: string): Log {
    let log = this.logs.get(taskId);
    if (!log) {
      log = { seq: 0, ring: [], listeners: new Set(), watched: false };
      this.logs.set(taskId, log);
    }
    return log;
  }

  append(taskId: string, event: StreamEvent): number {
    const log = this.logOf(taskId);
    const entry: LoggedEvent = { seq: ++log.seq, event };
    if (this.capacity > 0) {
      log.ring.push(entry);
      if (log.ring.length > this.capacity) log.ring.shift();
    }
    for (const listener of log.listeners) listener(entry);
    return entry.seq;
  }

  lastSeq(taskId: string): number {
    return this.logs.get(taskId)?.seq ?? 0;
  }

  since(taskId: string, afterSeq: number): LoggedEvent[] | undefined {
    const log = this.logs.get(taskId);
    if (!log) return afterSeq === 0 ? [] : undefined;
    if (afterSeq >= log.seq) return [];
    const first = log.ring[0];
    if (!first || first.seq > afterSeq + 1) return undefined;
    return log.ring.slice(afterSeq + 1 - first.seq);
  }

  subscribe(taskId: string, listener: EventListener): () => void {
    const log = this.logOf(taskId);
    log.watched = true;
    log.listeners.add(listener);
    return () => {
      log.listeners.delete(listener);
    };
  }

  close(taskId: string, opts: { discard?: boolean } = {}): void {
    const log = this.logs.get(taskId);
    if (!log) return;
    if (opts.discard || !log.watched || this.retentionMs === 0) {
      this.logs.delete(taskId);
      return;
    }
    if (log.expiry) clearTimeout(log.expiry);
    log.expiry = setTimeout(() => {
      if (this.logs.get(taskId) === log) this.logs.delete(taskId);
    }, this.retentionMs);
    log.expiry.unref();
  }

  stats(): { logs: number; subscribers: number; retained: number } {
    let subscribers = 0;
    let retained = 0;
    for (const log of this.logs.values()) {
      subscribers += log.listeners.size;
      if (log.expiry) retained++;
    }
    return { logs: this.logs.size, subscribers, retained };
  }

  dispose(): void {
    for (const log of this.logs.values()) if (log.expiry) clearTimeout(log.expiry);
    this.logs.clear();
  }
}
