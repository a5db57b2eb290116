/**
 * Crash and restart on the SQLite store: the real CLI is killed with SIGKILL and started again
 * on the same database. A task paused in input-required continues; a task killed mid-work comes
 * back failed with a clear status message; completed tasks are intact.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, eventually, userMessage } from '../support/a2a.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { tempDir } from '../support/server.js';

describe('restart after SIGKILL (SQLite)', () => {
  const temp = tempDir();
  const db = join(temp.dir, 'tasks.db');
  const running: ServerProcess[] = [];
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) await p.kill('SIGKILL');
    temp.cleanup();
  });

  it('paused tasks continue, interrupted work fails, finished work is intact', async () => {
    const first = await spawnServer(['examples/scenario-agent.ts', '--store', `sqlite:${db}`]);
    running.push(first);
    const a = client(first.url, 'jsonrpc');
    const done = await a.send({ message: userMessage('echo kept') });
    expect(done.result.status.state).toBe('completed');
    const paused = await a.send({ message: userMessage('ask which one?') });
    expect(paused.result.status.state).toBe('input-required');
    const slow = await a.send({ message: userMessage('slow 60000'), configuration: { blocking: false } });
    // Wait until the running task's progress is in the database (coalesced writes).
    await eventually(async () => {
      const page = await a.list({ status: 'working' });
      return page.result.tasks.some((t: { id: string }) => t.id === slow.result.id) ? true : undefined;
    });

    await first.kill('SIGKILL');

    const second = await spawnServer(['examples/scenario-agent.ts', '--store', `sqlite:${db}`]);
    running.push(second);
    const b = client(second.url, 'rest');
    const continued = await b.send({ message: userMessage('the blue one', { taskId: paused.result.id }) });
    expect(continued.status).toBe(200);
    expect(continued.result.id).toBe(paused.result.id);
    expect(continued.result.status.state).toBe('completed');
    expect(continued.result.artifacts[0].parts[0].text).toBe('got: the blue one');

    const failed = await b.get(slow.result.id);
    expect(failed.result.status.state).toBe('failed');
    expect(failed.result.status.message.parts[0].text).toMatch(/server stopped while this task was running/);
    expect(failed.result.metadata.stateTransitions.at(-1).state).toBe('failed');

    const kept = await b.get(done.result.id);
    expect(kept.result).toEqual(done.result);
    await second.kill('SIGTERM');
  });
});
