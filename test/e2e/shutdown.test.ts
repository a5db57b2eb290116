/**
 * Graceful shutdown of the real CLI (SIGTERM/SIGINT): running turns get SERVICE_SHUTDOWN_GRACE
 * to finish, then are canceled; every task ends stored terminal (or paused); open streams get
 * their last event with `final: true`; blocking sends in flight answer with the task as stored;
 * new work during the drain is 503; a second signal exits at once; `npm start` passes the
 * signal to the server.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { client, eventually, userMessage, type Json } from '../support/a2a.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { parseResponses, rawRequest } from '../support/raw-http.js';
import { tempDir, TEST_FRONT_END } from '../support/server.js';
import { openSse } from '../support/sse.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('graceful shutdown', () => {
  const temp = tempDir();
  const running: ServerProcess[] = [];
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) await p.kill('SIGKILL');
    temp.cleanup();
  });
  const serve = async (db: string, env: Record<string, string> = {}): Promise<ServerProcess> => {
    const proc = await spawnServer(['examples/scenario-agent.ts', '--store', `sqlite:${join(temp.dir, db)}`], env);
    running.push(proc);
    return proc;
  };

  it('a turn that finishes within the grace is stored completed, and its blocking send answers', async () => {
    const proc = await serve('finish.db');
    const a2a = client(proc.url, 'rest');
    const pending = a2a.send({ message: userMessage('slow 1500') });
    const stream = await openSse(`${proc.url}/v1/message:stream`, { body: { message: userMessage('slow 1200') } });
    await new Promise((r) => setTimeout(r, 300));
    const exited = proc.kill('SIGTERM');
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(answer.result.status.state).toBe('completed');
    const events = await stream.events;
    expect(events.at(-1)?.data).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(await exited).toBe(0);

    const again = await serve('finish.db');
    const stored = await client(again.url, 'rest').get(answer.result.id);
    expect(stored.result.status.state).toBe('completed');
    expect(stored.result).toEqual(answer.result);
    expect((await client(again.url, 'rest').get(events[0]?.data.id)).result.status.state).toBe('completed');
    await again.kill('SIGTERM');
  });

  it('a handler that ignores the cancel is ended canceled after the grace; streams and blocking sends get that end', async () => {
    const proc = await serve('stubborn.db', { SERVICE_SHUTDOWN_GRACE: '1' });
    const pending = client(proc.url, 'jsonrpc').send({ message: userMessage('stubborn 30000') });
    const stream = await openSse(`${proc.url}/v1/message:stream`, { body: { message: userMessage('stubborn 30000') } });
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const exited = proc.kill('SIGTERM');
    const answer = await pending;
    expect(answer.result.status.state).toBe('canceled');
    expect(answer.result.status.message.parts[0].text).toMatch(/server stopped/);
    const events = await stream.events;
    const last: Json = events.at(-1)?.data;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'canceled' } });
    expect(last.status.message.parts[0].text).toMatch(/server stopped/);
    expect(await exited).toBe(0);
    // The grace (1 s) and the wait for canceled handlers (1 s), not the agent's 30 s.
    expect(Date.now() - started).toBeLessThan(8000);

    const again = await serve('stubborn.db');
    for (const id of [answer.result.id, events[0]?.data.id]) {
      const stored = (await client(again.url, 'rest').get(id)).result;
      expect(stored.status.state).toBe('canceled');
      expect(stored.metadata.stateTransitions.at(-1).state).toBe('canceled');
    }
    await again.kill('SIGTERM');
  });

  it('during the drain, new tasks are refused with 503 on open connections (uWS) or those close (node:http)', async () => {
    const proc = await serve('drain.db', { SERVICE_SHUTDOWN_GRACE: '3' });
    const { hostname, port } = new URL(proc.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((r) => socket.once('connect', r));
    let received = '';
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
    });
    const pending = client(proc.url, 'rest').send({ message: userMessage('stubborn 30000') });
    await new Promise((r) => setTimeout(r, 300));
    const exited = proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    if (TEST_FRONT_END === 'node' || TEST_FRONT_END === 'node-http') {
      // node:http closes idle keep-alive connections when it stops listening: a client then
      // reconnects, is refused, and goes to another replica.
      await eventually(() => (socket.destroyed || socket.readableEnded ? true : undefined));
    } else {
      const body = JSON.stringify({ message: userMessage('echo too late') });
      socket.write(
        rawRequest(
          'POST',
          '/v1/message:send',
          [
            ['Content-Type', 'application/json'],
            ['Content-Length', String(body.length)],
          ],
          body,
        ),
      );
      await eventually(() => (received.includes('\r\n\r\n{') ? true : undefined));
      socket.write(rawRequest('GET', '/v1/health/ready'));
      await eventually(() => (parseResponses(received).length === 2 ? true : undefined));
      const [refused, ready] = parseResponses(received);
      expect(refused?.status).toBe(503);
      expect(JSON.parse(refused?.body ?? '').message).toMatch(/shutting down/);
      expect(ready?.status).toBe(503);
      expect(JSON.parse(ready?.body ?? '').checks.server).toBe('draining');
    }
    socket.destroy();
    expect((await pending).result.status.state).toBe('canceled');
    expect(await exited).toBe(0);
  });

  it('a second signal exits at once', async () => {
    const proc = await serve('twice.db', { SERVICE_SHUTDOWN_GRACE: '30' });
    void client(proc.url, 'rest')
      .send({ message: userMessage('stubborn 30000') })
      .catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    proc.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    expect(await proc.kill('SIGINT')).toBe(1);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('npm start passes SIGTERM to the server it runs', async () => {
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: { ...process.env, SERVICE_PORT: '0', SERVICE_STORE: 'memory', SERVICE_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    try {
      const url = await eventually(() => /listening on (http:\/\/\S+)/.exec(out)?.[1], 20_000);
      expect((await fetch(`${url}/v1/health`)).status).toBe(200);
      npm.kill('SIGTERM');
      await eventually(() => (out.includes('shutting down') ? true : undefined), 5000);
      await eventually(
        () =>
          fetch(`${url}/v1/health`).then(
            () => undefined,
            () => true,
          ),
        5000,
      );
    } finally {
      npm.kill('SIGKILL');
    }
  });
});
