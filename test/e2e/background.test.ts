/**
 * A handler that continues in the background (`ctx.continueInBackground()`), as the A2A
 * conformance kit's reference agent does: its turn ends with the task `working`, so a blocking
 * send returns that task, a stream closes, and the task rests until the work it left running
 * ends it through the same context, or a client cancels it. Real server, real sockets, both
 * transports (and both front ends: vitest.config.ts runs this file on node:http too).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, TRANSPORTS, userMessage, type Json } from '../support/a2a.js';
import { startServer, STORE_KINDS, tempDir, type TestServer } from '../support/server.js';
import { streamMessage, subscribe, summarize } from '../support/streams.js';
import backgroundAgent, { backgroundWork, type BackgroundWork } from '../support/agents/background-agent.js';

const artifactIds = (task: Json): string[] => (task.artifacts ?? []).map((a: Json) => a.artifactId);

/** The work the handler left running for the task (its handler has run once the turn ended). */
const workOf = (taskId: string): BackgroundWork => {
  const work = backgroundWork(taskId);
  if (!work) throw new Error(`no background work for ${taskId}`);
  return work;
};

/** The server's counters once no task is live: nothing a resting task held is left. */
const idle = (server: TestServer) =>
  eventually(() => {
    const s = server.stats();
    return s.liveTasks === 0 && s.runningActors === 0 && s.pendingFlushes === 0 && s.subscribers === 0 ? s : undefined;
  });

