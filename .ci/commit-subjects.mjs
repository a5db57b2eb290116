// Commit subjects are at most 72 characters (README "Commit messages"). Checked for the commits
// after c449e46, the last one written before the rule: older subjects stay as history wrote them.
// A subject is git's first paragraph, so a message without the blank line after its first line
// reads as one long subject and fails too. Where that history is not there (no git, not a
// checkout, a shallow clone that stops before c449e46), the check says so and passes: it can
// only judge commits it can see.
import { execFileSync } from 'node:child_process';
import { URL, fileURLToPath } from 'node:url';

const SINCE = 'c449e4691e0db8250f45da399a026811d6de4246';
const MAX = 72;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

function git(...args) {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
}

function skip(why) {
  console.log(`commit subjects: not checked (${why})`);
  process.exit(0);
}

try {
  git('rev-parse', '--git-dir');
} catch {
  skip('no git history here');
}
try {
  git('cat-file', '-e', `${SINCE}^{commit}`);
  git('merge-base', '--is-ancestor', SINCE, 'HEAD');
} catch {
  skip(`${SINCE.slice(0, 7)} is not in this clone's history, as in a shallow clone`);
}

const commits = git('log', '--format=%h%x00%s', `${SINCE}..HEAD`).split('\n').filter(Boolean);
const long = commits.map((line) => line.split('\0')).filter(([, subject]) => [...subject].length > MAX);
if (long.length > 0) {
  for (const [hash, subject] of long) console.error(`${hash} (${[...subject].length}): ${subject}`);
  console.error(
    `commit subjects: ${long.length} of ${commits.length} after ${SINCE.slice(0, 7)} are over ${MAX} characters; ` +
      'write a short imperative subject, a blank line, then the body (git commit --amend or rebase -i)',
  );
  process.exit(1);
}
console.log(`commit subjects: ${commits.length} after ${SINCE.slice(0, 7)}, all within ${MAX} characters`);
