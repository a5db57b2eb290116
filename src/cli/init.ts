/**
 * `a2actor init [dir]`: a ready-to-run TypeScript agent project (package.json, tsconfig.json,
 * agent.ts, a test of it that uses `testAgent`, .gitignore), which `npm install && npm start`
 * serves, `npm test` tests and `npx tsc` type-checks. In an existing project it merges: the
 * package.json gains the scripts and dependencies it lacks (the user's own are kept), the
 * .gitignore the lines it lacks, and a file that is already there is kept and reported.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const AGENT = `import { defineAgent } from 'a2actor';

/**
 * Your agent: one async handler per turn. \`ctx.text\` is the user's message; end the turn with
 * \`ctx.complete(...)\`, or ask for more with \`ctx.requestInput(...)\` (the user's answer comes
 * back as the next turn of the same task).
 */
export default defineAgent({
  card: {
    name: 'My Agent',
    description: 'Echoes what you say, and asks your name when you say "hello".',
    version: '0.1.0',
    skills: [{ id: 'echo', name: 'Echo', description: 'Says it back', tags: ['example'], examples: ['hello', 'echo this'] }],
  },
  capabilities: { streaming: true, pushNotifications: true },
  async handler(ctx) {
    if (ctx.history.length > 1) {
      ctx.complete(\`Nice to meet you, \${ctx.text}!\`);
      return;
    }
    if (ctx.text.trim().toLowerCase() === 'hello') {
      ctx.requestInput('Hello! What is your name?');
      return;
    }
    ctx.status('thinking…');
    ctx.complete(\`You said: \${ctx.text}\`);
  },
});
`;

const TEST = `import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { testAgent, type AgentTestClient } from 'a2actor';
import agent from './agent.ts';

let t: AgentTestClient;
before(async () => {
  t = await testAgent(agent);
});
after(() => t.close());

test('echoes a message', async () => {
  const task = await t.send('good morning');
  assert.equal(task.kind, 'task');
  if (task.kind !== 'task') return;
  assert.equal(task.status.state, 'completed');
  assert.deepEqual(task.artifacts?.[0]?.parts[0], { kind: 'text', text: 'You said: good morning' });
});

test('asks a name, then greets on the same task', async () => {
  const asked = await t.send('hello');
  assert.equal(asked.kind === 'task' && asked.status.state, 'input-required');
  if (asked.kind !== 'task') return;
  const greeted = await t.send('Ada', { taskId: asked.id });
  assert.equal(greeted.kind === 'task' && greeted.artifacts?.[0]?.parts[0]?.kind === 'text' && greeted.artifacts[0].parts[0].text, 'Nice to meet you, Ada!');
});
`;

/**
 * `module: preserve` with bundler resolution type-checks the same files in a CommonJS project
 * (`npm init -y`) and in an ES-module one, as tsx runs them in both.
 */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'preserve',
    moduleResolution: 'bundler',
    strict: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    types: ['node'],
  },
  include: ['*.ts'],
};

/**
 * `exec`: npm passes SIGINT and SIGTERM to the shell that runs a script, and a shell that
 * waits on a child dies without passing them on, leaving the server serving; exec'd, the
 * server is that process and shuts down on them.
 */
const SCRIPTS = {
  start: 'exec a2actor serve agent.ts',
  test: 'node --import tsx --test agent.test.ts',
};

/** What the generated files need besides a2actor: the type checker, Node's types and the TypeScript loader. */
const DEV_DEPENDENCIES = { '@types/node': '^20.19.0', tsx: '^4.23.15', typescript: '^5.9.3' };

/** The `test` script `npm init -y` writes: a placeholder, replaced. */
const PLACEHOLDER_TEST = /^echo "Error: no test specified" && exit 1$/;

const GITIGNORE = ['node_modules/', 'data/'];

type PackageJson = Record<string, unknown> & {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

export interface InitResult {
  /** Files created or changed. */
  written: string[];
  /** What was left as it was, and why: one line each. */
  kept: string[];
}

/** The project's package.json with what init needs added; the user's fields are never changed. */
function mergedPackage(existing: PackageJson, version: string, kept: string[]): PackageJson {
  const pkg: PackageJson = { ...existing };
  const scripts = { ...(pkg.scripts ?? {}) };
  for (const [name, command] of Object.entries(SCRIPTS)) {
    const current = scripts[name];
    if (current === undefined || (name === 'test' && PLACEHOLDER_TEST.test(current))) scripts[name] = command;
    else if (current !== command) kept.push(`package.json scripts.${name} kept ("${current}"); init's is "${command}"`);
  }
  pkg.scripts = scripts;
  const has = (name: string) => pkg.dependencies?.[name] !== undefined || pkg.devDependencies?.[name] !== undefined;
  if (!has('a2actor')) pkg.dependencies = { ...(pkg.dependencies ?? {}), a2actor: `^${version}` };
  const missing = Object.entries(DEV_DEPENDENCIES).filter(([name]) => !has(name));
  if (missing.length > 0) pkg.devDependencies = { ...(pkg.devDependencies ?? {}), ...Object.fromEntries(missing) };
  return pkg;
}

/** The .gitignore with init's lines added where no line already covers them. */
function mergedGitignore(existing: string): string | undefined {
  const lines = new Set(existing.split(/\r?\n/).map((l) => l.trim().replace(/^\//, '').replace(/\/$/, '')));
  const missing = GITIGNORE.filter((entry) => !lines.has(entry.replace(/\/$/, '')));
  if (missing.length === 0) return undefined;
  const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
  return `${existing}${separator}${missing.join('\n')}\n`;
}

/** Writes the project into `dir` (made if missing), merging into what is there. */
export function initProject(dir: string, version: string): InitResult {
  const root = resolve(dir);
  mkdirSync(root, { recursive: true });
  const written: string[] = [];
  const kept: string[] = [];
  const write = (name: string, text: string) => {
    writeFileSync(join(root, name), text);
    written.push(join(root, name));
  };

  const pkgPath = join(root, 'package.json');
  if (existsSync(pkgPath)) {
    const text = readFileSync(pkgPath, 'utf8');
    let existing: unknown;
    try {
      existing = JSON.parse(text);
    } catch (err) {
      throw new Error(`${pkgPath} is not JSON (${err instanceof Error ? err.message : String(err)}): fix it, then run init again`, {
        cause: err,
      });
    }
    if (typeof existing !== 'object' || existing === null || Array.isArray(existing)) throw new Error(`${pkgPath} is not a JSON object`);
    const merged = mergedPackage(existing as PackageJson, version, kept);
    const indent = /^\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? 2;
    const next = `${JSON.stringify(merged, null, indent)}\n`;
    if (next !== text) write('package.json', next);
  } else {
    const name =
      basename(root)
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-') || 'my-agent';
    write(
      'package.json',
      `${JSON.stringify(mergedPackage({ name, version: '0.1.0', private: true, type: 'module' }, version, kept), null, 2)}\n`,
    );
  }

  const files: [string, string][] = [
    ['tsconfig.json', `${JSON.stringify(TSCONFIG, null, 2)}\n`],
    ['agent.ts', AGENT],
    ['agent.test.ts', TEST],
  ];
  for (const [name, text] of files) {
    if (existsSync(join(root, name))) kept.push(`${name} kept as it was (not overwritten)`);
    else write(name, text);
  }

  const ignorePath = join(root, '.gitignore');
  const ignore = mergedGitignore(existsSync(ignorePath) ? readFileSync(ignorePath, 'utf8') : '');
  if (ignore !== undefined) write('.gitignore', ignore);
  return { written, kept };
}
