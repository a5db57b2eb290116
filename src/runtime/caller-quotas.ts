/**
 * Per-caller quotas (docs/configuration.md, "Limits and quotas"): how many streams one caller holds open and how
 * many of its tasks live in memory. Past a quota the caller gets 429 with Retry-After; other
 * callers are not affected.
 *
 * A caller is the authenticated principal. Without auth the server cannot tell callers apart
 * (their tasks have no owner either: every caller sees every task), so every request counts
 * against one shared bucket and the quotas are server-wide caps.
 */
import { A2AError, ERRORS } from '../a2a/errors.js';

/** The bucket of requests served without a principal (auth off). */
const ANONYMOUS = '';

/**
 * What a refused caller is told to wait: a slot frees as soon as one of its own streams or tasks
 * ends, which the server cannot foresee, so the hint is short.
 */
const RETRY_AFTER_SECONDS = '1';

/** A caller over a quota: 429 (REST, JSON-RPC) / RESOURCE_EXHAUSTED (v1.0), with Retry-After. */
export const overQuota = (detail: string): A2AError =>
  new A2AError(ERRORS.tooManyRequests, detail, undefined, { 'Retry-After': RETRY_AFTER_SECONDS });

/** How many of something each caller holds; a caller holding none has no entry. */
export class CallerCounts {
  private readonly held = new Map<string, number>();

  /** What `owner` (a principal id, or none without auth) holds now. */
  of(owner: string | undefined): number {
    return this.held.get(owner ?? ANONYMOUS) ?? 0;
  }

  add(owner: string | undefined): void {
    const key = owner ?? ANONYMOUS;
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
  }

  remove(owner: string | undefined): void {
    const key = owner ?? ANONYMOUS;
    const left = (this.held.get(key) ?? 0) - 1;
    if (left > 0) this.held.set(key, left);
    else this.held.delete(key);
  }
}

/** The refusal of a task past `maxPerCaller` live tasks. */
export const tooManyLiveTasks = (maxPerCaller: number): A2AError =>
  overQuota(`a caller may have ${maxPerCaller} tasks in progress at once (SERVICE_MAX_LIVE_TASKS_PER_CALLER)`);
