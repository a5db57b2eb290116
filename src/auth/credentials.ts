/**
 * Reading credentials out of request headers, strictly: anything malformed is simply "no
 * credentials" (401), never an exception. Values are never logged or echoed.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import type { Principal } from './types.js';

/** Longer credentials are refused unread: no real token is this long, and each costs a hash. */
export const MAX_CREDENTIAL_LENGTH = 8192;

/** One-shot SHA-256 (no Hash object per call: this runs on every authenticated request). */
const digest = (text: string): Buffer => hash('sha256', text, 'buffer');

/** `Bearer <b64token>` (RFC 6750 §2.1), the scheme name in any case. */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The token of an `Authorization: Bearer <token>` header value, or undefined for a missing,
 * differently-schemed, malformed or oversized one.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length > MAX_CREDENTIAL_LENGTH + 16) return undefined;
  return BEARER.exec(authorization)?.[1];
}

/**
 * Compares two secrets in constant time. Both sides are hashed first, so neither the content
 * nor the length of the expected secret leaks through timing.
 */
export function safeEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** A header value that is usable as a credential: present, printable ASCII, not oversized. */
export function credentialHeader(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined || value.length === 0 || value.length > MAX_CREDENTIAL_LENGTH) return undefined;
  return /^[\x21-\x7e]+$/.test(value) ? value : undefined;
}

export type StaticCredentials = Readonly<Record<string, string | Principal>>;

/**
 * A fixed set of secrets (token -> principal id or principal). Every lookup compares the
 * SHA-256 of the given secret with every known one in constant time and without stopping at
 * a match, so timing says neither which secret matched nor how much of one did.
 */
export function staticCredentials(secrets: StaticCredentials): (given: string) => Principal | undefined {
  const known = Object.entries(secrets).map(([secret, who]) => {
    if (secret.length === 0) throw new TypeError('an empty string is not a usable token or key');
    const principal: Principal = typeof who === 'string' ? { id: who } : who;
    if (!principal.id) throw new TypeError('every token or key needs a non-empty principal id');
    return { hash: digest(secret), principal };
  });
  return (given) => {
    const hash = digest(given);
    let found: Principal | undefined;
    for (const entry of known) if (timingSafeEqual(hash, entry.hash)) found ??= entry.principal;
    return found;
  };
}
