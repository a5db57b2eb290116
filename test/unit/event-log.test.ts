/**
 * The memory event log on its own: numbering over a task's life, what `since` can and cannot
 * tell, and when a log may be dropped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryEventLog } from '../../src/runtime/event-log.js';
import type { StreamEvent } from '../../src/a2a/schemas.js';
import { eventually } from '../support/a2a.js';

const status = (state: 'working' | 'input-required', final = false): StreamEvent => ({
  kind: 'status-update',
  taskId: 't',
  contextId: 'c',
  status: { state, timestamp: '2026-01-01T00:00:00Z' },
  final,
});

describe('MemoryEventLog', () => {
  let log: MemoryEventLog;
  afterEach(() => log.dispose());

  it('numbers a task’s events from its stored number on, whatever the log forgot', () => {
    log = new MemoryEventLog(10, 0);
    log.open('t', { afterSeq: 0, watched: false });
    expect([log.append('t', status('working')), log.append('t', status('input-required', true))]).toEqual([1, 2]);
    log.close('t');
    expect(log.stats().logs).toBe(0);
    // The next turn starts from the task's `_eventSeq`, not from 1.
    log.open('t', { afterSeq: 2, watched: false });
    expect(log.append('t', status('working'))).toBe(3);
    // A lower stored number never takes the counter back.
    log.open('t', { afterSeq: 1, watched: false });
    expect(log.append('t', status('working'))).toBe(4);
  });

  it('a retained log replays exactly the events its turn logged, and the next turn continues them', () => {
    log = new MemoryEventLog(10, 60_000);
    log.open('t', { afterSeq: 0, watched: true });
    const artifact: StreamEvent = {
      kind: 'artifact-update',
      taskId: 't',
      contextId: 'c',
      // The task's own id pair in user data, and a look-alike that is not it, come back as they were.
      artifact: {
        artifactId: 'a',
        parts: [{ kind: 'data', data: { taskId: 't', contextId: 'c', text: '"taskId":"t","contextId":"c" \u0001' } }],
      },
      lastChunk: true,
    };
    const logged = [status('working'), artifact, status('input-required', true)];
    for (const event of logged) log.append('t', event);
    log.close('t');
    expect(log.stats()).toMatchObject({ logs: 1, retained: 1 });
    // Byte for byte, key order included: a replayed event is written as it was first sent.
    const replay = log.since('t', 0);
    expect(JSON.stringify(replay?.map(({ seq, event }) => ({ seq, event })))).toBe(
      JSON.stringify(logged.map((event, i) => ({ seq: i + 1, event }))),
    );
    // The replay carries each event's JSON text, which its frames splice in.
    expect(replay?.map((e) => e.json)).toEqual(logged.map((event) => JSON.stringify(event)));
    expect(log.since('t', 2)).toEqual([{ seq: 3, event: logged[2], json: JSON.stringify(logged[2]) }]);
    log.open('t', { afterSeq: 3, watched: true });
    log.append('t', status('working'));
    expect(log.since('t', 1)?.map((e) => [e.seq, e.event.kind])).toEqual([
      [2, 'artifact-update'],
      [3, 'status-update'],
      [4, 'status-update'],
    ]);
  });

  it('since: every event after a number, [] when up to date, undefined when it cannot tell', () => {
    log = new MemoryEventLog(3, 0);
    log.open('t', { afterSeq: 0, watched: true });
    for (let i = 0; i < 5; i++) log.append('t', status('working'));
    expect(log.since('t', 2)?.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(log.since('t', 5)).toEqual([]);
    expect(log.since('t', 1)).toBeUndefined(); // 2 fell out of the ring
    expect(log.since('t', 6)).toBeUndefined(); // not a number this log gave out
    expect(log.since('other', 0)).toBeUndefined();
    // Seeded past what it holds: the held events do not connect to the next ones.
    log.open('t', { afterSeq: 9, watched: true });
    expect(log.since('t', 5)).toBeUndefined();
    expect(log.since('t', 9)).toEqual([]);
  });

  it('expires retained logs in closing order with one timer, and a turn that reopens a log keeps it', async () => {
    log = new MemoryEventLog(10, 60);
    const watched = (id: string) => {
      log.open(id, { afterSeq: 0, watched: true });
      log.append(id, status('input-required', true));
      log.close(id);
    };
    watched('a');
    watched('b');
    await new Promise((r) => setTimeout(r, 30));
    watched('c');
    // `b` starts a new turn before its retention ends: its queued expiry must not drop it.
    log.open('b', { afterSeq: 1, watched: false });
    expect(log.stats()).toMatchObject({ logs: 3, retained: 2 });
    await eventually(() => (log.since('a', 0) === undefined ? true : undefined));
    expect(log.since('c', 0)?.map((e) => e.seq)).toEqual([1]);
    expect(log.since('b', 0)?.map((e) => e.seq)).toEqual([1]);
    await eventually(() => (log.stats().logs === 1 ? true : undefined));
    // The running turn of `b` is all that is left; after it ends, its log is retained afresh.
    expect(log.lastSeq('b')).toBe(1);
    log.close('b');
    expect(log.stats()).toMatchObject({ logs: 1, retained: 1 });
    await eventually(() => (log.stats().logs === 0 ? true : undefined));
  });

  it('keeps a listened log past its retention, then drops it when the last listener leaves', async () => {
    log = new MemoryEventLog(10, 5);
    log.open('t', { afterSeq: 0, watched: true });
    const seen: number[] = [];
    const off = log.subscribe('t', (e) => seen.push(e.seq));
    log.append('t', status('input-required', true));
    log.close('t');
    expect(log.stats()).toMatchObject({ logs: 1, retained: 1, held: 0 });
    await eventually(() => (log.stats().held === 1 ? true : undefined));
    expect(log.stats()).toMatchObject({ logs: 1, retained: 0, held: 1, subscribers: 1 });
    // The next turn reaches the same listener.
    log.open('t', { afterSeq: 1, watched: false });
    log.append('t', status('working'));
    expect(seen).toEqual([1, 2]);
    log.close('t');
    await eventually(() => (log.stats().held === 1 ? true : undefined));
    off();
    expect(log.stats().logs).toBe(0);
  });

  it('a subscriber of a retained log reads it, and the log still expires when its retention ends', async () => {
    log = new MemoryEventLog(10, 40);
    log.open('t', { afterSeq: 0, watched: true });
    log.append('t', status('working'));
    log.append('t', status('input-required', true));
    log.close('t');
    const seen: number[] = [];
    const off = log.subscribe('t', (e) => seen.push(e.seq));
    expect(log.since('t', 1)?.map((e) => e.seq)).toEqual([2]);
    expect(log.stats()).toMatchObject({ logs: 1, retained: 1, subscribers: 1 });
    off();
    expect(log.stats()).toMatchObject({ logs: 1, retained: 1, subscribers: 0 });
    expect(log.since('t', 0)?.map((e) => e.seq)).toEqual([1, 2]);
    await eventually(() => (log.stats().logs === 0 ? true : undefined));
    expect(seen).toEqual([]);
  });

  it('a retained log closed again is retained afresh, and an event it has no room for is never replayed', () => {
    log = new MemoryEventLog(0, 60_000);
    log.open('t', { afterSeq: 0, watched: true });
    log.append('t', status('working'));
    log.close('t');
    log.close('t');
    expect(log.stats()).toMatchObject({ logs: 1, retained: 1 });
    expect(log.since('t', 1)).toEqual([]);
    // A replica's event arrives for a retained log that keeps none.
    log.append('t', status('working'));
    expect(log.lastSeq('t')).toBe(2);
    expect(log.since('t', 1)).toBeUndefined();
    expect(log.since('t', 2)).toEqual([]);
  });

  it('a retained log whose event stopped serializing stays as objects, and its last listener still leaves', () => {
    log = new MemoryEventLog(10, 60_000);
    log.open('t', { afterSeq: 0, watched: true });
    const unsubscribe = log.subscribe('t', () => {});
    const event = status('working');
    log.append('t', event);
    // The agent changed what it handed over: the event now holds itself.
    Object.assign(event, { self: event });
    log.close('t');
    expect(() => unsubscribe()).not.toThrow();
    expect(log.stats().retained).toBe(1);
    expect(log.since('t', 0)?.map((e) => e.seq)).toEqual([1]);
  });

  it('a subscriber of a task with no log leaves nothing behind', () => {
    log = new MemoryEventLog(10, 1000);
    const off = log.subscribe('paused', () => {});
    expect(log.stats()).toMatchObject({ logs: 1, held: 1 });
    off();
    expect(log.stats()).toMatchObject({ logs: 0, subscribers: 0 });
  });

  it('an unwatched turn is dropped at once; discard drops even a watched one', () => {
    log = new MemoryEventLog(10, 1000);
    log.open('a', { afterSeq: 0, watched: false });
    log.append('a', status('working'));
    log.close('a');
    log.open('b', { afterSeq: 0, watched: true });
    log.append('b', status('working'));
    log.close('b', { discard: true });
    expect(log.stats().logs).toBe(0);
  });

  it('a watched log keeps its newest events within its byte bound, and a resume from before them gets nothing to replay', () => {
    const size = JSON.stringify(status('working')).length;
    log = new MemoryEventLog(1000, 60_000, { perTask: size * 5 });
    log.open('t', { afterSeq: 0, watched: true });
    for (let i = 0; i < 20; i++) log.append('t', status('working'));
    expect(log.since('t', 15)?.map((e) => e.seq)).toEqual([16, 17, 18, 19, 20]);
    expect(log.since('t', 14)).toBeUndefined();
    expect(log.firstSeq('t')).toBe(16);
    log.close('t');
    expect(log.stats().retainedBytes).toBeLessThanOrEqual(size * 5);
    expect(log.since('t', 14)).toBeUndefined();
    expect(log.since('t', 17)?.map((e) => e.seq)).toEqual([18, 19, 20]);
  });

  it('a log watched late in its turn is held to its byte bound when the turn ends', () => {
    const size = JSON.stringify(status('working')).length;
    log = new MemoryEventLog(1000, 60_000, { perTask: size * 3 });
    log.open('t', { afterSeq: 0, watched: false });
    for (let i = 0; i < 10; i++) log.append('t', status('working'));
    log.subscribe('t', () => {})();
    log.close('t');
    expect(log.since('t', 7)?.map((e) => e.seq)).toEqual([8, 9, 10]);
    expect(log.since('t', 6)).toBeUndefined();
  });

  it('the retained logs together stay within their bound: the oldest turns go first, as if expired', () => {
    const size = JSON.stringify(status('working')).length;
    log = new MemoryEventLog(1000, 60_000, { retained: size * 10 });
    for (const id of ['a', 'b', 'c', 'd']) {
      log.open(id, { afterSeq: 0, watched: true });
      for (let i = 0; i < 4; i++) log.append(id, status('working'));
      log.close(id);
    }
    expect(log.stats().retainedBytes).toBeLessThanOrEqual(size * 10);
    expect(log.since('a', 0)).toBeUndefined();
    expect(log.since('b', 0)).toBeUndefined();
    expect(log.since('c', 0)?.length).toBe(4);
    expect(log.since('d', 0)?.length).toBe(4);
    expect(log.stats().retained).toBe(2);
  });
});
