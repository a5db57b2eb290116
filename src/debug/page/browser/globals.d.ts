/** Values the server writes in front of these scripts (src/debug/page/constants.ts). */
declare const POLL_CHOICES: readonly number[];
declare const DEFAULT_POLL_SECONDS: number;
declare const TURN_POLL_MS: number;
