/**
 * Our server runs in the bench the way production runs it: compiled by the TypeScript compiler
 * and started with plain node. tsx (esbuild) would wrap every function of ours in a keep-names
 * helper (`__name`) that costs CPU on the hot path, while the peer runs the precompiled JS of
 * its package. Each run compiles into its own directory under bench/.build/: inside the project,
 * so node_modules resolve from the compiled files, and apart from any other run going on at the
 * same time, so no server ever loads a file another run is rewriting.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './children.js';

export const BUILD_ROOT = join(ROOT, 'bench', '.build');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** tsconfig.build.json plus the bench's server entry, echo agent and task-actor floor. */
const TSCONFIG = join(ROOT, 'bench', 'tsconfig.build.json');
/** About 5 s on two idle cores; generous for a loaded machine, but bounded. */
const BUILD_TIMEOUT_MS = 180_000;

export interface ServerBuild {
  /** The output directory: it mirrors the project tree (src/, machines/, bench/). */
  dir: string;
  /** Wall time of the compile. */
  seconds: number;
  /** The compiled file of a TypeScript source given relative to the project root. */
  file(source: string): string;
  remove(): void;
}

/** Compiles the project and the bench's server entry with tsc; rejects with its diagnostics. */
export async function buildServer(): Promise<ServerBuild> {
  mkdirSync(BUILD_ROOT, { recursive: true });
  const dir = mkdtempSync(join(BUILD_ROOT, 'run-'));
  const started = Date.now();
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [TSC, '-p', TSCONFIG, '--outDir', dir],
        { cwd: ROOT, timeout: BUILD_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => {
          // tsc prints its diagnostics on stdout. A checkout that does not type-check is not
          // what production would run, so the bench refuses it rather than measuring it.
          if (err)
            reject(
              new Error(
                `tsc -p ${relative(ROOT, TSCONFIG)} failed (${err.killed ? 'timed out' : `exit ${String(err.code)}`}):\n${`${stdout}${stderr}`.trim().slice(0, 4000)}`,
              ),
            );
          else resolve();
        },
      );
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    dir,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    file: (source) => join(dir, source.replace(/\.ts$/, '.js')),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
