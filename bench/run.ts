/**
 * `npm run bench [-- --quick | --profile <workload> | --help]`: a2actor against the @a2a-js/sdk
 * peer and the raw uWS ceiling, in one run, on this machine. Prints the table (and, with
 * --profile, where the server's CPU went); writes the JSON to bench/results/.
 */
import { fileURLToPath } from 'node:url';
import { ROOT } from './lib/children.js';
import { OptionsError, parseOptions, USAGE } from './lib/options.js';
import { formatProfile } from './lib/profile.js';
import { formatTable, SERVER_LABEL, writeReport } from './lib/report.js';
import { runSuite } from './lib/suite.js';

const RESULTS_DIR = fileURLToPath(new URL('./results', import.meta.url));

async function main(): Promise<void> {
  let options;
  try {
    options = parseOptions(process.argv.slice(2), RESULTS_DIR);
  } catch (err) {
    if (!(err instanceof OptionsError)) throw err;
    process.stderr.write(`${err.message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const report = await runSuite(options, (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`\n${formatTable(report)}\n`);
  for (const profile of report.profiles ?? []) process.stdout.write(`\n${formatProfile(profile, SERVER_LABEL[profile.server], ROOT)}\n`);
  if (options.outDir) process.stdout.write(`report: ${writeReport(report, options.outDir)}\n`);
  if (report.rows.some((r) => r.outcome === 'failed')) process.exitCode = 1;
  if (options.profile !== undefined && (report.profiles ?? []).length === 0) {
    process.stderr.write(`bench: --profile ${options.profile}: no profile was summarized (did the workload run on the servers chosen?)\n`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
