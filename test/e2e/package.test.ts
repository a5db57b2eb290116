/**
 * The package as a newcomer gets it: `npm pack`, installed from the registry's dependencies into
 * a fresh `npm init -y` project (CommonJS) and into a `"type": "module"` one; `npx a2actor serve`
 * serves a TypeScript, an ES-module and a CommonJS agent; `require('a2actor')` works; the project
 * `a2actor init` writes starts, answers and passes its own test.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, rpcCall, userMessage } from '../support/a2a.js';
import { tempDir } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const NPM = { env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } };

/** `npx a2actor serve <agent>` (or another command) in `dir`; answers one message, then is stopped. */
async function serveAndAsk(
  dir: string,
  agent: string,
  text: string,
  command = ['npx', '--no-install', 'a2actor', 'serve', agent],
): Promise<string> {
  const [program, ...args] = command as [string, ...string[]];
  const child = spawn(program, [...args, '--store', 'memory', '--port', '0'], {
    cwd: dir,
    env: { ...NPM.env, SERVICE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  try {
    const url = await eventually(() => /listening on (http:\/\/\S+)/.exec(out)?.[1], 30_000).catch(() => {
      throw new Error(`${agent} did not start:\n${out}`);
    });
    const answer = await rpcCall(url, 'message/send', { message: userMessage(text) });
    return answer.result.artifacts[0].parts[0].text;
  } finally {
    // npx runs the CLI in a child of its own: stop the whole group.
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

describe('the packed package in fresh projects', () => {
  const temp = tempDir('a2actor-pack-');
  const commonjs = join(temp.dir, 'cjs-project');
  const esm = join(temp.dir, 'esm-project');
  afterAll(() => temp.cleanup());

  beforeAll(async () => {
    await run('npm', ['pack', '--pack-destination', temp.dir, '--silent'], { cwd: ROOT, ...NPM });
    const tarball = readdirSync(temp.dir).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack made no tarball');
    mkdirSync(commonjs);
    await run('npm', ['init', '-y'], { cwd: commonjs, ...NPM });
    await run('npm', ['install', join(temp.dir, tarball)], { cwd: commonjs, ...NPM, maxBuffer: 16 * 1024 * 1024 });
    // The ES-module project shares the installed packages.
    mkdirSync(esm);
    writeFileSync(join(esm, 'package.json'), JSON.stringify({ name: 'esm-project', version: '1.0.0', type: 'module' }));
    symlinkSync(join(commonjs, 'node_modules'), join(esm, 'node_modules'));
  }, 600_000);

  it('serves a TypeScript agent with npx a2actor serve', async () => {
    writeFileSync(
      join(commonjs, 'agent.ts'),
      `import { defineAgent, type AgentContext } from 'a2actor';
export default defineAgent({
  card: { name: 'TS Agent', description: 'typed', version: '1.0.0', skills: [] },
  async handler(ctx: AgentContext): Promise<void> {
    const loud: string = ctx.text.toUpperCase();
    ctx.complete(\`ts: \${loud}\`);
  },
});
`,
    );
    expect(await serveAndAsk(commonjs, 'agent.ts', 'hello')).toBe('ts: HELLO');
  }, 60_000);

  it('serves a CommonJS agent, and require("a2actor") works', async () => {
    writeFileSync(
      join(commonjs, 'agent.js'),
      `const { defineAgent } = require('a2actor');
module.exports = defineAgent({
  card: { name: 'CJS Agent', description: 'cjs', version: '1.0.0', skills: [] },
  async handler(ctx) { ctx.complete('cjs: ' + ctx.text); },
});
`,
    );
    expect(await serveAndAsk(commonjs, 'agent.js', 'hello')).toBe('cjs: hello');
    const { stdout } = await run(
      process.execPath,
      ['-e', "const a = require('a2actor'); console.log(typeof a.createServer, typeof a.testAgent)"],
      { cwd: commonjs },
    );
    expect(stdout.trim()).toBe('function function');
  }, 60_000);

  it('a2actor init writes a TypeScript project whose start serves and whose test passes', async () => {
    await run('npx', ['--no-install', 'a2actor', 'init', 'fresh-agent'], { cwd: commonjs, ...NPM });
    const project = join(commonjs, 'fresh-agent');
    // Its dependency is this package, installed above (it is not on the registry).
    symlinkSync(join(commonjs, 'node_modules'), join(project, 'node_modules'));
    expect(await serveAndAsk(project, 'agent.ts', 'good morning', ['npm', 'start', '--silent', '--'])).toBe('You said: good morning');
    const { stdout } = await run('npm', ['test', '--silent'], { cwd: project, ...NPM });
    expect(stdout).toMatch(/# pass 2/);
    expect(stdout).toMatch(/# fail 0/);
  }, 120_000);

  it('serves an ES-module agent in a "type": "module" project', async () => {
    writeFileSync(
      join(esm, 'agent.js'),
      `import { defineAgent } from 'a2actor';
export default defineAgent({
  card: { name: 'ESM Agent', description: 'esm', version: '1.0.0', skills: [] },
  async handler(ctx) { ctx.complete(\`esm: \${ctx.text}\`); },
});
`,
    );
    expect(await serveAndAsk(esm, 'agent.js', 'hello')).toBe('esm: hello');
  }, 60_000);
});
