/**
 * The package as a newcomer gets it: `npm pack`, installed from the registry's dependencies into
 * a fresh `npm init -y` project (CommonJS) and into a `"type": "module"` one; `npx a2actor serve`
 * serves a TypeScript, an ES-module and a CommonJS agent; `require('a2actor')` works; the project
 * `a2actor init` writes starts, answers and passes its own test. On Node 22 and 24 the install is
 * light: no install script, nothing compiled, at most 150 MB, and SQLite (node:sqlite) serving
 * across a restart.
 *
 * `packedInstall()` is the one packed install the describe blocks share: a later block may use it.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, rpcCall, userMessage } from '../support/a2a.js';
import { nodeBinary } from '../support/node-binary.js';
import { tempDir } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const NPM = { env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } };
const temp = tempDir('a2actor-pack-');
afterAll(() => temp.cleanup());

let tarball: Promise<string> | undefined;
/** `npm pack` of this project, made once per file. */
function packed(): Promise<string> {
  tarball ??= (async () => {
    await run('npm', ['pack', '--pack-destination', temp.dir, '--silent'], { cwd: ROOT, ...NPM });
    const file = readdirSync(temp.dir).find((f) => f.endsWith('.tgz'));
    if (!file) throw new Error('npm pack made no tarball');
    return join(temp.dir, file);
  })();
  return tarball;
}

/** The packed package installed into a fresh `npm init -y` project named `name`, by `node`'s npm. */
async function installInto(name: string, node = process.execPath): Promise<{ dir: string; log: string }> {
  const dir = join(temp.dir, name);
  mkdirSync(dir);
  // npm runs on the first `node` of PATH, and so do the install scripts it starts.
  const env = { ...NPM.env, PATH: `${dirname(node)}:${process.env.PATH ?? ''}` };
  await run('npm', ['init', '-y'], { cwd: dir, env });
  const { stdout, stderr } = await run('npm', ['install', await packed()], { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 });
  return { dir, log: `${stdout}${stderr}` };
}

