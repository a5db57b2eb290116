/**
 * `npm run docs` builds the API reference without a warning: every export of the package's two
 * entry points documented, every type they name exported (or listed as a seam in typedoc.json),
 * every `{@link}` resolving. TypeDoc runs with `--treatWarningsAsErrors`, so a new export without
 * a doc comment fails here, not in a reader's browser. It takes longer than a lint step should.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

describe('the API reference', () => {
  mkdirSync(join(ROOT, 'test/.artifacts'), { recursive: true });
  const out = mkdtempSync(join(ROOT, 'test/.artifacts/api-docs-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('builds from the doc comments with no warning', async () => {
    // The npm script itself, so the test holds what `npm run docs` does; only the output moves.
    const result = await run('npm', ['run', '--silent', 'docs', '--', '--out', out], { cwd: ROOT, timeout: 240_000 }).catch(
      (err: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`npm run docs failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
      },
    );
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/warning|error/i);
    for (const page of ['index.html', 'functions/src.createServer.html', 'interfaces/src.AgentContext.html'])
      expect(existsSync(join(out, page)), page).toBe(true);
  }, 250_000);
});
