/**
 * The SSE writer at its seam (src/http/sse.ts): a response that records what is written and
 * pushes back when told to, as uWS does, and a feed the test drives. The end-to-end suites cover
 * real sockets; these pin the writer's own rules: framing, order under backpressure, the cap on
 * what a slow reader may hold, and releasing the feed and the heartbeat exactly once.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/a2a/schemas.js';
import { SseWriter } from '../../src/http/sse.js';
import { SseCork } from '../../src/http/sse-cork.js';
import { Heartbeat } from '../../src/http/sse-heartbeat.js';
import { NO_METRICS } from '../../src/observe/metrics.js';
import type { WireResponse } from '../../src/http/wire.js';
import type { FeedSink, TaskFeed } from '../../src/runtime/task-feed.js';
import { captureLogs } from '../support/logs.js';

/** A response with uWS's calling convention; `accepting` false makes writes report pushback. */
class RecordingResponse implements WireResponse {
  readonly written: string[] = [];
  accepting = true;
  ended = false;
  closed = false;
  private writable: ((offset: number) => boolean) | undefined;
  cork(fn: () => void): unknown {
    fn();
    return this;
  }
  writeStatus(): WireResponse {
    return this;
  }
  writeHeader(): WireResponse {
    return this;
  }
  write(chunk: string): boolean {
    this.written.push(chunk);
    return this.accepting;
  }
  end(): unknown {
    this.ended = true;
    return this;
  }
  endWithoutBody(): unknown {
    this.ended = true;
    return this;
  }
  onWritable(handler: (offset: number) => boolean): unknown {
    this.writable = handler;
    return this;
  }
  onAborted(): unknown {
    return this;
  }
  close(): unknown {
    this.closed = true;
    return this;
  }
  /** The socket drained: uWS calls the writable handler. */
  drain(): void {
    this.accepting = true;
    this.writable?.(0);
  }
  /** The data lines written, in order. */
  get events(): string[] {
    return this.written.filter((c) => c.includes('data:'));
  }
}

/** A feed the test drives through the sink the writer hands it. */
function drivenFeed(): { feed: TaskFeed; sink: () => FeedSink; stops: () => number } {
  let sink: FeedSink | undefined;
  let stops = 0;
  return {
    feed: {
      taskId: 't1',
      start(s) {
        sink = s;
      },
      cancel() {
        stops++;
      },
    },
    sink: () => {
      if (!sink) throw new Error('the feed was not started');
      return sink;
    },
    stops: () => stops,
  };
}

const status = (n: number, final = false): StreamEvent => ({
  kind: 'status-update',
  taskId: 't1',
  contextId: 'c1',
  status: { state: final ? 'completed' : 'working', timestamp: `2026-01-01T00:00:0${n}.000Z` },
  final,
});

function setUp(maxBufferedBytes = 10_000) {
  const res = new RecordingResponse();
  const heartbeat = new Heartbeat(60_000);
  const logs = captureLogs('debug');
  let done = 0;
  const shared = {
    limits: { maxBufferedBytes },
    heartbeat,
    cork: new SseCork(),
    logger: logs.logger,
    metrics: NO_METRICS,
    headInStatus: false,
  };
  const writer = new SseWriter(res, shared, () => void done++);
  const driven = drivenFeed();
  writer.run(driven.feed, (event) => JSON.stringify(event));
  return { res, writer, logs, done: () => done, ...driven };
}

