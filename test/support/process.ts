/** Running the real CLI as a child process (for crash and restart tests). */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `a2actor serve <agent>` (from source, through tsx) on a free port; `nodeArgs` go to node first. */
export function spawnServer(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  return spawnCli([...nodeArgs, '--import', 'tsx', 'src/cli/main.ts'], args, env, timeoutMs);
}

/** Starts a built CLI (`dist/src/cli/main.js`) the way `npx a2actor` does; `nodeArgs` go before it. */
export function spawnBuiltServer(
  cliPath: string,
  args: string[],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  return spawnCli([...nodeArgs, cliPath], args, env, 20_000);
}

/** Runs the CLI's `serve` and waits for its "listening on" line. */
function spawnCli(entry: string[], args: string[], env: Record<string, string>, timeoutMs: number): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...entry, 'serve', ...args, '--port', '0', '--host', '127.0.0.1'], {
    cwd: ROOT,
    env: {
      ...process.env,
      SERVICE_LOG_LEVEL: 'warn',
      ...(process.env.TEST_FRONT_END ? { SERVICE_FRONT_END: process.env.TEST_FRONT_END } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${timeoutMs} ms\n${out}\n${err}`));
    }, timeoutMs);
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          child,
          exited,
          kill: (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening\n${out}\n${err}`));
    });
  });
}

/** Runs the CLI (from source) to its end: for commands that answer and exit, or refuse to start. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, SERVICE_LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
