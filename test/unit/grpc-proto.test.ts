/**
 * The generated gRPC code is what `npm run proto` makes from proto/: regenerating it into a
 * temporary folder gives the files checked in, byte for byte (nobody edits src/grpc/gen by hand,
 * and a changed .proto is not forgotten).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/server.js';

const GENERATED = 'src/grpc/gen';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('generated gRPC code', () => {
  const out = tempDir('a2actor-proto-');
  afterAll(() => out.cleanup());

  it('regenerating from proto/ gives the files checked in', () => {
    // The same command as `npm run proto`, with its output under a temporary base folder.
    execFileSync('npx', ['buf', 'generate', 'proto', '--template', 'proto/buf.gen.yaml', '--output', out.dir], { stdio: 'pipe' });
    const fresh = join(out.dir, GENERATED);
    const files = filesUnder(GENERATED);
    expect(filesUnder(fresh)).toEqual(files);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(readFileSync(join(fresh, file), 'utf8'), file).toBe(readFileSync(join(GENERATED, file), 'utf8'));
  }, 120_000);
});
