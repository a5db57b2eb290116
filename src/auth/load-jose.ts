/**
 * jose, loaded at its first use: only servers that sign cards or verify JWTs, and callers of
 * verifyAgentCard, need it, while every agent module imports this package's entry, and jose is
 * many modules to read at start-up.
 */
type Jose = typeof import('jose');

let jose: Promise<Jose> | undefined;

export const loadJose = (): Promise<Jose> => (jose ??= import('jose'));
