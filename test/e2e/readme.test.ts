/**
 * The README and every page of docs/, each run top to bottom in a fresh directory of its own
 * (README_PATH names one page to run alone). Every fenced block must follow a marker comment
 * (blank lines may sit between) saying how it is checked:
 *
 *   <!-- readme-test: program NAME [ports=3000,3001] -->  a complete TypeScript program: written
 *       to a temporary directory as NAME.ts (`from 'a2actor'` pointed at src/index.ts), type-checked
 *       with the repository's compiler options, and run with tsx (it must exit 0). `ports=` lists
 *       the ports it names: a port a README server listens on becomes that server's real port,
 *       any other a free one.
 *   <!-- readme-test: shell -->   commands, each one run or checked by the handler of its kind
 *       (COMMANDS below; a command no handler knows fails the test): servers are started for
 *       real on free 127.0.0.1 ports and stay up for the blocks after them, curl runs against
 *       them, `npm ci` / `npm test` / `npm run X` are checked against package.json (not run:
 *       the registry and the whole suite are out of bounds here). `npm init -y` and `npm pkg set` run
 *       for real in the page's directory, so a program that needs `"type": "module"` fails unless
 *       the page says to set it; `npm install` is checked to name only this package, its peers and
 *       packages this repository installs.
 *   <!-- readme-test: output -->  what the block before printed (the last command of a shell
 *       block, or a program). JSON blocks: the expected object is a subset of the actual one,
 *       `"…"` matches any value (and `…` inside a string any text). Text blocks: each non-blank
 *       line matches an actual line, in order (`…` matches any text; `data: {…}` lines compare
 *       as JSON the same way).
 *   <!-- readme-test: illustrative -- REASON -->  not run, for the reason given (kept few).
 *
 * Network: loopback only. A README address that is not (`db:5432`, `redis:6379`, `0.0.0.0`) is
 * replaced by the local equivalent (LOCAL below); any other address fails the test.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const DOCS = join(ROOT, 'docs');
const PAGES = process.env.README_PATH
  ? [process.env.README_PATH]
  : [
      join(ROOT, 'README.md'),
      ...readdirSync(DOCS)
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => join(DOCS, f)),
    ];

// ---------------------------------------------------------------------------------------------
// Parsing

export interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  body: string;
  kind: 'program' | 'shell' | 'output' | 'illustrative' | 'missing' | 'unknown';
  args: string[];
  reason: string;
}

const KINDS = new Set(['program', 'shell', 'output', 'illustrative']);

export function parseBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})(\S*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const fence = open[1] as string;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] ?? '').startsWith(fence); i++) body.push(lines[i] ?? '');
    let j = start - 1;
    while (j >= 0 && (lines[j] ?? '').trim() === '') j--;
    const marker = /^<!--\s*readme-test:\s*(\S+)(.*?)-->\s*$/.exec(lines[j] ?? '');
    const [, kind = 'missing', rest = ''] = marker ?? [];
    const [argText = '', reason = ''] = rest.split(/\s--\s/, 2);
    blocks.push({
      line: start + 1,
      lang: open[2] ?? '',
      body: body.join('\n'),
      kind: !marker ? 'missing' : KINDS.has(kind) ? (kind as Block['kind']) : 'unknown',
      args: argText.trim().split(/\s+/).filter(Boolean),
      reason: reason.trim(),
    });
  }
  return blocks;
}

/** Shell words of one command line: quotes, backslash escapes; `|`, `&&` as words of their own. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed ' in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let s = '';
      for (i++; i < line.length && line[i] !== '"'; i++) s += line[i] === '\\' && /["\\$`]/.test(line[i + 1] ?? '') ? line[++i] : line[i];
      if (i >= line.length) throw new Error(`unclosed " in: ${line}`);
      word = (word ?? '') + s;
    } else if (c === '\\') {
      word = (word ?? '') + (line[++i] ?? '');
    } else if (c === '#' && word === undefined) {
      break; // a comment
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '|' || (c === '&' && line[i + 1] === '&')) {
      if (word !== undefined) words.push(word);
      word = undefined;
      words.push(c === '|' ? '|' : '&&');
      if (c === '&') i++;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The commands of a shell block: continuation lines joined, each split at `&&` and `|`. */
