/**
 * Status timestamps. Each transition of a task gets a later one than the last (receivers
 * deduplicate webhooks by task id and timestamp), and formatting them is on every task's path.
 */
import type { Task } from '../a2a/schemas.js';

/**
 * A status timestamp later than the task's current one. Webhook receivers deduplicate by task
 * id and status timestamp (spec "Push notifications" 2), so two transitions in one millisecond
 * must not share one: the second moves to the next millisecond.
 */
export function nextStatusTimestamp(task: Task): string {
  return isoAt(nextStatusMs(Date.parse(task.status.timestamp)));
}

/** The next status time after `previousMs` (now, or a millisecond later); now when there is none (NaN). */
export function nextStatusMs(previousMs: number): number {
  const now = Date.now();
  return Number.isNaN(previousMs) || now > previousMs ? now : previousMs + 1;
}

/**
 * `new Date(ms).toISOString()`, cheaper: the text up to the second is formatted once per second
 * and the milliseconds come from a table (status timestamps are made several times per task).
 */
const MILLIS = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, '0')}Z`);
let secondStart = NaN;
let secondPrefix = '';
export function isoAt(ms: number): string {
  const second = ms - (((ms % 1000) + 1000) % 1000);
  if (second !== secondStart) {
    const iso = new Date(second).toISOString();
    // Years outside 0000-9999 have a longer, signed form: leave those to Date.
    if (iso.length !== 24) return new Date(ms).toISOString();
    secondStart = second;
    secondPrefix = iso.slice(0, 20);
  }
  return secondPrefix + (MILLIS[ms - second] as string);
}
