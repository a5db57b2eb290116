/**
 * Spec rule 4 ("States and transitions") with streaming: one write of the full task at each turn
 * end, coalesced progress writes while it runs (streamed or sent: at most one per window, so a
 * crash loses at most one window of a stream, issue 32), none for a turn shorter than a window,
 * and identical final tasks either way. Also: event ids go on across turns and across a restart
 * (SQLite), so `Last-Event-ID` never points at two events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryTaskStore, type Task } from '../../src/index.js';
import { client, eventually, TRANSPORTS, userMessage, type Json } from '../support/a2a.js';
import { startServer, tempDir, type TestServer } from '../support/server.js';
import {
  comparable,
  expectConsecutiveIds,
  rebuildArtifacts,
  streamMessage,
  subscribe,
  summarize,
  type StreamItem,
} from '../support/streams.js';

/** A memory store that records every write. */
function recordingStore(): { store: MemoryTaskStore; writes: Map<string, Task[]> } {
  const store = new MemoryTaskStore();
  const writes = new Map<string, Task[]>();
  const save = store.saveTask.bind(store);
  store.saveTask = async (task: Task) => {
    const list = writes.get(task.id) ?? [];
    list.push(structuredClone(task));
    writes.set(task.id, list);
    return save(task);
  };
  return { store, writes };
}

const WINDOW_S = 0.05;

describe('persistence while streaming (spec rule 4)', () => {
  let server: TestServer;
  let writes: Map<string, Task[]>;
  beforeAll(async () => {
    const recording = recordingStore();
    writes = recording.writes;
    server = await startServer({ taskStore: recording.store, progressFlushInterval: WINDOW_S });
  });
  afterAll(() => server.stop());

  const writesOf = (id: string): Task[] => writes.get(id) ?? [];

  describe.each(TRANSPORTS)('over %s', (transport) => {
    const stream = async (params: Json): Promise<StreamItem[]> => (await streamMessage(server.url, transport, params)).items;

    it('a streamed task is written before its id goes out, at most once per window while it runs, then at its end', async () => {
      // A turn still running when the client attaches is written first (so the task survives a
      // crash once its id is out), then as it goes, then at its end; one that ended already, or
      // within a window, is written once.
      for (const [text, running] of [
        ['stream 8', true],
        ['slow 300', true],
        ['fail broke', false],
        ['echo hi', false],
      ] as const) {
        const started = Date.now();
        const items = await stream({ message: userMessage(text) });
        const windows = (Date.now() - started) / (WINDOW_S * 1000);
        const id: string = items[0]?.data.id;
        // The final event is out before the write lands; a read waits for the turn to settle.
        const stored = (await client(server.url, transport).get(id)).result;
        const written = writesOf(id);
        if (running) {
          expect(['submitted', 'working']).toContain(written[0]?.status.state);
          // The visibility write, one per window at most, the final write.
          expect(written.length).toBeGreaterThan(2);
          expect(written.length).toBeLessThanOrEqual(windows + 3);
          // Each progress write holds a prefix of the streamed artifact.
          for (const progress of written.slice(1, -1)) {
            const parts = progress.artifacts?.[0]?.parts ?? [];
            expect(parts).toEqual((stored.artifacts?.[0]?.parts ?? []).slice(0, parts.length));
          }
        } else {
          expect(written).toHaveLength(1);
        }
        expect(written.at(-1)?.status.state).toBe(stored.status.state);
        expect(rebuildArtifacts(items)).toEqual(stored.artifacts ?? []);
      }
    });

    it('a multi-turn streamed task is written once per turn end', async () => {
      const first = await stream({ message: userMessage('ask colour?') });
      const id: string = first[0]?.data.id;
      await client(server.url, transport).get(id);
      expect(writesOf(id).map((t) => t.status.state)).toEqual(['input-required']);
      await stream({ message: userMessage('stream 3', { taskId: id }) });
      await client(server.url, transport).get(id);
      expect(writesOf(id).map((t) => t.status.state)).toEqual(['input-required', 'completed']);
    });

    it('a blocking send writes progress on the way, so pollers of the store see status messages', async () => {
      const r = await client(server.url, transport).send({ message: userMessage('slow 500') });
      const id: string = r.result.id;
      const states = writesOf(id).map((t) => t.status.state);
      expect(states.at(-1)).toBe('completed');
      const progress = writesOf(id).filter((t) => t.status.state === 'working');
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.some((t) => /ms left$/.test(t.status.message?.parts[0]?.kind === 'text' ? t.status.message.parts[0].text : ''))).toBe(
        true,
      );
    });

    it.each([
      ['stream 5', []],
      ['slow 300', []],
      ['fail broke', []],
      ['data', []],
      ['ask which?', ['ask and then?', 'blue']],
    ])('"%s" ends the same whether streamed or sent', async (text, followUps) => {
      const a2a = client(server.url, transport);
      const streamed = await stream({ message: userMessage(text) });
      const streamedId: string = streamed[0]?.data.id;
      for (const next of followUps) await stream({ message: userMessage(next, { taskId: streamedId }) });
      const sent = await a2a.send({ message: userMessage(text) });
      const sentId: string = sent.result.id;
      let last = sent.result;
      for (const next of followUps) last = (await a2a.send({ message: userMessage(next, { taskId: sentId }) })).result;

      const fromStream = (await a2a.get(streamedId)).result;
      expect(comparable(fromStream)).toEqual(comparable(last));
      expect(comparable(fromStream)).toEqual(comparable((await a2a.get(sentId)).result));
      // `slow` emits as many statuses as its timing allows; the others number their events alike.
      if (!text.startsWith('slow')) expect(fromStream.metadata._eventSeq).toBe(last.metadata._eventSeq);
    });
  });
});