export function commandsOf(body: string): { env: Record<string, string>; words: string[]; pipeTo?: string[] }[][] {
  const logical = body
    .replace(/\\\n\s*/g, ' ')
    // A line of a JSON body broken inside single quotes continues the command.
    .split('\n')
    .reduce<string[]>((acc, l) => {
      const prev = acc[acc.length - 1];
      if (prev !== undefined && (prev.split("'").length - 1) % 2 === 1) acc[acc.length - 1] = `${prev}\n${l}`;
      else acc.push(l);
      return acc;
    }, [])
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  return logical.map((line) => {
    const words = shellWords(line);
    const chain: { env: Record<string, string>; words: string[]; pipeTo?: string[] }[] = [];
    let current: string[] = [];
    const flush = () => {
      const env: Record<string, string> = {};
      while (current.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(current[0] as string)) {
        const [k, ...v] = (current.shift() as string).split('=');
        env[k as string] = v.join('=');
      }
      chain.push({ env, words: current });
      current = [];
    };
    for (let k = 0; k < words.length; k++) {
      const w = words[k] as string;
      if (w === '&&') flush();
      else if (w === '|') {
        flush();
        const last = chain[chain.length - 1] as { pipeTo?: string[] };
        const rest: string[] = [];
        for (k++; k < words.length && words[k] !== '&&' && words[k] !== '|'; k++) rest.push(words[k] as string);
        k--;
        last.pipeTo = rest;
      } else current.push(w);
    }
    if (current.length > 0) flush();
    return chain;
  });
}

// ---------------------------------------------------------------------------------------------
// Comparing outputs

const WILDCARD = '…';

function globMatch(expected: string, actual: string): boolean {
  const pattern = expected
    .split(WILDCARD)
    .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 's').test(actual);
}

