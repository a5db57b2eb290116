/**
 * A PostgreSQL server of a test's own (initdb in a temporary directory, its own port on
 * 127.0.0.1), so a test can stop and restart it without touching the shared one that other test
 * files use. PostgreSQL refuses to run as root: it runs as the `postgres` system user.
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { freePort } from './ports.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

function binDir(): string {
  const versions = readdirSync('/usr/lib/postgresql').sort();
  const latest = versions[versions.length - 1];
  if (!latest) throw new Error('no PostgreSQL under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${latest}/bin`;
}

export interface PrivatePostgres {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'a2actor-pg-'));
  const { uid, gid } = await userIds('postgres');
  chownSync(dir, uid, gid);
  const data = join(dir, 'data');
  const as = (cmd: string, args: string[]) => run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { timeout: 60_000 });
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const pg = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: async () => void (await as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '30', 'start'])),
    stop: async () => void (await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop'])),
    destroy: async () => {
      await pg.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await pg.start();
  return pg;
}

async function userIds(name: string): Promise<{ uid: number; gid: number }> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}