describe('event ids over a task’s whole life', () => {
  it('continue across turns even when the log was dropped in between', async () => {
    const server = await startServer({ eventRetention: 0 });
    try {
      const first = await (await streamMessage(server.url, 'rest', { message: userMessage('ask one?') })).items;
      expectConsecutiveIds(first, 0);
      const id: string = first[0]?.data.id;
      await eventually(() => (server.stats().eventLogs === 0 ? true : undefined));
      const second = await (await streamMessage(server.url, 'jsonrpc', { message: userMessage('ask two?', { taskId: id }) })).items;
      expectConsecutiveIds(second, 2);
      expect(second.map((i) => summarize(i.data))).toEqual(['task:input-required', 'status:working', 'status:input-required+msg:final']);
    } finally {
      await server.stop();
    }
  });

  it('continue after a restart, for streams and for subscribers of a paused task', async () => {
    const temp = tempDir();
    const sqlitePath = `${temp.dir}/tasks.db`;
    try {
      const before = await startServer({ storeKind: 'sqlite', sqlitePath });
      const first = await (await streamMessage(before.url, 'rest', { message: userMessage('ask one?') })).items;
      const id: string = first[0]?.data.id;
      expect(first.at(-1)?.id).toBe(2);
      await before.stop();

      const after = await startServer({ storeKind: 'sqlite', sqlitePath });
      try {
        // A subscriber of the paused task: the snapshot carries the stored number...
        const received: StreamItem[] = [];
        const watcher = await subscribe(after.url, 'jsonrpc', id, { onItem: (i) => received.push(i) });
        await eventually(() => (received.length === 1 ? true : undefined));
        expect(received[0]?.id).toBe(2);
        // ...a resume from the last id it saw has nothing to replay and waits, live...
        const resumer = await subscribe(after.url, 'rest', id, { lastEventId: 2 });
        await eventually(() => (after.stats().subscribers === 2 ? true : undefined));
        // ...and the next turn's events are numbered after it, for everyone.
        const second = await (await streamMessage(after.url, 'rest', { message: userMessage('ask two?', { taskId: id }) })).items;
        expectConsecutiveIds(second, 2);
        const watched = await watcher.items;
        expectConsecutiveIds(watched, 2);
        expect(watched.map((i) => summarize(i.data))).toEqual(['task:input-required', 'status:working', 'status:input-required+msg:final']);
        const resumed = await resumer.items;
        expect(resumed.map((i) => i.id)).toEqual([3, 4]);
      } finally {
        await after.stop();
      }
    } finally {
      temp.cleanup();
    }
  });
});