/** Differences between an expected JSON shape and an actual value (empty: it matches). */
export function shapeDiff(expected: unknown, actual: unknown, path = '$'): string[] {
  if (typeof expected === 'string' && expected.includes(WILDCARD)) {
    if (expected === WILDCARD) return actual === undefined ? [`${path}: missing`] : [];
    return typeof actual === 'string' && globMatch(expected, actual)
      ? []
      : [`${path}: ${JSON.stringify(actual)} does not match "${expected}"`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    const open = expected[expected.length - 1] === WILDCARD;
    const items = open ? expected.slice(0, -1) : expected;
    if (open ? actual.length < items.length : actual.length !== items.length)
      return [`${path}: expected ${items.length}${open ? '+' : ''} items, got ${actual.length}`];
    return items.flatMap((e, i) => shapeDiff(e, actual[i], `${path}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([k, v]) => shapeDiff(v, (actual as Record<string, unknown>)[k], `${path}.${k}`));
  }
  return Object.is(expected, actual) ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

function lineMatches(expected: string, actual: string): boolean {
  if (expected.startsWith('data: {') && actual.startsWith('data: ')) {
    try {
      return shapeDiff(JSON.parse(expected.slice(6)), JSON.parse(actual.slice(6))).length === 0;
    } catch {
      return false;
    }
  }
  return globMatch(expected, actual);
}

/** Differences between an output block and what was printed (empty: it matches). */
export function outputDiff(block: Pick<Block, 'lang' | 'body'>, printed: string): string[] {
  if (block.lang === 'json') {
    let actual: unknown;
    try {
      actual = JSON.parse(printed);
    } catch {
      return [`not JSON: ${printed.slice(0, 500)}`];
    }
    return shapeDiff(JSON.parse(block.body), actual);
  }
  const actualLines = printed.split('\n').map((l) => l.trimEnd());
  let at = 0;
  for (const line of block.body.split('\n').map((l) => l.trimEnd())) {
    if (line === '') continue;
    const found = actualLines.findIndex((a, i) => i >= at && lineMatches(line, a));
    if (found < 0) return [`no line matching ${JSON.stringify(line)} (in order) in:\n${printed.slice(0, 4000)}`];
    at = found + 1;
  }
  return [];
}

// ---------------------------------------------------------------------------------------------
// Running

interface PackageJson {
  name: string;
  scripts: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

interface Running {
  child: ChildProcess;
  readmePort: number;
  port: number;
  output: () => string;
}

const LOOPBACK = /^(localhost|127\.0\.0\.1)$/;
/** README addresses that stand for a deployment's own hosts, and the local service used instead. */
const SCHEMA = `readme_${process.pid}_${Date.now().toString(36)}`;
const PG_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const LOCAL: Record<string, string> = {
  'postgres://a2a@db:5432/a2a': `${PG_URL}?schema=${SCHEMA}`,
  'redis://redis:6379': process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  '0.0.0.0': '127.0.0.1',
};

class Session {
  readonly dir = mkdtempSync(join(tmpdir(), 'a2actor-readme-'));
  private readonly servers = new Map<number, Running>();
  /** What the last command or program printed, with real ports and paths put back as the README has them. */
  lastOutput: string | undefined;
  private pgUsed = false;

  constructor() {
    symlinkSync(join(ROOT, 'node_modules'), join(this.dir, 'node_modules'), 'dir');
    writeFileSync(join(this.dir, 'package.json'), JSON.stringify({ name: 'readme-programs', type: 'module', private: true }));
  }

  /** Puts the README's port back in place of the real one, and README paths in place of temporary ones. */
  private normalize(text: string): string {
    let out = text.split(this.dir).join('.');
    for (const s of this.servers.values())
      out = out.replace(new RegExp(`(127\\.0\\.0\\.1|localhost):${s.port}\\b`, 'g'), `$1:${s.readmePort}`);
    return out;
  }

  /** `localhost:N` / `127.0.0.1:N` -> the server standing for README port N; other hosts refused. */
  rewriteUrls(text: string, extraPorts: Record<number, number> = {}): string {
    for (const m of text.matchAll(/https?:\/\/([^/:'"\s]+)/g)) {
      const host = m[1] as string;
      if (!LOOPBACK.test(host) && !/(^|\.)example\.(com|org)$/.test(host))
        throw new Error(`the README sends a request to ${host}: only loopback is allowed here`);
    }
    return text.replace(/\b(localhost|127\.0\.0\.1):(\d+)\b/g, (all, _host: string, port: string) => {
      const n = Number(port);
      const real = this.servers.get(n)?.port ?? extraPorts[n];
      if (real === undefined) throw new Error(`nothing of the README listens on port ${n} at this point (${all})`);
      return `127.0.0.1:${real}`;
    });
  }

  private local(value: string): string {
    for (const [from, to] of Object.entries(LOCAL)) {
      if (value.includes(from)) {
        if (from.startsWith('postgres')) this.pgUsed = true;
        value = value.split(from).join(to);
      }
    }
    return value;
  }

  async stopServer(readmePort: number): Promise<void> {
    const s = this.servers.get(readmePort);
    if (!s) return;
    this.servers.delete(readmePort);
    const gone = new Promise((r) => (s.child.exitCode !== null ? r(null) : s.child.once('exit', r)));
    try {
      process.kill(-(s.child.pid as number), 'SIGTERM');
    } catch {
      // already gone
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-(s.child.pid as number), 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5_000);
    await gone;
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers.keys()].map((p) => this.stopServer(p)));
    if (this.pgUsed) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
      await client.end();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Starts a long-running process and waits for its "listening on" line. */
  async startServer(
    readmePort: number,
    program: string,
    args: string[],
    cwd: string,
    env: Record<string, string>,
    port: number,
  ): Promise<void> {
    await this.stopServer(readmePort);
    const child = spawn(program, args, {
      cwd,
      env: { ...process.env, SERVICE_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const running: Running = { child, readmePort, port, output: () => this.normalize(out) };
    this.servers.set(readmePort, running);
    const deadline = Date.now() + 30_000;
    while (!/listening on http:\/\//.test(out)) {
      if (child.exitCode !== null) throw new Error(`${program} ${args.join(' ')} exited (${child.exitCode}):\n${out}`);
      if (Date.now() > deadline) throw new Error(`${program} ${args.join(' ')} did not start in 30 s:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Give the rest of the start-up output (npm's banner comes first) a moment to arrive.
    await new Promise((r) => setTimeout(r, 100));
    this.lastOutput = running.output();
  }

  /** `serve <agent> [flags]` through the CLI from source. */
  private async serve(cliArgs: string[], cwd: string, env: Record<string, string>): Promise<void> {
    const args = [...cliArgs];
    const portAt = args.indexOf('--port');
    const readmePort = portAt >= 0 ? Number(args.splice(portAt, 2)[1]) : Number(env.SERVICE_PORT ?? 8080);
    const port = await freePort();
    await this.startServer(
      readmePort,
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args, '--port', String(port)],
      cwd,
      env,
      port,
    );
  }

  async command(cmd: { env: Record<string, string>; words: string[]; pipeTo?: string[] }, packageJson: PackageJson): Promise<void> {
    const env = Object.fromEntries(Object.entries(cmd.env).map(([k, v]) => [k, this.local(v)]));
    const [head, ...rest] = cmd.words.map((w) => this.local(w));
    const line = cmd.words.join(' ');
    const is = (...prefix: string[]) => prefix.every((p, i) => cmd.words[i] === p);

    if (is('npm', 'ci')) {
      // Not run (it reinstalls from the registry): the lock file it needs is there.
      expect(existsSync(join(ROOT, 'package-lock.json')), 'npm ci needs package-lock.json').toBe(true);
      return;
    }
    if (is('npm', 'init', '-y')) {
      // A fresh project, as a reader's would be: npm decides its module type, not this test.
      rmSync(join(this.dir, 'package.json'), { force: true });
      await run('npm', ['init', '-y'], { cwd: this.dir, timeout: 60_000 });
      return;
    }
    if (is('npm', 'pkg', 'set')) {
      await run('npm', ['pkg', 'set', ...rest.slice(2)], { cwd: this.dir, timeout: 60_000 });
      return;
    }
    if (is('npm', 'install') || is('npm', 'i')) {
      // Not run (the registry is out of bounds): it may name only this package and what the
      // repository itself installs (its peers, and the frameworks the mount examples use).
      const known = new Set([
        packageJson.name,
        ...Object.keys(packageJson.peerDependencies ?? {}),
        ...Object.keys(packageJson.devDependencies ?? {}),
      ]);
      for (const name of rest.slice(1).filter((w) => !w.startsWith('-'))) expect(known, `${line}: ${name}`).toContain(name);
      return;
    }
    if (is('npm', 'start')) {
      const port = await freePort();
      const store = join(this.dir, 'data', 'a2actor.db');
      await this.startServer(
        Number(env.SERVICE_PORT ?? 8080),
        'npm',
        ['start'],
        ROOT,
        { ...env, SERVICE_PORT: String(port), SERVICE_STORE: `sqlite:${store}` },
        port,
      );
      // The README names the default store, which this run moved to a temporary directory.
      this.lastOutput = this.lastOutput?.split(`sqlite:${store}`).join('sqlite:./data/a2actor.db');
      return;
    }
    if (is('npm', 'test')) {
      expect(packageJson.scripts.test, 'npm test').toMatch(/vitest run/);
      return;
    }
    if (is('npm', 'run')) {
      const script = rest[1] as string;
      expect(Object.keys(packageJson.scripts), `npm run ${script}`).toContain(script);
      const flags = rest.slice(2).filter((w) => w.startsWith('--') && w !== '--');
      if (flags.length > 0) {
        // Not run (a bench takes minutes): its flags must be ones `--help` lists.
        const { stdout } = await run('npm', ['run', '--silent', script, '--', '--help'], { cwd: ROOT, timeout: 60_000 });
        for (const flag of flags) expect(stdout, `${line}: ${flag} in --help`).toContain(flag);
      }
      return;
    }
    if (is('npx', 'vitest', 'run')) {
      const projectAt = rest.indexOf('--project');
      const files = rest.slice(2).filter((w, i) => !w.startsWith('--') && i + 2 !== projectAt + 1);
      for (const f of files) expect(existsSync(join(ROOT, f)), `${line}: ${f}`).toBe(true);
      if (projectAt >= 0) expect(readFileSync(join(ROOT, 'vitest.config.ts'), 'utf8')).toContain(`name: '${rest[projectAt + 1]}'`);
      return;
    }
    if (is('npx', 'a2actor', 'serve')) return this.serve(rest.slice(1), this.dir, env);
    if (is('npx', 'tsx', 'src/cli/main.ts', 'serve')) return this.serve(rest.slice(2), ROOT, env);
    if (is('node', '--import', 'tsx', 'src/cli/main.ts', 'serve')) return this.serve(rest.slice(3), ROOT, env);
    if (is('npx', 'a2actor', 'init')) {
      const dir = rest[1] as string;
      const { stdout } = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'init', dir], {
        cwd: this.dir,
        timeout: 30_000,
      });
      for (const f of ['package.json', 'tsconfig.json', 'agent.ts', 'agent.test.ts'])
        expect(existsSync(join(this.dir, dir, f)), `${dir}/${f}`).toBe(true);
      this.lastOutput = this.normalize(stdout);
      return;
    }
    if (head === 'node' && is('node', '--import', 'tsx') && (rest[2] ?? '').startsWith('examples/')) {
      // An example that serves (the webhook receiver): on the port its variable names.
      const portVar = Object.keys(env).find((k) => k.endsWith('_PORT'));
      if (!portVar) throw new Error(`${line}: which port does it listen on?`);
      const port = await freePort();
      await this.startServer(
        Number(env[portVar]),
        process.execPath,
        ['--import', 'tsx', rest[2] as string],
        ROOT,
        { ...env, [portVar]: String(port) },
        port,
      );
      return;
    }
    if (head === 'curl') {
      const args = rest.map((w) => this.rewriteUrls(w));
      const { stdout, stderr } = await run('curl', ['--max-time', '10', ...args], { timeout: 15_000 }).catch(
        (err: { stdout?: string; stderr?: string; message: string }) => {
          throw new Error(`${line}\n${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`);
        },
      );
      let printed = stdout.replace(/\r\n/g, '\n');
      if (cmd.pipeTo) {
        const [filter, pattern] = cmd.pipeTo;
        if (filter !== 'grep' || pattern === undefined || cmd.pipeTo.length !== 2)
          throw new Error(`${line}: only "| grep PATTERN" is understood`);
        printed = printed
          .split('\n')
          .filter((l) => new RegExp(pattern).test(l))
          .join('\n');
        expect(printed, `${line} | grep ${pattern}`).not.toBe('');
      }
      this.lastOutput = this.normalize(printed + stderr);
      return;
    }
    if (head === 'openssl') {
      await run('openssl', rest, { cwd: this.dir, timeout: 30_000 });
      return;
    }
    throw new Error(`no handler for the README command: ${line}`);
  }

  /** Writes a program (imports of 'a2actor' pointed at the source), in `subdir` if given, and returns its path. */
  writeProgram(block: Block, subdir = ''): string {
    const name = block.args[0];
    if (!name) throw new Error(`line ${block.line}: a program needs a name`);
    const source = block.body
      .replace(/from 'a2actor\/machines'/g, `from '${join(ROOT, 'machines/index.js')}'`)
      .replace(/from 'a2actor'/g, `from '${join(ROOT, 'src/index.js')}'`);
    mkdirSync(join(this.dir, subdir), { recursive: true });
    const file = join(this.dir, subdir, `${name}.ts`);
    writeFileSync(file, source);
    return file;
  }

  async runProgram(block: Block, file: string): Promise<void> {
    const ports = (block.args.find((a) => a.startsWith('ports=')) ?? 'ports=').slice(6).split(',').filter(Boolean).map(Number);
    let source = readFileSync(file, 'utf8');
    const extra: Record<number, number> = {};
    for (const p of ports) if (!this.servers.has(p)) extra[p] = await freePort();
    // Only loopback, and only ports something listens on (or the program's own, from `ports=`).
    this.rewriteUrls(source, extra);
    for (const p of ports) source = source.replace(new RegExp(`\\b${p}\\b`, 'g'), String(this.servers.get(p)?.port ?? extra[p]));
    const runFile = file.replace(/\.ts$/, '.run.ts');
    writeFileSync(runFile, source);
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', runFile], { cwd: this.dir, timeout: 60_000 }).catch(
      (err: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`program ${block.args[0]} failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`);
      },
    );
    let printed = stdout;
    for (const p of ports) printed = printed.replace(new RegExp(`\\b${this.servers.get(p)?.port ?? extra[p]}\\b`, 'g'), String(p));
    this.lastOutput = this.normalize(printed + (block.args[0]?.endsWith('.test') ? '' : stderr));
  }

  /** Type-checks every program with the repository's compiler options. */
  async typecheck(files: string[]): Promise<void> {
    writeFileSync(
      join(this.dir, 'tsconfig.json'),
      JSON.stringify({
        extends: join(ROOT, 'tsconfig.json'),
        compilerOptions: { noEmit: true, rootDir: '/', declaration: false, sourceMap: false },
        include: [],
        files,
      }),
    );
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(this.dir, 'tsconfig.json')], {
      cwd: this.dir,
      timeout: 180_000,
    }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
      const said = `${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`;
      throw new Error(`the README's programs do not type-check:\n${said.split(this.dir).join('<program>')}`);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The tests