let shared: Promise<string> | undefined;
/** The CommonJS project with the packed package installed on this Node, shared by every block. */
export function packedInstall(): Promise<string> {
  shared ??= installInto('cjs-project').then((p) => p.dir);
  return shared;
}

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
  const commonjs = join(temp.dir, 'cjs-project');
  const esm = join(temp.dir, 'esm-project');

  beforeAll(async () => {
    await packedInstall();
    // What a TypeScript project adds (`a2actor init` writes it as a dev dependency): Node 20
    // cannot load TypeScript without it.
    await run('npm', ['install', '--save-dev', 'tsx'], { cwd: commonjs, ...NPM });
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

/** The built CLI of an installed package, run by `node` in `dir`, until its "listening on" line. */
async function startInstalledCli(
  node: string,
  dir: string,
  args: string[],
): Promise<{ url: string; output: () => string; stop: () => Promise<void> }> {
  const child = spawn(node, [join(dir, 'node_modules/a2actor/dist/src/cli/main.js'), 'serve', ...args, '--port', '0'], {
    cwd: dir,
    env: { ...NPM.env, SERVICE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await eventually(() => /listening on (http:\/\/\S+)/.exec(out)?.[1], 30_000).catch(() => {
    child.kill('SIGKILL');
    throw new Error(`the installed CLI did not start:\n${out}`);
  });
  return {
    url,
    output: () => out,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe.each([22, 24])('a light install on Node %i', (major) => {
  let node = '';
  let project = { dir: '', log: '' };

  beforeAll(async () => {
    node = await nodeBinary(major);
    project = await installInto(`node${major}-project`, node);
  }, 600_000);

  it('runs no install script, compiles nothing and takes at most 150 MB', async () => {
    // npm lists the packages whose install scripts ran (or wait to be allowed) under this heading.
    expect(project.log).not.toMatch(/install-scripts/);
    expect(existsSync(join(project.dir, 'node_modules/better-sqlite3'))).toBe(false);
    expect(existsSync(join(project.dir, 'node_modules/esbuild'))).toBe(false);
    const { stdout } = await run('du', ['-sm', join(project.dir, 'node_modules')]);
    expect(Number(stdout.split('\t')[0])).toBeLessThanOrEqual(150);
  });

  it('serves a TypeScript agent without tsx: Node strips the types', async () => {
    // .mts: `npm init -y` writes "type": "commonjs", where Node reads a .ts file as CommonJS.
    writeFileSync(
      join(project.dir, 'typed.mts'),
      `import { defineAgent, type AgentContext } from 'a2actor';
export default defineAgent({
  card: { name: 'Typed Agent', description: 'typed', version: '1.0.0', skills: [] },
  async handler(ctx: AgentContext): Promise<void> {
    const loud: string = ctx.text.toUpperCase();
    ctx.complete(\`stripped: \${loud}\`);
  },
});
`,
    );
    const cli = await startInstalledCli(node, project.dir, ['typed.mts', '--store', 'memory']);
    try {
      const answer = await rpcCall(cli.url, 'message/send', { message: userMessage('hi') });
      expect(answer.result.artifacts[0].parts[0].text).toBe('stripped: HI');
    } finally {
      await cli.stop();
    }
  }, 60_000);

  it('serves its SQLite store across a restart: send, stop, start, get the task', async () => {
    writeFileSync(
      join(project.dir, 'agent.js'),
      `const { defineAgent } = require('a2actor');
module.exports = defineAgent({
  card: { name: 'Kept Agent', description: 'kept', version: '1.0.0', skills: [] },
  async handler(ctx) { ctx.complete('kept: ' + ctx.text); },
});
`,
    );
    const args = ['agent.js', '--store', 'sqlite:./data/tasks.db'];
    const first = await startInstalledCli(node, project.dir, args);
    let sent;
    try {
      expect(first.output()).toMatch(/store sqlite:\.\/data\/tasks\.db/);
      sent = await rpcCall(first.url, 'message/send', { message: userMessage('remember me') });
      expect(sent.result.status.state).toBe('completed');
    } finally {
      await first.stop();
    }
    const second = await startInstalledCli(node, project.dir, args);
    try {
      const read = await rpcCall(second.url, 'tasks/get', { id: sent.result.id });
      expect(read.result).toEqual(sent.result);
      // node:sqlite's ExperimentalWarning (Node 22) is the CLI's to hide.
      expect(first.output() + second.output()).not.toMatch(/ExperimentalWarning/);
    } finally {
      await second.stop();
    }
  }, 120_000);
});

describe('the packed package mounted in a Fastify app and in an Express app with express.json()', () => {
  const temp = tempDir('a2actor-pack-mount-');
  const project = join(temp.dir, 'mount-project');
  afterAll(() => temp.cleanup());

  beforeAll(async () => {
    const tarball = await packed();
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'mount-project', version: '1.0.0', type: 'module' }));
    // Light: the app serves from memory through its host's listener, so no native build is needed.
    await run('npm', ['install', tarball, '--ignore-scripts', '--omit=optional', '--prefer-offline'], {
      cwd: project,
      ...NPM,
      maxBuffer: 16 * 1024 * 1024,
    });
    // The host frameworks come from this repository's own install, not the network.
    for (const framework of ['fastify', 'express'])
      symlinkSync(join(ROOT, 'node_modules', framework), join(project, 'node_modules', framework));
  }, 600_000);

  it('answers a send, streams to the end and gives the card URL under /a2a in both apps', async () => {
    writeFileSync(
      join(project, 'app.js'),
      `import express from 'express';
import Fastify from 'fastify';
import { a2aFastify, createServer, defineAgent } from 'a2actor';

const agent = defineAgent({
  card: { name: 'Mounted', description: 'echoes', version: '1.0.0', skills: [] },
  capabilities: { streaming: true },
  async handler(ctx) {
    ctx.complete('mounted: ' + ctx.text);
  },
});
const a2a = await createServer({ agent, frontEnd: 'none', store: 'memory', logLevel: 'warn' });

const fastify = Fastify();
await fastify.register(a2aFastify(a2a), { prefix: '/a2a' });
await fastify.listen({ port: 0, host: '127.0.0.1' });
const app = express();
app.use(express.json());
app.use('/a2a', a2a.nodeHandler());
const withExpress = app.listen(0, '127.0.0.1');
await new Promise((resolve) => withExpress.once('listening', resolve));

const rpc = (method, text) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { message: { kind: 'message', role: 'user', messageId: method + text, parts: [{ kind: 'text', text }] } } }),
});
for (const [name, port] of [['fastify', fastify.server.address().port], ['express', withExpress.address().port]]) {
  const card = await (await fetch('http://127.0.0.1:' + port + '/a2a/.well-known/agent-card.json')).json();
  const sent = await (await fetch(card.url, rpc('message/send', name))).json();
  const streamed = await (await fetch(card.url, rpc('message/stream', name))).text();
  const events = streamed.split('\\n').filter((line) => line.startsWith('data:')).map((line) => JSON.parse(line.slice(5)).result);
  console.log(JSON.stringify({ name, port, cardUrl: card.url, sent: sent.result.artifacts[0].parts[0].text, events: events.map((e) => e.status?.state ?? e.kind) }));
}
withExpress.close();
await fastify.close();
await a2a.close();
`,
    );
    const { stdout } = await run(process.execPath, ['app.js'], { cwd: project, timeout: 30_000 });
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; port: number; cardUrl: string; sent: string; events: string[] });
    expect(lines.map((l) => l.name)).toEqual(['fastify', 'express']);
    for (const line of lines) {
      expect(line.cardUrl).toBe(`http://127.0.0.1:${line.port}/a2a`);
      expect(line.sent).toBe(`mounted: ${line.name}`);
      expect(line.events[0]).toBe('submitted');
      expect(line.events).toContain('working');
      expect(line.events.at(-1)).toBe('completed');
    }
  }, 60_000);
});

describe('a2actor init in an existing npm project', () => {
  const temp = tempDir('a2actor-init-');
  const project = join(temp.dir, 'existing-project');
  // Its node_modules holds a compiled better-sqlite3 and TypeScript: removing it takes a while.
  afterAll(() => temp.cleanup(), 120_000);

  beforeAll(async () => {
    await run('npm', ['pack', '--pack-destination', temp.dir, '--silent'], { cwd: ROOT, ...NPM });
    const tarball = readdirSync(temp.dir).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack made no tarball');
    mkdirSync(project);
    await run('npm', ['init', '-y'], { cwd: project, ...NPM });
    await run('npm', ['install', join(temp.dir, tarball)], { cwd: project, ...NPM, maxBuffer: 16 * 1024 * 1024 });
    await run('npx', ['--no-install', 'a2actor', 'init'], { cwd: project, ...NPM });
    // What init declared for the generated files (the type checker and Node's types).
    await run('npm', ['install'], { cwd: project, ...NPM, maxBuffer: 16 * 1024 * 1024 });
  }, 600_000);

  it('npm init -y, npm i a2actor, npx a2actor init: the project type-checks and its test passes', async () => {
    await run('npx', ['--no-install', 'tsc', '--noEmit'], { cwd: project, ...NPM });
    const { stdout } = await run('npm', ['test', '--silent'], { cwd: project, ...NPM });
    expect(stdout).toMatch(/# pass 2/);
    expect(stdout).toMatch(/# fail 0/);
  }, 120_000);

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s to npm start stops the server: its port closes and its process is gone',
    async (signal) => {
      const npm = spawn('npm', ['start', '--', '--store', 'memory', '--port', '0'], {
        cwd: project,
        env: { ...NPM.env, SERVICE_LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      npm.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      npm.stderr.on('data', (d: Buffer) => {
        out += d.toString();
      });
      const npmExited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
      let serverPid: number | undefined;
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      try {
        const url = await eventually(() => /listening on (http:\/\/\S+)/.exec(out)?.[1], 30_000).catch(() => {
          throw new Error(`npm start did not start:\n${out}`);
        });
        // The start log line names the server's process, which npm runs under it.
        serverPid = Number(await eventually(() => /"pid":(\d+)[^\n]*"event":"server\.started"/.exec(out)?.[1], 5_000));
        expect((await fetch(`${url}/v1/health`)).status).toBe(200);
        npm.kill(signal);
        await npmExited;
        await eventually(() => !alive(serverPid as number) || undefined, 20_000).catch(() => {
          throw new Error(`the server (pid ${serverPid}) outlived npm start after ${signal}:\n${out}`);
        });
        await expect(fetch(`${url}/v1/health`)).rejects.toThrow();
      } finally {
        for (const pid of [serverPid, npm.pid]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
      }
    },
    60_000,
  );
});
