/**
 * The TaskStore contract: one suite that every adapter must pass (memory, SQLite, and
 * PostgreSQL when it lands). `open` returns a fresh, empty store.
 */
import { describe, expect, it } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import type { Task, TaskState } from '../../src/index.js';
import type { TaskListQuery, TaskStore } from '../../src/store/types.js';

export function task(state: TaskState, opts: { contextId?: string; id?: string; at?: string } = {}): Task {
  const id = opts.id ?? uuidv7();
  const contextId = opts.contextId ?? 'ctx';
  return {
    kind: 'task',
    id,
    contextId,
    status: { state, timestamp: opts.at ?? new Date().toISOString() },
    history: [{ kind: 'message', role: 'user', parts: [{ kind: 'text', text: `hi ${id}` }], messageId: `m-${id}`, taskId: id, contextId }],
    metadata: { stateTransitions: [{ state, timestamp: opts.at ?? new Date().toISOString() }], _internal: 1 },
  };
}

/**
 * A task with `messages` messages in its history, each of two text parts of `chars` characters,
 * and one artifact of `chars` characters.
 */
export function bulky(state: TaskState, messages: number, chars: number): Task {
  const t = task(state);
  const text = (i: number) => `${i}`.padEnd(chars, 'x');
  t.history = Array.from({ length: messages }, (_, i) => ({
    kind: 'message' as const,
    role: i % 2 ? ('agent' as const) : ('user' as const),
    parts: [
      { kind: 'text' as const, text: text(i) },
      { kind: 'text' as const, text: `"quoted" \\ ${text(i)}` },
    ],
    messageId: `m-${t.id}-${i}`,
    taskId: t.id,
    contextId: t.contextId,
  }));
  t.artifacts = [{ artifactId: 'a1', name: 'report', parts: [{ kind: 'text', text: text(99) }] }];
  return t;
}

/**
 * A store opened over data written before owners existed: the old task reads back unchanged
 * and belongs to nobody, and a new task is listed for its owner alone.
 */
export async function expectOwnerlessAfterMigration(store: TaskStore, old: Task): Promise<void> {
  expect(await store.getTask(old.id)).toEqual(old);
  expect(await store.getTask(old.id, 'alice')).toBeUndefined();
  expect((await store.listTasks({ pageSize: 10 })).totalSize).toBe(1);
  expect((await store.listTasks({ pageSize: 10, owner: 'alice' })).totalSize).toBe(0);
  const mine = task('completed');
  await store.saveTask(mine, undefined, undefined, 'alice');
  expect((await store.listTasks({ pageSize: 10, owner: 'alice' })).tasks.map((t) => t.id)).toEqual([mine.id]);
}