const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

// One compiler run for every page's programs (each page's in a directory of its own, where its
// programs import each other): a run per page would cost a compiler start-up per page.
describe('the programs of every page', () => {
  let session: Session;
  beforeAll(() => {
    session = new Session();
  });
  afterAll(async () => {
    await session?.close();
  });

  it('type-check', async () => {
    const files = PAGES.flatMap((page, i) =>
      parseBlocks(readFileSync(page, 'utf8'))
        .filter((b) => b.kind === 'program')
        .map((b) => session.writeProgram(b, `page-${i}`)),
    );
    if (!process.env.README_PATH) expect(files.length).toBeGreaterThan(5);
    if (files.length > 0) await session.typecheck(files);
  }, 300_000);
});

for (const page of PAGES) {
  const name = relative(ROOT, page);
  const blocks = parseBlocks(readFileSync(page, 'utf8'));

  describe(`${name} markers`, () => {
    it('every fenced block has a known marker, and every illustrative one a reason', () => {
      const bad = blocks
        .filter((b) => b.kind === 'missing' || b.kind === 'unknown' || (b.kind === 'illustrative' && b.reason === ''))
        .map((b) => `line ${b.line}: ${b.kind === 'illustrative' ? 'illustrative without "-- reason"' : `${b.kind} marker`}`);
      expect(bad).toEqual([]);
    });

    it('every output block follows a block that prints', () => {
      const orphans = blocks
        .filter((b, i) => b.kind === 'output' && !['shell', 'program'].includes(blocks[i - 1]?.kind ?? ''))
        .map((b) => b.line);
      expect(orphans).toEqual([]);
    });
  });

  if (!blocks.some((b) => b.kind === 'shell' || b.kind === 'program')) continue;

  describe(`${name}, run top to bottom`, () => {
    let session: Session;
    const programs = new Map<Block, string>();
    beforeAll(() => {
      session = new Session();
      for (const b of blocks) if (b.kind === 'program') programs.set(b, session.writeProgram(b));
    });
    afterAll(async () => {
      await session?.close();
    });

    for (const [index, block] of blocks.entries()) {
      const first = block.body.split('\n').find((l) => l.trim() !== '') ?? '';
      const title = `line ${block.line}: ${block.kind} ${block.args.join(' ')} ${first.slice(0, 60)}`.replace(/\s+/g, ' ');
      if (block.kind === 'shell') {
        it(
          title,
          async () => {
            session.lastOutput = undefined;
            for (const line of commandsOf(block.body)) for (const cmd of line) await session.command(cmd, packageJson);
          },
          120_000,
        );
      } else if (block.kind === 'program') {
        it(
          title,
          async () => {
            session.lastOutput = undefined;
            await session.runProgram(block, programs.get(block) as string);
          },
          90_000,
        );
      } else if (block.kind === 'output') {
        it(title, () => {
          const printed = session.lastOutput;
          expect(printed, `the block before line ${block.line} (${blocks[index - 1]?.kind}) printed nothing`).toBeDefined();
          expect(outputDiff(block, (printed as string).trim())).toEqual([]);
        });
      }
    }
  });
}

