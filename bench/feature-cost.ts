/**
 * `npm run bench:feature-cost [-- --small <n> --large <n>]`: what bearer auth and metrics add to
 * a W1 task, in instructions. The suite's interleaved server rounds (bench/lib/auth-cost.ts) put
 * both costs inside the ±20% that two windows of one server differ by on a shared machine; CPU
 * time in one process swings as much. callgrind counts instructions instead, whatever else the
 * machine does.
 *
 * bench/micro/feature-cost.ts (the W1 path as createServer wires it, without sockets) runs once
 * per variant (`plain`, `auth`, `metrics`) and size under `valgrind --tool=callgrind node
 * --single-threaded` (no compiler or GC threads, so the count is the process's), two at a time;
 * the difference of a variant's two sizes is its instructions per request. The added
 * instructions are turned into µs at the plain path's own speed, measured natively (median of
 * three processes). Takes about eight minutes on two cores. Much smaller sizes count the JIT's
 * warm-up, not the steady path: 50 and 150 read 1.86 million instructions per request against
 * 0.36 million at the defaults, and the variants some 120,000 apart.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import PQueue from 'p-queue';
import { buildServer, type ServerBuild } from './lib/build.js';
import { ROOT } from './lib/children.js';
import { collectedInstructions, featureCostLines, instructionsPerRequest, type CallgrindRun } from './lib/instruction-cost.js';
import { median } from './lib/interleave.js';
import { runBuiltMicro } from './lib/micro-process.js';
import { FEATURE_COST_TARGET_MICROS, FEATURE_VARIANTS, type FeatureVariant } from './lib/types.js';

const SOURCE = 'bench/micro/feature-cost.ts';
/** A large run takes about three minutes under callgrind on this kind of machine. */
const CALLGRIND_KILL_MS = 15 * 60_000;

const { values } = parseArgs({ options: { small: { type: 'string' }, large: { type: 'string' } } });
const small = Number(values.small ?? 500);
const large = Number(values.large ?? 1500);
if (!(Number.isInteger(small) && Number.isInteger(large) && small > 0 && large > small)) {
  process.stderr.write('usage: npm run bench:feature-cost -- [--small <n>] [--large <n>] (requests per round, large > small)\n');
  process.exit(2);
}
if (spawnSync('valgrind', ['--version']).status !== 0) {
  process.stderr.write('bench:feature-cost needs valgrind (callgrind) on the PATH\n');
  process.exit(2);
}

interface MicroOutput {
  requests?: unknown;
  medianUs?: unknown;
}

/** `name` names the output file: a variant counted twice is run under two names. */
function underCallgrind(build: ServerBuild, dir: string, variant: FeatureVariant, perRound: number, name: string): Promise<CallgrindRun> {
  const args = [
    '--tool=callgrind',
    `--callgrind-out-file=${join(dir, `${name}-${perRound}.out`)}`,
    process.execPath,
    '--single-threaded',
    build.file(SOURCE),
    variant,
    String(perRound),
  ];
  return new Promise((resolve, reject) => {
    execFile('valgrind', args, { cwd: ROOT, timeout: CALLGRIND_KILL_MS, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const instructions = collectedInstructions(stderr);
      let out: MicroOutput = {};
      try {
        out = JSON.parse(stdout.trim()) as MicroOutput;
      } catch {
        // Reported below with the rest of what is missing.
      }
      if (err || instructions === undefined || typeof out.requests !== 'number') {
        reject(new Error(`${variant} ${perRound} under callgrind failed: ${stderr.trim().slice(-500) || err?.message}`));
        return;
      }
      resolve({ requests: out.requests, instructions });
    });
  });
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const signed = (n: number): string => `${n >= 0 ? '+' : ''}${n.toLocaleString('en-US')}`;
log('building our server with tsc ...');
const build = await buildServer();
const dir = mkdtempSync(join(tmpdir(), 'a2actor-feature-cost-'));
try {
  const native: number[] = [];
  for (let i = 0; i < 3; i++) {
    const out = (await runBuiltMicro(build, SOURCE, ['plain', '8000'], 120_000)) as MicroOutput;
    if (typeof out.medianUs !== 'number') throw new Error(`plain: unreadable output ${JSON.stringify(out)}`);
    native.push(out.medianUs);
  }
  const plainMicros = median(native);
  log(`plain path natively: ${native.join(', ')} µs CPU per request (median ${plainMicros})`);

  log(`counting instructions: ${FEATURE_VARIANTS.join(', ')} at ${small} and ${large} requests per round, under callgrind ...`);
  // `plain` is counted twice: the task ids are random and so are the hash seeds, so the same
  // path differs a little from run to run, and the second count says by how much.
  const counted: { variant: FeatureVariant; name: string }[] = [
    ...FEATURE_VARIANTS.map((variant) => ({ variant, name: variant })),
    { variant: 'plain', name: 'plain-again' },
  ];
  // Two callgrind processes at a time: the machine's cores.
  const runs = await new PQueue({ concurrency: 2 }).addAll(
    counted.flatMap(({ variant, name }) => [small, large].map((n) => () => underCallgrind(build, dir, variant, n, name))),
  );
  const perRequestOf = (i: number) => instructionsPerRequest(runs[2 * i] as CallgrindRun, runs[2 * i + 1] as CallgrindRun);
  const perRequest = {} as Record<FeatureVariant, number>;
  FEATURE_VARIANTS.forEach((variant, v) => {
    perRequest[variant] = perRequestOf(v);
  });
  const plainAgain = perRequestOf(FEATURE_VARIANTS.length);

  for (const line of featureCostLines(perRequest, plainMicros)) {
    const head = `${line.variant.padEnd(8)} ${line.instructionsPerRequest.toLocaleString('en-US')} instructions per W1 request`;
    if (line.variant === 'plain') {
      log(head);
      continue;
    }
    const target = FEATURE_COST_TARGET_MICROS[line.variant];
    log(
      `${head}: ${signed(line.addedInstructions)} (${signed(line.addedPercent)}%), ${signed(line.addedMicros)} µs at the plain path's speed ` +
        `(target at most +${target}${line.addedMicros <= target ? ' ✓' : ' ✗'})`,
    );
  }
  const spread = Math.round(plainAgain - perRequest.plain);
  log(
    `plain, counted again: ${Math.round(plainAgain).toLocaleString('en-US')} (${signed(spread)}, ` +
      `${signed(Math.round((1000 * spread) / perRequest.plain) / 10)}%): the same path's run-to-run difference; added counts within it are none`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
  build.remove();
}
