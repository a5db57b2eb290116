/**
 * Streamed output survives a crash (issue 32, item 5): the artifact chunks a client has seen
 * reach the store in coalesced writes, at most one window (SERVICE_PROGRESS_FLUSH_INTERVAL)
 * after they went out, so a kill -9 loses only what the last window held. The real CLI is killed
 * with SIGKILL while the scenario agent streams chunks 10 ms apart to two streams (JSON-RPC and
 * REST) and to a poller of a non-blocking send; after the restart each task holds, in order,
 * every chunk its client saw before the last window.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { client, eventually, userMessage, type Json } from '../support/a2a.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { tempDir } from '../support/server.js';
import { PG_URL, postgresMissing } from '../support/services.js';
import { openSse, type SseStream } from '../support/sse.js';

const NO_PG = await postgresMissing('kill -9 streaming suite (PostgreSQL case)');

const WINDOW_S = 0.25;
/** What a loaded machine may add to a window: a late timer, a write queued behind others, the client's own lag. */
const SLACK_MS = 1000;
/** Chunks each client sees before the kill: the stream runs well past one window. */
const SEEN_BEFORE_KILL = 200;
/** The agent keeps going far longer than the test (10 ms per chunk). */
const STREAM = 'stream 5000';
const RESTART_REASON = /server stopped while this task was running/;

/** One client's view of one task: when it saw how many chunks. */
interface Follower {
  label: string;
  taskId: Promise<string>;
  /** [time seen, chunks seen by then], in order. */
  readonly seen: [number, number][];
  stop(): void;
}

const seenCount = (f: Follower): number => f.seen.at(-1)?.[1] ?? 0;
const seenBy = (f: Follower, at: number): number => f.seen.filter(([t]) => t <= at).at(-1)?.[1] ?? 0;

function streamFollower(url: string, transport: 'jsonrpc' | 'rest'): Follower {
  const seen: [number, number][] = [];
  let stream: SseStream | undefined;
  let gotId: (id: string) => void = () => undefined;
  const taskId = new Promise<string>((resolve) => (gotId = resolve));
  const body = { message: userMessage(STREAM) };
  const onEvent = (e: { data: Json }): void => {
    const event = transport === 'jsonrpc' ? e.data.result : e.data;
    if (event.kind === 'task') gotId(event.id);
    if (event.kind === 'artifact-update') seen.push([Date.now(), seenCount(follower) + event.artifact.parts.length]);
  };
  const opened =
    transport === 'jsonrpc'
      ? openSse(`${url}/`, { body: { jsonrpc: '2.0', id: 1, method: 'message/stream', params: body }, onEvent })
      : openSse(`${url}/v1/message:stream`, { body, onEvent });
  void opened.then((s) => {
    stream = s;
    // The stream breaks when the process dies: that is the point, not a failure.
    s.events.catch(() => undefined);
  });
  const follower: Follower = { label: `stream over ${transport}`, taskId, seen, stop: () => stream?.abort() };
  return follower;
}

/** A non-blocking send, then tasks/get every 50 ms: what a polling client saw of the artifact. */
function pollingFollower(url: string): Follower {
  const seen: [number, number][] = [];
  let stopped = false;
  const a2a = client(url, 'rest');
  const taskId = a2a.send({ message: userMessage(STREAM), configuration: { blocking: false } }).then((r) => r.result.id as string);
  void taskId.then(async (id) => {
    while (!stopped) {
      const read = await a2a.get(id, 0).catch(() => undefined);
      if (stopped || read?.status !== 200) return;
      const parts = (read.result.artifacts ?? []).find((a: Json) => a.artifactId === 'stream')?.parts.length ?? 0;
      seen.push([Date.now(), parts]);
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  return { label: 'non-blocking send, polled', taskId, seen, stop: () => (stopped = true) };
}

/** Streams and polls on `store`, kills the process once every client saw enough, restarts and reads the tasks back. */
async function crashWhileStreaming(store: string, running: ServerProcess[]): Promise<void> {
  const serve = async (): Promise<ServerProcess> => {
    const proc = await spawnServer(['examples/scenario-agent.ts', '--store', store], { SERVICE_PROGRESS_FLUSH_INTERVAL: String(WINDOW_S) });
    running.push(proc);
    return proc;
  };
  const proc = await serve();
  const followers = [streamFollower(proc.url, 'jsonrpc'), streamFollower(proc.url, 'rest'), pollingFollower(proc.url)];
  await eventually(() => (followers.every((f) => seenCount(f) >= SEEN_BEFORE_KILL) ? true : undefined), 15_000, 20);
  const killedAt = Date.now();
  await proc.kill('SIGKILL');
  for (const f of followers) f.stop();

  const again = await serve();
  const a2a = client(again.url, 'rest');
  for (const f of followers) {
    const id = await f.taskId;
    const task = (await a2a.get(id)).result;
    expect(task.status.state, f.label).toBe('failed');
    expect(task.status.message.parts[0].text).toMatch(RESTART_REASON);
    const texts: string[] = (task.artifacts ?? []).find((a: Json) => a.artifactId === 'stream')?.parts.map((p: Json) => p.text) ?? [];
    // The chunks kept are the stream's first ones, in order, none twice.
    expect(texts, f.label).toEqual(texts.map((_, i) => `chunk ${i + 1}\n`));
    // Every chunk the client saw before the last window (and the slack a loaded machine needs).
    const owed = seenBy(f, killedAt - WINDOW_S * 1000 - SLACK_MS);
    expect(texts.length, `${f.label}: kept ${texts.length} of ${seenCount(f)} seen`).toBeGreaterThanOrEqual(owed);
  }
  await again.kill('SIGTERM');
}

describe('streamed output survives kill -9', () => {
  const running: ServerProcess[] = [];
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) await p.kill('SIGKILL');
  });

  it('on SQLite, each task keeps every chunk its client saw but the last window', async () => {
    const temp = tempDir();
    try {
      await crashWhileStreaming(`sqlite:${join(temp.dir, 'tasks.db')}`, running);
    } finally {
      temp.cleanup();
    }
  });

  it.skipIf(NO_PG)('on PostgreSQL, likewise', async () => {
    const schema = `a2actor_crash_${process.pid}_${Date.now() % 100000}`;
    try {
      await crashWhileStreaming(`${PG_URL}?schema=${schema}`, running);
    } finally {
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });
});