describe.skipIf(process.env.README_PATH)('the pages run', () => {
  it('the README has blocks, and the docs/ pages are run with it', () => {
    expect(parseBlocks(readFileSync(PAGES[0] as string, 'utf8')).length).toBeGreaterThan(10);
    expect(PAGES.filter((p) => p.startsWith(DOCS)).length).toBeGreaterThan(5);
  });
});

// The helpers above, on their own (so a broken comparison cannot pass everything).
describe('README test helpers', () => {
  it('compares shapes with wildcards', () => {
    expect(shapeDiff({ a: 1, b: '…', c: ['x', '…'] }, { a: 1, b: 'anything', c: ['x', 'y', 'z'], d: 0 })).toEqual([]);
    expect(shapeDiff({ a: 1 }, { a: 2 })).not.toEqual([]);
    expect(shapeDiff({ b: '…' }, {})).not.toEqual([]);
    expect(shapeDiff(['x'], ['x', 'y'])).not.toEqual([]);
    expect(outputDiff({ lang: 'text', body: 'a …\n\nc' }, 'a b\nzz\nc')).toEqual([]);
    expect(outputDiff({ lang: 'text', body: 'c\na …' }, 'a b\nc')).not.toEqual([]);
  });

  it('splits shell lines', () => {
    expect(commandsOf("A=1 npm ci && npm start   # note\ncurl -s x \\\n  -d '{\"a\": 1}' | grep '^a'")).toEqual([
      [
        { env: { A: '1' }, words: ['npm', 'ci'] },
        { env: {}, words: ['npm', 'start'] },
      ],
      [{ env: {}, words: ['curl', '-s', 'x', '-d', '{"a": 1}'], pipeTo: ['grep', '^a'] }],
    ]);
  });

  it('finds a block without a marker', () => {
    const found = parseBlocks('text\n\n```sh\nls\n```\n\n<!-- readme-test: shell -->\n```sh\nls\n```\n');
    expect(found.map((b) => b.kind)).toEqual(['missing', 'shell']);
  });
});
