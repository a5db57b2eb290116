/**
 * A library keeps to itself: a plain Node process that imports createServer, serves a message and
 * a stream with it and closes it, has the same V8 flags, process listeners, undici global
 * dispatcher and globals as before (test/support/embedder.ts watches them). Only an embedder who
 * asks (`tuneHeap: true`, what `a2actor serve` does) gets the V8 flags set.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface EmbedderReport {
  served: { frontEnd: string; send: { status: number; completed: boolean }; stream: { status: number; events: number } };
  reported: { heapGrowthPercent: number | 'node-flag'; pretenuring: string };
  flagsSet: string[];
  listenersAdded: Record<string, number>;
  dispatcherReplaced: boolean;
  globalsAdded: string[];
  stackTraceLimitChanged: boolean;
}

/**
 * zod's own registry: zod keeps it on globalThis on purpose so that every copy of zod in a process
 * shares it, and an embedder that imports zod gets it anyway.
 */
const ZOD_GLOBALS = ['__zod_globalConfig', '__zod_globalRegistry'];

async function embed(args: string[], frontEnd?: string): Promise<EmbedderReport> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/support/embedder.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...(frontEnd ? { TEST_FRONT_END: frontEnd } : {}) },
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as EmbedderReport;
}

describe('a server embedded in a plain Node process', () => {
  for (const frontEnd of ['uws', 'node']) {
    it(`on the ${frontEnd} front end, sets no V8 flag, adds no process listener and replaces nothing global`, async () => {
      const report = await embed([], frontEnd);
      expect(report.served).toEqual({
        frontEnd,
        send: { status: 200, completed: true },
        stream: { status: 200, events: expect.any(Number) },
      });
      expect(report.served.stream.events).toBeGreaterThan(1);
      expect(report.flagsSet).toEqual([]);
      expect(report.listenersAdded).toEqual({});
      expect(report.dispatcherReplaced).toBe(false);
      expect(report.globalsAdded.filter((name) => !ZOD_GLOBALS.includes(name))).toEqual([]);
      expect(report.stackTraceLimitChanged).toBe(false);
      // What it reports is what the process runs with: V8's own.
      expect(report.reported).toEqual({ heapGrowthPercent: 0, pretenuring: 'v8' });
    });
  }

  it('with a SQLite store (where `auto` would tune), still leaves V8 alone unless tuneHeap is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2actor-embed-'));
    try {
      const report = await embed([`sqlite:${join(dir, 'tasks.db')}`]);
      expect(report.served.send).toEqual({ status: 200, completed: true });
      expect(report.flagsSet).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('asked with tuneHeap, sets the heap growth and pretenuring flags, and reports them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2actor-embed-'));
    try {
      const report = await embed(['tune', `sqlite:${join(dir, 'tasks.db')}`]);
      expect(report.served.send).toEqual({ status: 200, completed: true });
      expect(report.flagsSet).toEqual(['--heap-growing-percent=100', '--no-allocation-site-pretenuring']);
      expect(report.reported).toEqual({ heapGrowthPercent: 100, pretenuring: 'off' });
      // Still no listener and nothing global: the flags are all it asked for.
      expect(report.listenersAdded).toEqual({});
      expect(report.dispatcherReplaced).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
