/** Values shared by the page's markup, its script and the tests. */

/** The selectable dashboard refresh intervals in seconds (spec item 11: exactly these). */
export const POLL_CHOICES = [0.5, 1, 2, 5, 10, 30] as const;

/** Used when `?poll=` is absent or not a positive number. */
export const DEFAULT_POLL_SECONDS = 5;

/**
 * How often the chat re-reads its own running task when the agent does not stream. Faster than
 * the dashboard on purpose: it is one task, and a person is waiting for the answer.
 */
export const TURN_POLL_MS = 300;
