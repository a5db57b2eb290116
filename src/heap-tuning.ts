/**
 * How far V8 lets the old generation grow past what survived its last full collection before it
 * marks again (the `heapGrowthPercent` setting). V8's own factor is dynamic and, on a machine with
 * more than a few GB, goes up to 4x: under the bench soak about 55 MB survive each mark-compact
 * and V8 waits until about 230 MB of old space before the next one, so RSS climbs with garbage
 * that nothing references. A fixed factor makes the full collections come sooner and the peak
 * stay near the live set. It is off by default (it costs the memory store CPU): config.ts has
 * the measurements.
 *
 * V8 reads the flag at every full collection (it computes the next limit from it), so setting it
 * once the process runs is effective: test/e2e/heap-tuning.test.ts reads V8's own trace of the
 * limits it sets. The flag is process-wide: the last server to set it wins, and an operator who
 * starts node with the flag (`node --heap-growing-percent=N`) keeps theirs.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's spelling; node also accepts underscores. */
const NODE_FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

export type HeapGrowth =
  /** The factor is 1 + percent/100 from now on. */
  | 'applied'
  /** `heapGrowthPercent: 0`: V8 keeps its own dynamic factor. */
  | 'v8-default'
  /** Node was started with the flag: the operator's value stays. */
  | 'node-flag';

export function applyHeapGrowth(percent: number, execArgv: readonly string[] = process.execArgv): HeapGrowth {
  if (execArgv.some((arg) => NODE_FLAG.test(arg))) return 'node-flag';
  if (percent === 0) return 'v8-default';
  setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
  return 'applied';
}
