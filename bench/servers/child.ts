/**
 * The life of a bench server process, shared by every server entry: announce the URL to the
 * orchestrator over IPC, answer "settle" (collect garbage, report memory) for the memory
 * workload, and stop on "stop", SIGTERM or when the orchestrator goes away, so no server
 * outlives a run.
 */
import type { ServerCommand, ServerMessage } from '../lib/types.js';

export interface RunningServer {
  url: string;
  /** What is being served, for the report (e.g. the store). */
  description: string;
  close(): Promise<void> | void;
}

const send = (message: ServerMessage): void => {
  process.send?.(message);
};

/** Garbage collection is exposed by `--expose-gc`, which the orchestrator passes to every server. */
const collectGarbage = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc;
  // Twice: the first pass runs finalizers that free more on the second.
  gc?.();
  gc?.();
};

export async function serve(start: () => Promise<RunningServer>): Promise<void> {
  if (!process.send) throw new Error('a bench server runs as a child of bench/run.ts (it needs the IPC channel)');
  const server = await start();
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    // Bounded: a server that cannot close in 5 s is left behind by exiting anyway.
    const forced = setTimeout(() => process.exit(0), 5_000);
    forced.unref();
    try {
      await server.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('message', (raw: ServerCommand) => {
    if (raw.type === 'stop') void stop();
    if (raw.type === 'memory') {
      const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
      send({ type: 'memory', usage: { rss, heapTotal, heapUsed, external, arrayBuffers } });
    }
    if (raw.type === 'settle') {
      collectGarbage();
      // A short pause lets the allocator hand pages back before RSS is read.
      setTimeout(() => {
        collectGarbage();
        const mem = process.memoryUsage();
        send({ type: 'settled', rssBytes: mem.rss, heapUsedBytes: mem.heapUsed });
      }, 250);
    }
  });
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('disconnect', () => void stop());
  send({ type: 'ready', url: server.url, description: server.description });
}
