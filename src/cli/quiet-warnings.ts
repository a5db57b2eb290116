/**
 * The CLI's stderr without Node's ExperimentalWarning for node:sqlite and type stripping: the
 * server chose them, the user did nothing to deserve a warning at each start. Process-wide, so
 * only the CLI calls it (a library mounted in someone else's process leaves warnings alone).
 * Every other warning still goes to Node's own printer.
 */
const EXPECTED = /^(SQLite is an experimental feature|Type Stripping is an experimental feature)/;

export function hideExpectedExperimentalWarnings(): void {
  // Node prints warnings from a 'warning' listener of its own: it is kept, behind a filter.
  const printers = process.listeners('warning');
  if (printers.length === 0) return;
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error) => {
    if (warning.name === 'ExperimentalWarning' && EXPECTED.test(warning.message)) return;
    for (const print of printers) print.call(process, warning);
  });
}
