/**
 * The one empty list every request shares when it activates no extension and accepts any
 * output mode (the common case): frozen, so nobody can fill it, and the hot path allocates
 * nothing for features it does not use.
 */
export const NO_STRINGS: readonly string[] = Object.freeze([]);