export function storeContract(name: string, open: () => Promise<{ store: TaskStore; reopen?: () => Promise<TaskStore> }>): void {
  describe(`TaskStore contract: ${name}`, () => {
    it('saves and reads a task back unchanged, and replaces it on save', async () => {
      const { store } = await open();
      const t = task('working');
      await store.saveTask(t);
      expect(await store.getTask(t.id)).toEqual(t);
      const done = { ...t, status: { state: 'completed' as const, timestamp: new Date().toISOString() } };
      await store.saveTask(done);
      expect(await store.getTask(t.id)).toEqual(done);
      expect(await store.getTask('missing')).toBeUndefined();
      await store.close();
    });

    it('lists newest first with keyset pages, filters and totals', async () => {
      const { store } = await open();
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) {
        const t = task(i % 5 === 0 ? 'input-required' : 'completed', { contextId: i % 2 ? 'odd' : 'even' });
        ids.push(t.id);
        await store.saveTask(t);
      }
      const newest = ids.slice().reverse();
      const p1 = await store.listTasks({ pageSize: 10 });
      expect(p1.totalSize).toBe(25);
      expect(p1.tasks.map((t) => t.id)).toEqual(newest.slice(0, 10));
      expect(p1.lastId).toBe(newest[9]);
      // A task added between pages lands before page one and does not shift page two.
      await store.saveTask(task('completed'));
      const p2 = await store.listTasks({ pageSize: 10, afterId: p1.lastId });
      expect(p2.tasks.map((t) => t.id)).toEqual(newest.slice(10, 20));
      const p3 = await store.listTasks({ pageSize: 10, afterId: p2.lastId });
      expect(p3.tasks.map((t) => t.id)).toEqual(newest.slice(20));
      expect(p3.lastId).toBeUndefined();

      const odd = await store.listTasks({ pageSize: 100, contextId: 'odd' });
      expect(odd.totalSize).toBe(12);
      expect(odd.tasks.every((t) => t.contextId === 'odd')).toBe(true);
      const paused = await store.listTasks({ pageSize: 2, status: 'input-required' });
      expect(paused.totalSize).toBe(5);
      expect(paused.tasks).toHaveLength(2);
      const both = await store.listTasks({ pageSize: 100, status: 'input-required', contextId: 'even' });
      expect(both.tasks.map((t) => t.id).sort()).toEqual([ids[0], ids[10], ids[20]].sort());
      await store.close();
    });

    it('a context listed before its later tasks were written lists them too, as does a new context', async () => {
      const { store } = await open();
      const first = task('completed', { contextId: 'kept' });
      await store.saveTask(first);
      expect((await store.listTasks({ pageSize: 10, contextId: 'kept' })).tasks.map((t) => t.id)).toEqual([first.id]);
      const second = task('completed', { contextId: 'kept' });
      const fresh = task('completed', { contextId: 'fresh' });
      await store.saveTask(second);
      await store.saveTask(fresh);
      const kept = await store.listTasks({ pageSize: 10, contextId: 'kept' });
      expect(kept.tasks.map((t) => t.id)).toEqual([second.id, first.id]);
      expect(kept.totalSize).toBe(2);
      expect((await store.listTasks({ pageSize: 10, contextId: 'fresh' })).tasks.map((t) => t.id)).toEqual([fresh.id]);
      await store.close();
    });

    it('tasks written out of id order (turns end in any order) list in id order, and an older one updates in place', async () => {
      const { store } = await open();
      const tasks = Array.from({ length: 30 }, (_, i) => task('working', { contextId: i % 3 ? 'many' : `own-${i}` }));
      // Newest first, then the rest shuffled by a stride: some land near the end, some far back.
      const written = [tasks[29], tasks[0], ...tasks.slice(1, 29).map((_, i) => tasks[1 + ((i * 11) % 28)])] as Task[];
      for (const t of written) await store.saveTask(t);
      const newest = tasks.map((t) => t.id).reverse();
      expect((await store.listTasks({ pageSize: 100 })).tasks.map((t) => t.id)).toEqual(newest);
      const many = tasks.filter((_, i) => i % 3).map((t) => t.id);
      expect((await store.listTasks({ pageSize: 100, contextId: 'many' })).tasks.map((t) => t.id)).toEqual(many.reverse());
      const done = { ...(tasks[3] as Task), status: { state: 'completed' as const, timestamp: new Date().toISOString() } };
      await store.saveTask(done);
      expect(await store.getTask(done.id)).toEqual(done);
      const all = await store.listTasks({ pageSize: 100 });
      expect(all.totalSize).toBe(30);
      expect(all.tasks.map((t) => t.id)).toEqual(newest);
      expect((await store.listTasks({ pageSize: 100, status: 'completed' })).tasks.map((t) => t.id)).toEqual([done.id]);
      await store.close();
    });

    it('a list entry holds only the parts asked for: history (all, last N or none) and artifacts', async () => {
      const { store } = await open();
      const t = bulky('completed', 3, 100);
      await store.saveTask(t);
      const listed = async (view: { historyLength?: number; includeArtifacts?: boolean }) =>
        (await store.listTasks({ pageSize: 10, ...view })).tasks[0];
      expect(await listed({})).toEqual(t);
      expect(await listed({ historyLength: 0, includeArtifacts: false })).toEqual({ ...t, history: undefined, artifacts: undefined });
      expect(await listed({ historyLength: 0 })).toEqual({ ...t, history: undefined });
      expect(await listed({ historyLength: 2, includeArtifacts: false })).toEqual({
        ...t,
        history: t.history?.slice(-2),
        artifacts: undefined,
      });
      // Summaries of tasks written later replace the first ones.
      const done = { ...t, status: { state: 'failed' as const, timestamp: new Date().toISOString() }, artifacts: undefined };
      await store.saveTask(done);
      expect(await listed({ historyLength: 0 })).toEqual({ ...done, history: undefined });
      await store.close();
    });

    it('a page stops before its byte budget is passed, holds one task at least, and counts only what it returns', async () => {
      const { store } = await open();
      // Large enough for the memory store to keep them as text: both of its ways are listed.
      const tasks = [
        bulky('completed', 2, 40_000),
        bulky('completed', 1, 20),
        bulky('completed', 2, 40_000),
        bulky('completed', 2, 40_000),
      ];
      for (const t of tasks) await store.saveTask(t);
      const newest = tasks.map((t) => t.id).reverse();
      const all = async (query: Omit<TaskListQuery, 'pageSize'>) => {
        const pages: string[][] = [];
        let afterId: string | undefined;
        do {
          const page = await store.listTasks({ pageSize: 10, ...query, ...(afterId ? { afterId } : {}) });
          expect(page.totalSize).toBe(4);
          pages.push(page.tasks.map((t) => t.id));
          afterId = page.lastId;
        } while (afterId !== undefined && pages.length < 10);
        return pages;
      };
      // A bulky task is ~200 KB: its history (two messages of two 40,000-character parts) and its artifact.
      const [b3, b2, small, b0] = newest;
      expect(await all({ maxBytes: 250_000 })).toEqual([[b3], [b2, small], [b0]]);
      expect(await all({ maxBytes: 1024 })).toEqual(newest.map((id) => [id]));
      expect(await all({ maxBytes: 1_000_000 })).toEqual([newest]);
      // Without history an entry is its summary and artifacts: all four fit.
      expect(await all({ maxBytes: 200_000, historyLength: 0 })).toEqual([newest]);
      // Artifacts count when they are returned.
      expect(await all({ maxBytes: 60_000, historyLength: 0 })).toEqual([[b3], [b2, small], [b0]]);
      expect(await all({ maxBytes: 60_000, historyLength: 0, includeArtifacts: false })).toEqual([newest]);
      await store.close();
    });

    it('filters by status timestamp (at or after)', async () => {
      const { store } = await open();
      const old = task('completed', { at: '2020-01-01T00:00:00.000Z' });
      const recent = task('completed', { at: '2030-01-01T00:00:00.000Z' });
      await store.saveTask(old);
      await store.saveTask(recent);
      const r = await store.listTasks({ pageSize: 10, statusTimestampAfter: '2025-06-01T00:00:00Z' });
      expect(r.tasks.map((t) => t.id)).toEqual([recent.id]);
      const exact = await store.listTasks({ pageSize: 10, statusTimestampAfter: '2030-01-01T00:00:00.000Z' });
      expect(exact.totalSize).toBe(1);
      const offset = await store.listTasks({ pageSize: 10, statusTimestampAfter: '2030-01-01T01:00:00+01:00' });
      expect(offset.totalSize).toBe(1);
      await store.close();
    });

    it('finds tasks by state for start-up recovery', async () => {
      const { store } = await open();
      const w = task('working');
      const s = task('submitted');
      await store.saveTask(w);
      await store.saveTask(s);
      await store.saveTask(task('input-required'));
      const found = await store.tasksInStates(['submitted', 'working']);
      expect(found.map((t) => t.id).sort()).toEqual([w.id, s.id].sort());
      expect(await store.tasksInStates([])).toEqual([]);
      await store.close();
    });

    it('records the message that produced a task with its write, per scope; the first task stays', async () => {
      const { store } = await open();
      const t1 = task('completed', { contextId: 'ctx-1' });
      await store.saveTask(t1, { scope: 'ctx-1', messageId: 'm1' });
      expect(await store.getTask(t1.id)).toEqual(t1);
      expect(await store.findTaskIdByMessage('ctx-1', 'm1')).toBe(t1.id);
      expect(await store.findTaskIdByMessage('ctx-2', 'm1')).toBeUndefined();
      const other = task('completed', { contextId: 'ctx-1' });
      await store.saveTask(other, { scope: 'ctx-1', messageId: 'm1' });
      expect(await store.findTaskIdByMessage('ctx-1', 'm1')).toBe(t1.id);
      expect(await store.getTask(other.id)).toEqual(other);
      // A later write of the same task with its key again changes nothing.
      await store.saveTask(
        { ...t1, status: { state: 'completed', timestamp: new Date().toISOString() } },
        { scope: 'ctx-1', messageId: 'm1' },
      );
      expect(await store.findTaskIdByMessage('ctx-1', 'm1')).toBe(t1.id);
      await store.close();
    });

    it('keeps one message id apart per scope, the unscoped one included, each with its first task', async () => {
      const { store } = await open();
      const [a, b, c, d, e] = Array.from({ length: 5 }, () => task('completed'));
      await store.saveTask(a as Task, { scope: 'ctx-1', messageId: 'same' });
      expect(await store.findTaskIdByMessage('', 'same')).toBeUndefined();
      await store.saveTask(b as Task, { scope: '', messageId: 'same' });
      await store.saveTask(c as Task, { scope: 'ctx-2', messageId: 'same' });
      await store.saveTask(d as Task, { scope: '', messageId: 'same' });
      await store.saveTask(e as Task, { scope: 'ctx-2', messageId: 'same' });
      await store.saveTask(e as Task, { scope: '', messageId: 'unscoped' });
      await store.saveTask(d as Task, { scope: 'ctx-3', messageId: 'unscoped' });
      expect(await store.findTaskIdByMessage('ctx-1', 'same')).toBe(a?.id);
      expect(await store.findTaskIdByMessage('', 'same')).toBe(b?.id);
      expect(await store.findTaskIdByMessage('ctx-2', 'same')).toBe(c?.id);
      expect(await store.findTaskIdByMessage('ctx-4', 'same')).toBeUndefined();
      expect(await store.findTaskIdByMessage('', 'unscoped')).toBe(e?.id);
      expect(await store.findTaskIdByMessage('ctx-3', 'unscoped')).toBe(d?.id);
      expect(await store.findTaskIdByMessage('ctx-1', 'unscoped')).toBeUndefined();
      expect(await store.findTaskIdByMessage('', 'never')).toBeUndefined();
      await store.close();
    });

    it('keeps push configs per task in creation order; same id updates in place', async () => {
      const { store } = await open();
      await store.savePushConfig('t1', { id: 'a', url: 'https://a.example.com/hook' });
      await store.savePushConfig('t1', { id: 'b', url: 'https://b.example.com/hook', token: 'tok' });
      await store.savePushConfig('t2', { id: 'a', url: 'https://c.example.com/hook' });
      await store.savePushConfig('t1', { id: 'a', url: 'https://a2.example.com/hook' });
      expect(await store.listPushConfigs('t1')).toEqual([
        { id: 'a', url: 'https://a2.example.com/hook' },
        { id: 'b', url: 'https://b.example.com/hook', token: 'tok' },
      ]);
      expect(await store.deletePushConfig('t1', 'a')).toBe(true);
      expect(await store.deletePushConfig('t1', 'a')).toBe(false);
      expect((await store.listPushConfigs('t1')).map((c) => c.id)).toEqual(['b']);
      expect(await store.listPushConfigs('t2')).toHaveLength(1);
      expect(await store.listPushConfigs('none')).toEqual([]);
      await store.close();
    });

    it("records a task's owner once; reads and lists with an owner see only that owner's tasks", async () => {
      const { store, reopen } = await open();
      const alice: Task[] = [];
      const bob: Task[] = [];
      for (let i = 0; i < 12; i++) {
        const t = task(i % 3 === 0 ? 'input-required' : 'completed', { contextId: i < 6 ? 'shared' : `own-${i}` });
        const owner = i % 2 ? 'bob' : 'alice';
        (owner === 'alice' ? alice : bob).push(t);
        await store.saveTask(t, undefined, undefined, owner);
      }
      const ownerless = task('completed', { contextId: 'shared' });
      await store.saveTask(ownerless);
      const a0 = alice[0] as Task;
      expect(await store.getTask(a0.id, 'alice')).toEqual(a0);
      expect(await store.getTask(a0.id, 'bob')).toBeUndefined();
      expect(await store.getTask(a0.id)).toEqual(a0);
      expect(await store.getTask(ownerless.id, 'alice')).toBeUndefined();
      expect(await store.getTask(ownerless.id)).toEqual(ownerless);
      // Later writes (with no owner, or another one) never change it.
      const later = { ...a0, status: { state: 'completed' as const, timestamp: new Date().toISOString() } };
      await store.saveTask(later);
      await store.saveTask(later, undefined, undefined, 'bob');
      expect(await store.getTask(a0.id, 'alice')).toEqual(later);
      expect(await store.getTask(a0.id, 'bob')).toBeUndefined();

      const newest = (ts: Task[]) => ts.map((t) => t.id).reverse();
      const all = await store.listTasks({ pageSize: 100, owner: 'alice' });
      expect(all.tasks.map((t) => t.id)).toEqual(newest(alice));
      expect(all.totalSize).toBe(6);
      // Paged: keyset pages within the owner's tasks, totals counting only them.
      const p1 = await store.listTasks({ pageSize: 4, owner: 'bob' });
      expect(p1.totalSize).toBe(6);
      expect(p1.tasks.map((t) => t.id)).toEqual(newest(bob).slice(0, 4));
      const p2 = await store.listTasks({ pageSize: 4, owner: 'bob', afterId: p1.lastId });
      expect(p2.tasks.map((t) => t.id)).toEqual(newest(bob).slice(4));
      expect(p2.lastId).toBeUndefined();
      // A context both wrote in: each sees only its own tasks of it, and the count agrees.
      const sharedAlice = await store.listTasks({ pageSize: 100, owner: 'alice', contextId: 'shared' });
      expect(sharedAlice.tasks.map((t) => t.id)).toEqual(newest(alice.filter((t) => t.contextId === 'shared')));
      expect(sharedAlice.totalSize).toBe(3);
      const pausedBob = await store.listTasks({ pageSize: 100, owner: 'bob', status: 'input-required' });
      expect(pausedBob.tasks.map((t) => t.id)).toEqual(newest(bob.filter((t) => t.status.state === 'input-required')));
      expect(pausedBob.totalSize).toBe(pausedBob.tasks.length);
      const since = await store.listTasks({ pageSize: 100, owner: 'alice', statusTimestampAfter: '2000-01-01T00:00:00Z' });
      expect(since.totalSize).toBe(6);
      expect(await store.listTasks({ pageSize: 10, owner: 'carol' })).toEqual({ tasks: [], totalSize: 0 });
      // Without an owner filter, everything (auth off).
      expect((await store.listTasks({ pageSize: 100 })).totalSize).toBe(13);
      await store.close();
      if (reopen) {
        const again = await reopen();
        expect(await again.getTask(a0.id, 'alice')).toEqual(later);
        expect((await again.listTasks({ pageSize: 100, owner: 'bob' })).totalSize).toBe(6);
        await again.close();
      }
    });

    it('an owned task written after ownerless ones belongs to its owner alone', async () => {
      const { store } = await open();
      const before = [task('completed'), task('completed'), task('completed')];
      for (const t of before) await store.saveTask(t);
      const mine = task('completed');
      await store.saveTask(mine, undefined, undefined, 'alice');
      expect(await store.getTask(mine.id, 'alice')).toEqual(mine);
      expect(await store.getTask(mine.id, 'bob')).toBeUndefined();
      expect(await store.getTask((before[2] as Task).id, 'alice')).toBeUndefined();
      expect(await store.listTasks({ pageSize: 10, owner: 'alice' })).toEqual({ tasks: [mine], totalSize: 1 });
      expect((await store.listTasks({ pageSize: 10 })).totalSize).toBe(4);
      await store.close();
    });

    it('keeps everything across a reopen (durable adapters)', async () => {
      const { store, reopen } = await open();
      if (!reopen) {
        await store.close();
        return;
      }
      const t = task('input-required');
      await store.saveTask(t, { scope: 's', messageId: 'm' });
      await store.savePushConfig(t.id, { id: 'x', url: 'https://x.example.com' });
      await store.close();
      const again = await reopen();
      expect(await again.getTask(t.id)).toEqual(t);
      expect(await again.findTaskIdByMessage('s', 'm')).toBe(t.id);
      expect(await again.listPushConfigs(t.id)).toHaveLength(1);
      await again.close();
    });
  });
}
