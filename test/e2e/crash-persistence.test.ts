/**
 * A crash loses no task a client has seen (SQLite, the real CLI killed with SIGKILL): a
 * streamed task whose id came in the stream's first event, and a non-blocking send's task, are
 * in the store and come back `failed` with the restart reason; under 200 concurrent blocking
 * sends, every task that was answered is there, exactly as answered.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, TRANSPORTS, userMessage, type Json } from '../support/a2a.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { tempDir } from '../support/server.js';
import { openSse, type SseStream } from '../support/sse.js';

const RESTART_REASON = /server stopped while this task was running/;

describe('crash and restart (SQLite)', () => {
  const temp = tempDir();
  const running: ServerProcess[] = [];
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) await p.kill('SIGKILL');
    temp.cleanup();
  });
  const serve = async (db: string): Promise<ServerProcess> => {
    const proc = await spawnServer(['examples/scenario-agent.ts', '--store', `sqlite:${join(temp.dir, db)}`]);
    running.push(proc);
    return proc;
  };

  const expectFailedByRestart = (task: Json): void => {
    expect(task.status.state).toBe('failed');
    expect(task.status.message.parts[0].text).toMatch(RESTART_REASON);
    expect(task.metadata.stateTransitions.at(-1).state).toBe('failed');
  };

  it('a streamed task whose id a client saw in the first event survives kill -9', async () => {
    const proc = await serve('streams.db');
    const streams: SseStream[] = [];
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const transport = TRANSPORTS[i % 2];
        const first = new Promise<string>((resolve) => {
          const onEvent = (e: { data: Json }) => resolve(transport === 'jsonrpc' ? e.data.result.id : e.data.id);
          const body = { message: userMessage('slow 60000') };
          void (
            transport === 'jsonrpc'
              ? openSse(`${proc.url}/`, { body: { jsonrpc: '2.0', id: i, method: 'message/stream', params: body }, onEvent })
              : openSse(`${proc.url}/v1/message:stream`, { body, onEvent })
          ).then((s) => {
            // The stream breaks when the process dies: that is the point, not a failure.
            s.events.catch(() => undefined);
            streams.push(s);
          });
        });
        ids.push(await first);
      }),
    );
    // Every client has its task id: the process dies now, before any turn ends.
    await proc.kill('SIGKILL');
    for (const s of streams) s.abort();

    const again = await serve('streams.db');
    const a2a = client(again.url, 'rest');
    for (const id of ids) {
      const read = await a2a.get(id);
      expect(read.status, id).toBe(200);
      expectFailedByRestart(read.result);
    }
    await again.kill('SIGTERM');
  });

  it("a non-blocking send's task survives a kill -9 right after the answer", async () => {
    const proc = await serve('nonblocking.db');
    const sent = await client(proc.url, 'jsonrpc').send({ message: userMessage('slow 60000'), configuration: { blocking: false } });
    expect(sent.result.status.state).not.toBe('failed');
    await proc.kill('SIGKILL');
    const again = await serve('nonblocking.db');
    expectFailedByRestart((await client(again.url, 'rest').get(sent.result.id)).result);
    await again.kill('SIGTERM');
  });

  it('kill -9 under 200 concurrent blocking sends loses no answered task', async () => {
    const proc = await serve('load.db');
    let answered = 0;
    let killed: Promise<unknown> | undefined;
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        try {
          const r = await client(proc.url, TRANSPORTS[i % 2] as (typeof TRANSPORTS)[number]).send({ message: userMessage(`echo ${i}`) });
          if (r.status !== 200 || r.result?.status?.state !== 'completed') return undefined;
          // Kill once about half have been answered; later answers may still arrive or not.
          if (++answered === 100) killed = proc.kill('SIGKILL');
          return r.result as Json;
        } catch {
          return undefined; // the connection died: never acknowledged
        }
      }),
    );
    await killed;
    const acknowledged = answers.filter((a): a is Json => a !== undefined);
    expect(acknowledged.length).toBeGreaterThanOrEqual(100);

    const again = await serve('load.db');
    const a2a = client(again.url, 'rest');
    for (const task of acknowledged) expect((await a2a.get(task.id)).result).toEqual(task);
    await again.kill('SIGTERM');
  });
});
