/**
 * One owner per port and per SQLite file. A second server on a taken port used to start "fine"
 * and split the traffic (uWS listens with port reuse); a second process on the same SQLite file
 * used to mark the first one's running tasks failed. Both now refuse to start, saying why.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, userMessage } from '../support/a2a.js';
import { runCli } from '../support/process.js';
import { startServer, tempDir } from '../support/server.js';

/** The CLI serving the scenario agent, run to its end (it is expected to refuse to start). */
const serveCli = (args: string[]) => runCli(['serve', 'examples/scenario-agent.ts', ...args], { SERVICE_LOG_LEVEL: 'warn' });

describe('one owner per port', () => {
  it('a second server on a taken port fails to start, naming the port; the first keeps all the traffic', async () => {
    const first = await startServer();
    try {
      await expect(startServer({ port: first.port })).rejects.toThrow(`cannot listen on 127.0.0.1:${first.port}`);
      const cli = await serveCli(['--store', 'memory', '--host', '127.0.0.1', '--port', String(first.port)]);
      expect(cli.code).toBe(1);
      expect(cli.stderr).toContain(`127.0.0.1:${first.port}`);
      expect(cli.stderr).toMatch(/in use/);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => client(first.url, 'jsonrpc').send({ message: userMessage('echo') })),
      );
      for (const a of answers) expect(a.result.status.state).toBe('completed');
      expect((await client(first.url, 'rest').list()).result.totalSize).toBe(10);
    } finally {
      await first.stop();
    }
  });
});

describe('one owner per SQLite file', () => {
  const temp = tempDir();
  afterAll(() => temp.cleanup());

  it("a second process on the same file fails to start, says why, and leaves the first one's tasks alone", async () => {
    const db = join(temp.dir, 'owned.db');
    const first = await startServer({ storeKind: 'sqlite', sqlitePath: db });
    try {
      const running = await client(first.url, 'jsonrpc').send({ message: userMessage('slow 1500'), configuration: { blocking: false } });
      await expect(startServer({ storeKind: 'sqlite', sqlitePath: db })).rejects.toThrow(/in use by another process/);
      const cli = await serveCli(['--store', `sqlite:${db}`, '--host', '127.0.0.1', '--port', '0']);
      expect(cli.code).toBe(1);
      expect(cli.stderr).toContain(db);
      expect(cli.stderr).toMatch(/PostgreSQL and Redis/);
      // Nobody swept the running task: it finishes as it would have.
      const done = await client(first.url, 'jsonrpc').send({ message: userMessage('echo after') });
      expect(done.result.status.state).toBe('completed');
      const task = await client(first.url, 'rest').get(running.result.id);
      expect(['working', 'completed']).toContain(task.result.status.state);
    } finally {
      await first.close();
    }
    // Once the owner has stopped, the file can be opened again.
    const next = await startServer({ storeKind: 'sqlite', sqlitePath: db });
    await next.close();
  });
});
