/**
 * `a2actor init [dir]`: a ready-to-run TypeScript agent project (package.json, tsconfig.json,
 * agent.ts and a test of it that uses `testAgent`), which `npm install && npm start` serves and
 * `npm test` tests. Existing files are never overwritten.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
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

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    types: ['node'],
  },
  include: ['*.ts'],
};

/** Writes the project into `dir` (made if missing); returns the files written. */
export function initProject(dir: string, version: string): string[] {
  const root = resolve(dir);
  mkdirSync(root, { recursive: true });
  const pkg = {
    name:
      basename(root)
        .toLowerCase()
        .replace(/[^a-z0-9-]/g, '-') || 'my-agent',
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: {
      start: 'a2actor serve agent.ts',
      test: 'node --import tsx --test agent.test.ts',
    },
    dependencies: { a2actor: `^${version}` },
    // a2actor does not bring tsx: its test runs through it, and it serves agent.ts on Node 20.
    devDependencies: { tsx: '^4.23.15' },
  };
  const files: [string, string][] = [
    ['package.json', `${JSON.stringify(pkg, null, 2)}\n`],
    ['tsconfig.json', `${JSON.stringify(TSCONFIG, null, 2)}\n`],
    ['agent.ts', AGENT],
    ['agent.test.ts', TEST],
  ];
  const taken = files.filter(([name]) => existsSync(join(root, name))).map(([name]) => name);
  if (taken.length > 0) throw new Error(`${root} already has ${taken.join(', ')}: init writes into an empty directory`);
  for (const [name, text] of files) writeFileSync(join(root, name), text);
  return files.map(([name]) => join(root, name));
}