describe('a task whose handler continues in the background', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ storeKind: 'memory', agent: backgroundAgent });
  });
  afterAll(() => server.stop());

  describe.each(TRANSPORTS)('over %s', (transport) => {
    it('a blocking send returns the task working, with its artifact, and stored so', async () => {
      const a2a = client(server.url, transport);
      const sent = await a2a.send({ message: userMessage('blocking') });
      expect(sent.status).toBe(200);
      const task = sent.result;
      expect(task.status.state).toBe('working');
      expect(artifactIds(task)).toEqual(['started']);
      expect(task.artifacts[0].parts[0].text).toBe('started: blocking');
      // Written when the turn ended: a reader of the store sees the same working task.
      const stored = await server.store.getTask(task.id);
      expect(stored?.status.state).toBe('working');
      expect(artifactIds(stored)).toEqual(['started']);
      expect((await a2a.get(task.id)).result.status.state).toBe('working');
      await a2a.cancel(task.id);
    });

    it('a non-blocking send, then get: the task stays working with the artifact', async () => {
      const a2a = client(server.url, transport);
      const sent = await a2a.send({ message: userMessage('non-blocking'), configuration: { blocking: false } });
      const id = sent.result.id;
      const got = await eventually(async () => {
        const r = await a2a.get(id);
        return artifactIds(r.result).includes('started') ? r.result : undefined;
      });
      expect(got.status.state).toBe('working');
      await new Promise((r) => setTimeout(r, 50));
      expect((await a2a.get(id)).result.status.state).toBe('working');
      await a2a.cancel(id);
    });

    it('message/stream closes when the turn ends, its last event a working status marked final', async () => {
      const opened = await streamMessage(server.url, transport, { message: userMessage('streamed') });
      const items = await opened.items;
      expect(items.map((i) => summarize(i.data))).toEqual([
        'task:submitted',
        'status:working',
        'artifact:started:new',
        'status:working+msg',
        'status:working+msg:final',
      ]);
      const id = items[0]?.data.id;
      expect(items.at(-1)?.data.status.message.parts[0].text).toBe('handed over to the background');
      const a2a = client(server.url, transport);
      expect((await a2a.get(id)).result.status.state).toBe('working');
      // Streamed tasks are stored at the turn's end too.
      expect((await server.store.getTask(id))?.status.state).toBe('working');
      await a2a.cancel(id);
    });

    it('a resubscribe to the resting task stays open and gets the completion the background work makes', async () => {
      const a2a = client(server.url, transport);
      const id = (await a2a.send({ message: userMessage('resubscribed') })).result.id;
      const seen: string[] = [];
      const resubscribed = await subscribe(server.url, transport, id, { onItem: (item) => seen.push(summarize(item.data)) });
      expect(resubscribed.status).toBe(200);
      // The snapshot arrives and the stream stays open: the task has not ended.
      await eventually(() => (seen.length > 0 ? true : undefined));
      await new Promise((r) => setTimeout(r, 50));
      expect(seen).toEqual(['task:working']);

      const { ctx } = workOf(id);
      ctx.status('finishing');
      ctx.artifact({ artifactId: 'result', parts: [{ kind: 'text', text: 'from the background' }] });
      ctx.complete('done in the background');
      const items = await resubscribed.items;
      expect(items.map((i) => summarize(i.data))).toEqual([
        'task:working',
        'status:working+msg',
        'artifact:result:new',
        'artifact:final-answer:new:last',
        'status:completed:final',
      ]);
      // The end is stored: once the task has left memory, get reads it from the store.
      await idle(server);
      const got = (await a2a.get(id)).result;
      expect(got.status.state).toBe('completed');
      expect(artifactIds(got)).toEqual(['started', 'result', 'final-answer']);
      expect((await server.store.getTask(id))?.status.state).toBe('completed');
    });

    it('a cancel ends the resting task canceled and fires the signal the background work watches', async () => {
      const a2a = client(server.url, transport);
      const id = (await a2a.send({ message: userMessage('canceled') })).result.id;
      const work = workOf(id);
      const canceled = await a2a.cancel(id);
      expect(canceled.status).toBe(200);
      expect(canceled.result.status.state).toBe('canceled');
      await work.aborted;
      expect(work.ctx.signal.aborted).toBe(true);
      // The work's calls are ignored from now on.
      work.ctx.complete('too late');
      await idle(server);
      expect((await a2a.get(id)).result.status.state).toBe('canceled');
      expect((await server.store.getTask(id))?.status.state).toBe('canceled');
    });
  });

  it('progress the background work reports is stored, then its completion', async () => {
    const progress = await startServer({ storeKind: 'memory', agent: backgroundAgent, progressFlushInterval: 0.02 });
    try {
      const a2a = client(progress.url, 'jsonrpc');
      const id = (await a2a.send({ message: userMessage('progress') })).result.id;
      const { ctx } = workOf(id);
      ctx.artifact({ artifactId: 'partial', parts: [{ kind: 'text', text: 'half' }] });
      const stored = await eventually(async () => {
        const task = await progress.store.getTask(id);
        return task && artifactIds(task).includes('partial') ? task : undefined;
      });
      expect(stored.status.state).toBe('working');
      ctx.complete();
      await idle(progress);
      expect((await progress.store.getTask(id))?.status.state).toBe('completed');
    } finally {
      await progress.stop();
    }
  });

  it('a follow-up message on the resting task starts a new turn; the work left before is told to stop', async () => {
    const a2a = client(server.url, 'jsonrpc');
    const id = (await a2a.send({ message: userMessage('followed up') })).result.id;
    const first = workOf(id);
    const followUp = await a2a.send({ message: userMessage('more', { taskId: id }) });
    expect(followUp.status).toBe(200);
    const task = followUp.result;
    expect(task.id).toBe(id);
    expect(task.status.state).toBe('working');
    expect(task.artifacts[0].parts[0].text).toBe('started: more');
    expect(task.history.filter((m: Json) => m.role === 'user').map((m: Json) => m.parts[0].text)).toEqual(['followed up', 'more']);
    await first.aborted;
    const second = workOf(id);
    expect(second).not.toBe(first);
    // The set-aside work's calls are not taken; the new turn's work ends the task.
    first.ctx.complete('too late');
    expect((await a2a.get(id)).result.status.state).toBe('working');
    second.ctx.complete('done');
    await idle(server);
    expect((await server.store.getTask(id))?.status.state).toBe('completed');
  });

  it('a handler that throws after continuing in the background still fails the task', async () => {
    const sent = await client(server.url, 'jsonrpc').send({ message: userMessage('throw') });
    expect(sent.result.status.state).toBe('failed');
    await idle(server);
  });

  // A restart needs a store that outlives the server: SQLite, where its addon loads.
  it.skipIf(!STORE_KINDS.includes('sqlite'))(
    'a graceful shutdown cancels resting tasks and stores them canceled; a restart finds them so',
    async () => {
      const temp = tempDir();
      const sqlitePath = `${temp.dir}/tasks.db`;
      try {
        const first = await startServer({ storeKind: 'sqlite', sqlitePath, agent: backgroundAgent });
        const id = (await client(first.url, 'jsonrpc').send({ message: userMessage('shut down') })).result.id;
        const work = workOf(id);
        await first.shutdown({ graceMs: 50 });
        await work.aborted;
        const again = await startServer({ storeKind: 'sqlite', sqlitePath, agent: backgroundAgent });
        try {
          const task = (await client(again.url, 'jsonrpc').get(id)).result;
          expect(task.status.state).toBe('canceled');
          expect(artifactIds(task)).toEqual(['started']);
        } finally {
          await again.stop();
        }
      } finally {
        temp.cleanup();
      }
    },
  );

  it('closing the server stops the resting actors and fires their signals', async () => {
    const other = await startServer({ storeKind: 'memory', agent: backgroundAgent });
    const id = (await client(other.url, 'jsonrpc').send({ message: userMessage('closed') })).result.id;
    expect(other.stats()).toMatchObject({ liveTasks: 1, runningActors: 1 });
    await other.stop();
    await workOf(id).aborted;
    expect(other.stats()).toMatchObject({ liveTasks: 0, runningActors: 0, pendingFlushes: 0 });
  });
});
