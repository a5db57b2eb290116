/**
 * A retained log packed into one string: every event comes back byte for byte, key order
 * included, whether or not it was stored without its ids.
 */
import { describe, expect, it } from 'vitest';
import { eventJson, pack, PackedLog, type LoggedEvent } from '../../src/runtime/packed-log.js';
import type { StreamEvent } from '../../src/a2a/schemas.js';

const entries = (events: StreamEvent[], first = 1): LoggedEvent[] => events.map((event, i) => ({ seq: first + i, event, json: undefined }));
/** A replay as it is written: every event's number, and its JSON text, which the replay carries along. */
const written = (replay: LoggedEvent[] | undefined): string[] | undefined =>
  replay?.map((e) => `${e.seq} ${JSON.stringify(e.event)} ${e.json}`);
const expected = (events: StreamEvent[], first: number): string[] =>
  events.map((event, i) => `${first + i} ${JSON.stringify(event)} ${JSON.stringify(event)}`);

describe('packed logs', () => {
  it('gives back every kind of event as it was logged, ids in place or not', () => {
    const events: StreamEvent[] = [
      // Only the three keys: the stored line ends right after the kind.
      { kind: 'status-update', taskId: 't"1', contextId: 'c\n1' } as unknown as StreamEvent,
      // The ids in another order, another task's ids, and a task snapshot: stored whole.
      {
        taskId: 't"1',
        kind: 'status-update',
        contextId: 'c\n1',
        status: { state: 'working', timestamp: '2026-01-01T00:00:00Z' },
        final: false,
      },
      { kind: 'artifact-update', taskId: 'other', contextId: 'c\n1', artifact: { artifactId: 'a', parts: [] } },
      { kind: 'task', id: 't"1', contextId: 'c\n1', status: { state: 'working', timestamp: '2026-01-01T00:00:00Z' } },
      {
        kind: 'artifact-update',
        taskId: 't"1',
        contextId: 'c\n1',
        artifact: { artifactId: 'a', parts: [{ kind: 'text', text: 'a\nb' }] },
        append: true,
      },
    ];
    const packed = pack('t"1', 7, entries(events, 3), 123);
    expect(packed).toBeInstanceOf(PackedLog);
    expect(packed.text.split('\n')).toHaveLength(events.length);
    expect(packed.text.split('\n')[0]).toBe('{"kind":"status-update"}');
    expect(written(packed.since('t"1', 2))).toEqual(expected(events, 3));
    expect(written(packed.since('t"1', 5))).toEqual(expected(events.slice(3), 6));
    expect(packed.since('t"1', 7)).toEqual([]);
    expect(packed.since('t"1', 1)).toBeUndefined();
    expect(packed.since('t"1', 8)).toBeUndefined();
  });

  it("reuses an event's JSON text made before, and makes it once otherwise", () => {
    const event: StreamEvent = {
      kind: 'status-update',
      taskId: 't',
      contextId: 'c',
      status: { state: 'working', timestamp: '2026-01-01T00:00:00Z' },
      final: false,
    };
    const [entry] = entries([event]) as [LoggedEvent];
    const json = eventJson(entry);
    expect(json).toBe(JSON.stringify(event));
    expect(eventJson(entry)).toBe(json);
    // A text made before is what gets packed (the log trusts it to be the event's).
    entry.json = json.replace('working', 'WORKING');
    expect(pack('t', 1, [entry], 0).since('t', 0)?.[0]?.json).toBe(entry.json);
  });

  it('an empty ring still knows its number', () => {
    const packed = pack('t', 4, [], 0);
    expect(packed.since('t', 4)).toEqual([]);
    expect(packed.since('t', 3)).toBeUndefined();
    expect(packed.entries('t')).toEqual([]);
  });
});
