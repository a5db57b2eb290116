/**
 * Every relative link in the README and in docs/ reaches a file the package ships, and every
 * anchor a heading of the page it names. The package carries no repository URL, so a link to a
 * file it does not ship is dead for whoever reads the README from node_modules or the registry.
 * The shipped files are npm's own list (`npm pack --dry-run --json`), not a guess of ours.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** The page's text without fenced blocks and code spans, where brackets are not links. */
function prose(markdown: string): string {
  return markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slugOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a page's headings give, repeated ones numbered as GitHub numbers them. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const noFences = markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of noFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = slugOf(m[1] as string);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Relative link targets of a page (images included); absolute URLs and mail are left out. */
export function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const m of prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1] as string;
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) targets.push(target);
  }
  return targets;
}

/** What is wrong with each relative link of `page` (empty: every one resolves). */
export function brokenLinks(page: string, read: (path: string) => string, shipped: Set<string>): string[] {
  const problems: string[] = [];
  for (const target of relativeLinks(read(page))) {
    const [path = '', anchor] = target.split('#', 2);
    const file = path === '' ? page : posix.normalize(posix.join(posix.dirname(page), decodeURIComponent(path)));
    if (!shipped.has(file)) {
      problems.push(`${page}: ${target} -> ${file} is not in the package`);
      continue;
    }
    if (anchor !== undefined && anchor !== '') {
      if (!file.endsWith('.md')) problems.push(`${page}: ${target}: an anchor into a file that is not a page`);
      else if (!anchorsOf(read(file)).has(anchor)) problems.push(`${page}: ${target}: ${file} has no heading #${anchor}`);
    }
  }
  return problems;
}

describe('links in the README and docs/', () => {
  let shipped: Set<string>;
  beforeAll(async () => {
    // --ignore-scripts: the list is what `files` selects; building dist/ would change nothing here.
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, timeout: 120_000 });
    const [pack] = JSON.parse(stdout) as { files: { path: string }[] }[];
    shipped = new Set((pack?.files ?? []).map((f) => f.path));
  }, 130_000);

  it('the package ships the README, every page of docs/ and what they show', () => {
    const pages = [...shipped].filter((f) => f.endsWith('.md'));
    expect(pages).toContain('README.md');
    expect(pages.filter((p) => p.startsWith('docs/')).length).toBeGreaterThan(5);
  });

  it('every relative link resolves to a shipped file, and every anchor to a heading', () => {
    const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
    const pages = [...shipped].filter((f) => f.endsWith('.md')).sort();
    const links = pages.flatMap((p) => relativeLinks(read(p)));
    expect(links.length).toBeGreaterThan(20);
    expect(pages.flatMap((p) => brokenLinks(p, read, shipped))).toEqual([]);
  });
});

// The checker on its own, so a checker that finds nothing cannot pass everything.
describe('the link checker', () => {
  const files: Record<string, string> = {
    'README.md':
      '# Top\n\n## Quick start\n\nSee [a](docs/a.md#the-rest), [b](docs/b.md), [c](#quick-start), [d](#nowhere),\n[e](src/x.ts), `[f](src/y.ts)`, [g](https://example.com/z.ts).\n\n```md\n[h](src/z.ts)\n```\n',
    'docs/a.md': '# A\n\n## The rest\n\nBack to [the top](../README.md#top) and [a file](../README.md#no-such-heading).\n',
  };
  const read = (p: string) => files[p] ?? '';
  const shipped = new Set(['README.md', 'docs/a.md']);

  it('finds links to files the package does not ship and anchors with no heading', () => {
    expect(brokenLinks('README.md', read, shipped)).toEqual([
      'README.md: docs/b.md -> docs/b.md is not in the package',
      'README.md: #nowhere: README.md has no heading #nowhere',
      'README.md: src/x.ts -> src/x.ts is not in the package',
    ]);
    expect(brokenLinks('docs/a.md', read, shipped)).toEqual([
      'docs/a.md: ../README.md#no-such-heading: README.md has no heading #no-such-heading',
    ]);
  });

  it('makes anchors as GitHub does', () => {
    expect(slugOf('What the server does to its process')).toBe('what-the-server-does-to-its-process');
    expect(slugOf("The handler's context")).toBe('the-handlers-context');
    expect(slugOf('`SERVICE_X` and [links](y)')).toBe('service_x-and-links');
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n')]).toEqual(['a', 'a-1']);
  });
});
