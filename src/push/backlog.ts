/**
 * What waits in one config's line of deliveries (one task, one webhook), and what a newer state
 * replaces. Every delivery carries the whole task, so a newer state of the same task says all
 * an older one did: an older non-final state may be replaced by a newer state and never sent.
 * A final state is never replaced (nothing follows it, so it is always the newest).
 *
 * - The line holds at most `cap` deliveries: past that, the oldest waiting non-final state is
 *   replaced by the newcomer.
 * - While the webhook's circuit is open (`squeeze`), nothing is sent anyway: every waiting
 *   non-final state is replaced by the newcomer, so at most one non-final and the final wait.
 *
 * Otherwise every transition waits its turn (spec "Push notifications" 1: every transition is
 * delivered); replacing is what a config that cannot keep up gets instead of an unbounded line.
 */

/** What the rule needs to know of a delivery. */
export interface LineEntry {
  /** The task's state is final (completed, failed, canceled, rejected). */
  readonly terminal: boolean;
}

/** Appends `job` to `line` (in place); returns the waiting jobs it replaced, oldest first. */
export function admitToLine<J extends LineEntry>(line: J[], job: J, rule: { cap: number; squeeze: boolean }): J[] {
  let replaced: J[] = [];
  if (rule.squeeze) {
    replaced = line.filter((waiting) => !waiting.terminal);
    if (replaced.length > 0) {
      const kept = line.filter((waiting) => waiting.terminal);
      line.length = 0;
      line.push(...kept);
    }
  } else if (line.length >= rule.cap) {
    const oldest = line.findIndex((waiting) => !waiting.terminal);
    if (oldest >= 0) replaced = line.splice(oldest, 1);
  }
  line.push(job);
  return replaced;
}
