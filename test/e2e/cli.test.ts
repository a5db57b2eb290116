/**
 * The CLI's manners: --version and help answer and exit 0; a bad flag is reported by the flag
 * the user typed; a backend that fails is named with its URL, credentials left out; an agent
 * module that does not parse is reported with its file and line; with --debug the start line
 * points at the /chat page.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnServer } from '../support/process.js';
import { tempDir } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const cli = runCli;

describe('the CLI', () => {
  const temp = tempDir();
  afterAll(() => temp.cleanup());

  it('--version and `version` print the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const args of [['--version'], ['-v'], ['version']]) {
      const run = await cli(args);
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe(version);
    }
  });

  it('`help` and --help print the usage and exit 0; no command or an unknown one exits 2', async () => {
    for (const args of [['help'], ['--help']]) {
      const run = await cli(args);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/usage: a2actor serve <agent module>/);
      expect(run.stdout).toMatch(/--store/);
    }
    expect((await cli([])).code).toBe(2);
    const unknown = await cli(['start']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "start"/);
    const badFlag = await cli(['serve', 'examples/echo-agent.ts', '--prot', '1']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/--prot/);
  });

  it('a bad value is reported by the flag that set it, or by the variable', async () => {
    const flag = await cli(['serve', 'examples/echo-agent.ts', '--port', 'abc']);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toMatch(/--port: must be a port number/);
    expect(flag.stderr).not.toMatch(/NaN/);
    const variable = await cli(['serve', 'examples/echo-agent.ts'], { SERVICE_PORT: 'abc' });
    expect(variable.code).toBe(1);
    expect(variable.stderr).toMatch(/SERVICE_PORT: must be a port number/);
  });

  it('a backend that cannot be reached is named with its URL, without credentials', async () => {
    const pg = await cli(['serve', 'examples/echo-agent.ts', '--port', '0', '--store', 'postgres://agent:s3cret@127.0.0.1:1/tasks']);
    expect(pg.code).toBe(1);
    expect(pg.stderr).toMatch(/the store postgres:\/\/127\.0\.0\.1:1\/tasks could not be opened: .*ECONNREFUSED/);
    expect(pg.stderr).not.toContain('s3cret');
    const redis = await cli([
      'serve',
      'examples/echo-agent.ts',
      '--port',
      '0',
      '--store',
      'memory',
      '--events',
      'redis://:s3cret@127.0.0.1:1',
    ]);
    expect(redis.code).toBe(1);
    expect(redis.stderr).toMatch(/the event log redis:\/\/127\.0\.0\.1:1 could not be opened/);
    expect(redis.stderr).not.toContain('s3cret');
  });

  it.each([
    ['JavaScript', 'broken.mjs', /broken\.mjs:3\b/],
    ['TypeScript', 'broken.ts', /broken\.ts:3:1\b/],
  ])('an agent module in %s that does not parse is reported with its file and line', async (_lang, file, where) => {
    const path = join(temp.dir, file);
    writeFileSync(path, 'export default {\n  handler( {\n};\n');
    const run = await cli(['serve', path, '--store', 'memory', '--port', '0']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/cannot load the agent module/);
    expect(run.stderr).toMatch(where);
  });

  it('init writes a project into an empty directory, and never over existing files', async () => {
    const dir = join(temp.dir, 'new-agent');
    const first = await cli(['init', dir]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/npm install && npm start/);
    for (const file of ['package.json', 'tsconfig.json', 'agent.ts', 'agent.test.ts', '.gitignore'])
      expect(existsSync(join(dir, file)), file).toBe(true);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      scripts: { start: string };
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.scripts.start).toBe('exec a2actor serve agent.ts');
    expect(Object.keys(pkg.dependencies)).toEqual(['a2actor']);
    expect(Object.keys(pkg.devDependencies)).toEqual(['@types/node', 'tsx', 'typescript']);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('node_modules/\ndata/\n');
    writeFileSync(join(dir, 'agent.ts'), '// mine\n');
    const again = await cli(['init', dir]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/agent\.ts kept as it was \(not overwritten\)/);
    expect(again.stdout).not.toMatch(/wrote/);
    expect(readFileSync(join(dir, 'agent.ts'), 'utf8')).toBe('// mine\n');
  });

  it('init merges into an existing project: its fields, scripts and .gitignore lines stay', async () => {
    const dir = join(temp.dir, 'existing');
    mkdirSync(dir);
    const mine = {
      name: 'mine',
      version: '3.0.0',
      type: 'commonjs',
      scripts: { test: 'echo "Error: no test specified" && exit 1', start: 'node server.js', lint: 'eslint .' },
      dependencies: { express: '^5.0.0' },
      devDependencies: { typescript: '~5.8.0' },
    };
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(mine, null, 4)}\n`);
    writeFileSync(join(dir, '.gitignore'), 'dist\n/data');
    const run = await cli(['init', dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/package\.json scripts\.start kept \("node server\.js"\); init's is "exec a2actor serve agent\.ts"/);
    const text = readFileSync(join(dir, 'package.json'), 'utf8');
    expect(text).toMatch(/^\{\n {4}"name": "mine"/);
    expect(JSON.parse(text)).toEqual({
      ...mine,
      scripts: { test: 'node --import tsx --test agent.test.ts', start: 'node server.js', lint: 'eslint .' },
      dependencies: { express: '^5.0.0', a2actor: expect.stringMatching(/^\^\d/) },
      devDependencies: { typescript: '~5.8.0', '@types/node': expect.any(String), tsx: expect.any(String) },
    });
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('dist\n/data\nnode_modules/\n');
  });

  it('with --debug the start line points at the /chat page', async () => {
    const proc = await spawnServer(['examples/echo-agent.ts', '--store', 'memory', '--debug']);
    try {
      const page = await fetch(`${proc.url}/chat`);
      expect(page.status).toBe(200);
      await page.text();
    } finally {
      await proc.kill('SIGTERM');
    }
    const line = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'serve', 'examples/echo-agent.ts', '--store', 'memory', '--debug', '--port', '0'],
        {
          cwd: ROOT,
          env: { ...process.env, SERVICE_LOG_LEVEL: 'silent' },
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) {
          child.kill('SIGKILL');
          resolve(out);
        }
      });
      child.once('exit', () => reject(new Error(`exited before the start line: ${out}`)));
    });
    expect(line).toMatch(/listening on (http:\/\/127\.0\.0\.1:\d+) .*; debug page \1\/chat/);
  });
});
