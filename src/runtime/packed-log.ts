/**
 * A retained event log as one string (runtime/event-log.ts keeps it for replay after a turn).
 *
 * A retained log is replayed rarely but kept for the whole retention period, under streaming load
 * for tens of thousands of tasks at once. As objects (a log record, its listener set, a ring of
 * entries, an expiry entry) it cost a dozen objects per task, which every scavenge copied and
 * every full collection traced. Packed, it is one small record and one flat
 * string, which holds nothing else alive.
 *
 * The text holds one line per event (JSON text never holds a raw newline). An event written
 * `{"kind":…,"taskId":<the task's>,"contextId":<the log's>,…}`, which is every event the runtime
 * logs, is stored without the two ids and put back byte for byte; any other event is stored
 * whole behind a `=`.
 */
import type { StreamEvent } from '../a2a/schemas.js';

/** One event of a task's log, with its number. */
export interface LoggedEvent {
  /** The event's number: `id:` on the stream, what `Last-Event-ID` names. */
  readonly seq: number;
  /** The event itself. */
  readonly event: StreamEvent;
  /**
   * The event's JSON text, once made: a stream's frame makes it, and the packing and a replay's
   * frames reuse it, so an event is serialized once.
   */
  json: string | undefined;
}

/** The event's JSON text, made once. */
export const eventJson = (entry: LoggedEvent): string => (entry.json ??= JSON.stringify(entry.event));

/** The log of a task whose turn ended, while it waits for replays or its expiry. */
export class PackedLog {
  constructor(
    /** Number of the newest event the task has had (the log's counter). */
    readonly seq: number,
    /** Number of the first event in `text`; `seq + 1` when it holds none. */
    readonly first: number,
    /** The ids the events' lines leave out (empty when they hold none). */
    readonly contextId: string,
    readonly text: string,
    /** When the retention ends (ms since the epoch). */
    readonly expiresAt: number,
  ) {}

  /** The events after `afterSeq`; undefined when some of them are not here any more. */
  since(taskId: string, afterSeq: number): LoggedEvent[] | undefined {
    if (afterSeq > this.seq || this.first > afterSeq + 1) return undefined;
    const out: LoggedEvent[] = [];
    if (afterSeq === this.seq) return out;
    const lines = this.text.split('\n');
    const ids = idsText(taskId, this.contextId);
    for (let seq = afterSeq + 1; seq <= this.seq; seq++) {
      const json = withIds(lines[seq - this.first] as string, ids);
      out.push({ seq, event: JSON.parse(json) as StreamEvent, json });
    }
    return out;
  }

  /** Every event, as `open` gives them back to a turn that continues the log. */
  entries(taskId: string): LoggedEvent[] {
    return this.since(taskId, this.first - 1) ?? [];
  }
}

const idsText = (taskId: string, contextId: string): string =>
  `,"taskId":${JSON.stringify(taskId)},"contextId":${JSON.stringify(contextId)}`;

/** `{"kind":"<kind>"` of a stripped line: kinds are plain words, so the value ends at the next quote. */
const headLength = (line: string): number => line.indexOf('"', 9) + 1;

function withIds(line: string, ids: string): string {
  if (line.charCodeAt(0) === 0x3d /* = */) return line.slice(1);
  const head = headLength(line);
  return line.slice(0, head) + ids + line.slice(head);
}

/** The two kinds the runtime writes with the ids right after `kind` (see lineOf). */
const STATUS_HEAD = '{"kind":"status-update"';
const ARTIFACT_HEAD = '{"kind":"artifact-update"';

/**
 * What a line may leave out: an event's JSON text up to and with the ids, per kind, made flat
 * (join) once per log. A line compares a substring of its text with one (`===`): on Node 20,
 * `text.startsWith(ids, position)` against a concatenated (rope) string flattens it on every
 * call, and was most of the packing's cost (bench/micro/packed-log.ts measures it).
 */
interface Prefixes {
  status: string;
  artifact: string;
}

const prefixesOf = (ids: string): Prefixes => ({ status: [STATUS_HEAD, ids].join(''), artifact: [ARTIFACT_HEAD, ids].join('') });

/** One event's line: without the ids when it is written with them first, else whole. */
function lineOf(entry: LoggedEvent, prefixes: Prefixes): string {
  const text = eventJson(entry);
  const kind = entry.event.kind;
  // The kind's quoted value, then the ids' text, can only be the first three keys; and a
  // quoted value that matches in full is that value.
  if (kind === 'status-update') {
    if (text.substring(0, prefixes.status.length) === prefixes.status) return STATUS_HEAD + text.slice(prefixes.status.length);
  } else if (kind === 'artifact-update') {
    if (text.substring(0, prefixes.artifact.length) === prefixes.artifact) return ARTIFACT_HEAD + text.slice(prefixes.artifact.length);
  }
  return `=${text}`;
}

/** Packs a ring (oldest first, consecutive numbers ending at `seq`). */
export function pack(taskId: string, seq: number, ring: readonly LoggedEvent[], expiresAt: number): PackedLog {
  const head = ring[0];
  if (!head) return new PackedLog(seq, seq + 1, '', '', expiresAt);
  const contextId = head.event.contextId ?? '';
  const prefixes = prefixesOf(idsText(taskId, contextId));
  // join makes one flat string: the lines' pieces are not kept alive behind it.
  return new PackedLog(seq, head.seq, contextId, ring.map((entry) => lineOf(entry, prefixes)).join('\n'), expiresAt);
}