describe('SseWriter', () => {
  it('frames each event with its id, ends the response after the final one, and lets go once', () => {
    const { res, writer, sink, stops, done } = setUp();
    expect(res.written[0]).toBe(': ping\n\n');
    expect(sink().event(status(1), 1)).toBe(true);
    expect(sink().event(status(2, true), 2)).toBe(true);
    sink().end();
    expect(res.events).toEqual([`id: 1\ndata: ${JSON.stringify(status(1))}\n\n`, `id: 2\ndata: ${JSON.stringify(status(2, true))}\n\n`]);
    expect(res.ended).toBe(true);
    expect(writer.isOpen).toBe(false);
    expect(stops()).toBe(1);
    expect(done()).toBe(1);
    // Late calls change nothing.
    sink().event(status(3), 3);
    writer.clientGone();
    writer.shutdown();
    expect(res.events).toHaveLength(2);
    expect(done()).toBe(1);
  });

  it('under backpressure queues events, writes them in order once a probe write succeeds, and only then ends', () => {
    const { res, sink } = setUp();
    res.accepting = false;
    // The write that overflows is still taken by the transport; later ones wait in our queue.
    expect(sink().event(status(1), 1)).toBe(false);
    expect(sink().event(status(2), 2)).toBe(false);
    sink().event(status(3, true), 3);
    sink().end();
    expect(res.events).toHaveLength(1);
    expect(res.ended).toBe(false);
    res.drain();
    expect(res.events.map((e) => e.split('\n')[0])).toEqual(['id: 1', 'id: 2', 'id: 3']);
    expect(res.ended).toBe(true);
  });

  it('a replay paused for a slow reader resumes when the reader catches up', () => {
    const { res, sink } = setUp();
    res.accepting = false;
    sink().event(status(1), 1);
    let resumed = 0;
    sink().onDrain(() => void resumed++);
    expect(resumed).toBe(0);
    res.drain();
    expect(resumed).toBe(1);
  });

  it('closes (not ends) a stream whose reader lets more than the cap wait, and says so once', () => {
    const { res, sink, stops, done, logs } = setUp(200);
    res.accepting = false;
    for (let i = 1; i <= 6; i++) sink().event(status(i), i);
    expect(res.closed).toBe(true);
    expect(res.ended).toBe(false);
    expect(stops()).toBe(1);
    expect(done()).toBe(1);
    const cut = logs.events('sse.slow_consumer_closed');
    expect(cut).toHaveLength(1);
    expect(cut[0]).toMatchObject({ taskId: 't1', limit: 200 });
  });

  it('a client that goes away releases the feed at once and nothing more is written', () => {
    const { res, writer, sink, stops, done } = setUp();
    sink().event(status(1), 1);
    writer.clientGone();
    expect(stops()).toBe(1);
    expect(done()).toBe(1);
    const before = res.written.length;
    sink().event(status(2), 2);
    writer.ping();
    expect(res.written).toHaveLength(before);
  });

  it('a batch (snapshot and catch-up) goes out as one write of the same frames, the final one before the end', () => {
    const { res, sink, done } = setUp();
    const frames = [`id: 1\ndata: ${JSON.stringify(status(1))}\n\n`, `id: 2\ndata: ${JSON.stringify(status(2, true))}\n\n`];
    const batch = sink().batch;
    expect(batch).toBeDefined();
    batch?.call(sink(), () => {
      expect(sink().event(status(1), 1)).toBe(true);
      expect(res.events).toEqual([]);
      sink().event(status(2, true), 2);
      sink().end();
    });
    expect(res.events).toEqual([frames.join('')]);
    expect(res.ended).toBe(true);
    expect(done()).toBe(1);
  });

  it('a long batch is written in pieces, so a slow reader still pauses a replay', () => {
    const { res, sink } = setUp(1_000_000);
    res.accepting = false;
    const answers: boolean[] = [];
    sink().batch?.(() => {
      for (let i = 1; i <= 400; i++) answers.push(sink().event(status(i % 10), i));
    });
    // The first piece overflowed: from then on the events wait in the queue, in order.
    expect(answers.indexOf(false)).toBeGreaterThan(0);
    expect(answers.indexOf(false)).toBeLessThan(400);
    expect(res.events).toHaveLength(1);
    res.drain();
    const ids = res.events.flatMap((chunk) => [...chunk.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])));
    expect(ids).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
  });

  it("a feed whose start throws is still released (its subscription, and the caller's stream slot)", () => {
    const res = new RecordingResponse();
    const logs = captureLogs('debug');
    const shared = {
      limits: { maxBufferedBytes: 10_000 },
      heartbeat: new Heartbeat(60_000),
      cork: new SseCork(),
      logger: logs.logger,
      metrics: NO_METRICS,
      headInStatus: false,
    };
    let cancels = 0;
    const feed: TaskFeed = {
      taskId: 't1',
      start() {
        throw new Error('a feed that cannot start');
      },
      cancel() {
        cancels++;
      },
    };
    const writer = new SseWriter(res, shared, () => {});
    writer.run(feed, (event) => JSON.stringify(event));
    expect(res.closed).toBe(true);
    expect(cancels).toBe(1);
  });
});
