/**
 * Two V8 flags that suit a server whose tasks are short-lived: how far the old generation may
 * grow between full collections, and whether V8 pretenures. Both are process-wide, so only the
 * CLI (`a2actor serve`) sets them, or an embedder who asks with createServer's `tuneHeap: true`;
 * a server mounted in someone else's process leaves them alone (README "What the server does to
 * its process"). The figures behind both choices are in docs/benchmark.md, "Why the front end
 * and the process are tuned as they are".
 *
 * Heap growth (the `heapGrowthPercent` setting): V8's own factor is dynamic and, on a machine
 * with a few GB, lets the old generation grow to several times what survived the last full
 * collection before it marks again, so RSS climbs with garbage that nothing references. A fixed
 * factor makes full collections come sooner and the peak stay near the live set, at the same CPU
 * per operation with a durable store. `auto` (the default) chooses by store: with the memory
 * store the live heap only grows (every task stays), each full collection marks all of it, and
 * a fixed factor costs CPU, so V8's own factor stays there.
 *
 * V8 reads the flag at every full collection (it computes the next limit from it), so setting it
 * once the process runs is effective: test/e2e/heap-tuning.test.ts reads V8's own trace of the
 * limits it sets. The last server to set it wins, and an operator who starts node with the flag
 * (`node --heap-growing-percent=N`) keeps theirs.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's spelling; node also accepts underscores. */
const NODE_FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/** What `auto` applies with a store whose tasks leave the heap once stored (SQLite, PostgreSQL). */
export const DURABLE_STORE_HEAP_GROWTH_PERCENT = 100;

export type HeapGrowth =
  /** The factor is 1 + percent/100 from now on. */
  | 'applied'
  /** `heapGrowthPercent: 0` (or `auto` with the memory store), or no tuning asked: V8 keeps its own dynamic factor. */
  | 'v8-default'
  /** Node was started with the flag: the operator's value stays. */
  | 'node-flag';

/** The percent a setting stands for: `auto` is 0 (V8's own) for a store that keeps its tasks in the process. */
export function heapGrowthPercentFor(setting: 'auto' | number, store: { readonly keepsTasksInProcess?: boolean }): number {
  if (setting !== 'auto') return setting;
  return store.keepsTasksInProcess ? 0 : DURABLE_STORE_HEAP_GROWTH_PERCENT;
}

/**
 * What this module has set in this process. V8's flags are process-wide and cannot be read
 * back, so the record of what we set is process-wide too: a server reports what is in force,
 * whichever server (or bench script) set it.
 */
const setHere: { heapGrowthPercent: number | undefined; pretenuringOff: boolean } = { heapGrowthPercent: undefined, pretenuringOff: false };

export function applyHeapGrowth(percent: number, execArgv: readonly string[] = process.execArgv): HeapGrowth {
  if (execArgv.some((arg) => NODE_FLAG.test(arg))) return 'node-flag';
  if (percent === 0) return 'v8-default';
  setHere.heapGrowthPercent = Math.round(percent);
  setFlagsFromString(`--heap-growing-percent=${setHere.heapGrowthPercent}`);
  return 'applied';
}

/**
 * V8's allocation-site pretenuring: once most objects from one allocation site (an object
 * literal, an array) have survived a young-generation collection, V8 allocates that site's
 * objects straight in the old generation. Under load every task's XState actor, its snapshots
 * and the runtime's task record come from such sites, and nearly all of them are decided "old"
 * during the first thousand tasks (bench/micro/turn.ts shows it). But a task lives for
 * milliseconds: born old, it and everything it points to (its statuses, messages, artifacts, the
 * young objects written into it) stay until the next full collection, and each scavenge copies
 * and promotes what those dead old objects still reference.
 *
 * Off (the default, `pretenuring: 'off'`), every object starts young and dies young: a task costs
 * less CPU and the peak RSS is lower, while a server whose objects this does not concern (the
 * official SDK's) costs the same. V8 reads the flag when it processes the sites' feedback after
 * each scavenge, so setting it once the process runs is effective (test/e2e/pretenuring.test.ts
 * sees objects born young or old accordingly). Node started with either form of the flag keeps
 * the operator's choice.
 */
const PRETENURING_FLAG = /^--(no[-_])?allocation[-_]site[-_]pretenuring$/;

/** V8's allocation-site pretenuring as a server left it: off, V8's own, or set by a node flag. */
export type Pretenuring = 'off' | 'v8' | 'node-flag';

export function applyPretenuring(setting: 'off' | 'v8', execArgv: readonly string[] = process.execArgv): Pretenuring {
  if (execArgv.some((arg) => PRETENURING_FLAG.test(arg))) return 'node-flag';
  // Setting V8's default back would undo another server's choice in the same process for nothing.
  if (setting === 'off') {
    setFlagsFromString('--no-allocation-site-pretenuring');
    setHere.pretenuringOff = true;
  }
  return setting;
}

/** What a server reports of the two flags (A2AServer.heapGrowthPercent / pretenuring, its start line). */
export interface HeapTuning {
  /** Whether this server was asked to set the flags (`tuneHeap`), or left them as it found them. */
  readonly tuned: boolean;
  /** In force now: `applied` (by this server or an earlier one in the process), V8's own, or node's flag. */
  readonly heapGrowth: HeapGrowth;
  /** The percent in force when `heapGrowth` is `applied`, else 0. */
  readonly heapGrowthPercent: number;
  /** In force now: `off` once set by this process, else V8's own, or node's flag. */
  readonly pretenuring: Pretenuring;
}

/**
 * Applies the `heapGrowthPercent` and `pretenuring` settings to this process when `tune` is
 * set; either way, reports what is in force afterwards: node's own flags, what this process set
 * (an earlier server's tuning stays: V8's default is never set back), or V8's own.
 */
export function tuneHeap(
  tune: boolean,
  settings: { readonly heapGrowthPercent: 'auto' | number; readonly pretenuring: 'off' | 'v8' },
  store: { readonly keepsTasksInProcess?: boolean },
  execArgv: readonly string[] = process.execArgv,
): HeapTuning {
  if (tune) {
    applyHeapGrowth(heapGrowthPercentFor(settings.heapGrowthPercent, store), execArgv);
    applyPretenuring(settings.pretenuring, execArgv);
  }
  const percent = setHere.heapGrowthPercent;
  const heapGrowth: HeapGrowth = execArgv.some((arg) => NODE_FLAG.test(arg))
    ? 'node-flag'
    : percent === undefined
      ? 'v8-default'
      : 'applied';
  const pretenuring: Pretenuring = execArgv.some((arg) => PRETENURING_FLAG.test(arg)) ? 'node-flag' : setHere.pretenuringOff ? 'off' : 'v8';
  return { tuned: tune, heapGrowth, heapGrowthPercent: heapGrowth === 'applied' ? (percent ?? 0) : 0, pretenuring };
}
