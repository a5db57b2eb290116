/**
 * A micro-benchmark (bench/micro/) run from the same tsc build as our server, in a process of
 * its own: it prints one JSON line, which this returns parsed. The child bounds its own work;
 * the kill timer only guards against a hung process.
 */
import { execFile } from 'node:child_process';
import type { ServerBuild } from './build.js';
import { ROOT } from './children.js';

export function runBuiltMicro(build: ServerBuild, source: string, args: readonly string[], killAfterMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [build.file(source), ...args],
      { cwd: ROOT, timeout: killAfterMs, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        if (err) {
          reject(new Error(`${source} ${args.join(' ')} failed: ${stderr.trim().slice(0, 500) || err.message}`));
          return;
        }
        try {
          resolve(JSON.parse(stdout.trim()));
        } catch {
          reject(new Error(`${source}: unreadable output ${JSON.stringify(stdout.slice(0, 200))}`));
        }
      },
    );
  });
}
