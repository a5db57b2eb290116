/**
 * How far V8 lets the old generation grow past what survived its last full collection before it
 * marks again (the `heapGrowthPercent` setting). V8's own factor is dynamic and, on a machine with
 * more than a few GB, goes up to 4x: under the bench soak about 55 MB survive each mark-compact
 * and V8 waits until about 230 MB of old space before the next one, so RSS climbs with garbage
 * that nothing references. A fixed factor makes the full collections come sooner and the peak
 * stay near the live set.
 *
 * `auto` (the default) chooses by store. Measured (2 cores, `npm run bench`): the SQLite soak
 * (7 min) peaked at 393.6 MB RSS over a settled 171.9 (2.29x) with V8's factor, and at 269.5 /
 * 271.6 over 189.0 / 186.4 (1.43x / 1.46x) with 100%, at the same CPU per operation; W1 on SQLite
 * cost the same either way (117.6 / 118.1 µs per task, medians of three alternated runs). On the
 * memory store, whose live heap only grows (every task stays), each full collection marks all of
 * it and 100% cost ~10% more CPU per W1 task: there V8's own factor stays.
 *
 * V8 reads the flag at every full collection (it computes the next limit from it), so setting it
 * once the process runs is effective: test/e2e/heap-tuning.test.ts reads V8's own trace of the
 * limits it sets. The flag is process-wide: the last server to set it wins, and an operator who
 * starts node with the flag (`node --heap-growing-percent=N`) keeps theirs.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's spelling; node also accepts underscores. */
const NODE_FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/** What `auto` applies with a store whose tasks leave the heap once stored (SQLite, PostgreSQL). */
export const DURABLE_STORE_HEAP_GROWTH_PERCENT = 100;

export type HeapGrowth =
  /** The factor is 1 + percent/100 from now on. */
  | 'applied'
  /** `heapGrowthPercent: 0` (or `auto` with the memory store): V8 keeps its own dynamic factor. */
  | 'v8-default'
  /** Node was started with the flag: the operator's value stays. */
  | 'node-flag';

/** The percent a setting stands for: `auto` is 0 (V8's own) for a store that keeps its tasks in the process. */
export function heapGrowthPercentFor(setting: 'auto' | number, store: { readonly keepsTasksInProcess?: boolean }): number {
  if (setting !== 'auto') return setting;
  return store.keepsTasksInProcess ? 0 : DURABLE_STORE_HEAP_GROWTH_PERCENT;
}

export function applyHeapGrowth(percent: number, execArgv: readonly string[] = process.execArgv): HeapGrowth {
  if (execArgv.some((arg) => NODE_FLAG.test(arg))) return 'node-flag';
  if (percent === 0) return 'v8-default';
  setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
  return 'applied';
}

/**
 * V8's allocation-site pretenuring: once most objects from one allocation site (an object
 * literal, an array) have survived a young-generation collection, V8 allocates that site's
 * objects straight in the old generation. Under load every task's XState actor, its snapshots
 * and the runtime's task record come from such sites, and they are decided "old" during the
 * first thousand tasks (109,184 of 110,208 task records were born old in bench/micro/turn.ts).
 * But a task lives for milliseconds: born old, it and everything it points to (its statuses,
 * messages, artifacts, the young objects written into it) stay until the next full collection,
 * and each scavenge copies and promotes what those dead old objects still reference.
 *
 * Off (the default, `pretenuring: 'off'`), every object starts young and dies young. Measured
 * on 2 cores: the task actor micro 51 -> 22-26 µs per task (bench/micro/task-actor.ts, two runs
 * each, with the flag at start and set here at run time alike); W1 on the memory store 180 -> 148
 * µs per task with RSS 311 -> 275 MB, while the official SDK's server, whose objects this does
 * not concern, read 362 -> 361 µs (five alternated rounds each). V8 reads the flag when it
 * processes the sites' feedback after each scavenge, so setting it once the process runs is
 * effective (test/e2e/heap-tuning.test.ts reads V8's own trace of its decisions). Process-wide;
 * node started with either form of the flag keeps the operator's choice.
 */
const PRETENURING_FLAG = /^--(no[-_])?allocation[-_]site[-_]pretenuring$/;

export type Pretenuring = 'off' | 'v8' | 'node-flag';

export function applyPretenuring(setting: 'off' | 'v8', execArgv: readonly string[] = process.execArgv): Pretenuring {
  if (execArgv.some((arg) => PRETENURING_FLAG.test(arg))) return 'node-flag';
  // Setting V8's default back would undo another server's choice in the same process for nothing.
  if (setting === 'off') setFlagsFromString('--no-allocation-site-pretenuring');
  return setting;
}
