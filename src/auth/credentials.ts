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
 * Secrets up to this many UTF-8 bytes are compared zero-padded to it (see staticCredentials).
 * A fixed number, not the longest secret's length: which way a given secret is compared then
 * depends on its own length alone, never on the known ones'.
 */
const PADDED_BYTES = 256;

/**
 * A fixed set of secrets (token -> principal id or principal). Every lookup compares the given
 * secret with every known one in constant time and without stopping at a match, so timing says
 * neither which secret matched nor how much of one did.
 *
 * A secret of up to PADDED_BYTES is compared as it stands: both sides zero-padded to that size,
 * the byte lengths compared alongside (so `ab` is not `ab\0`). A given secret that does not fit
 * is compared as all zeros with a length that cannot match. How long a call takes depends on
 * the given secret's length, the number of known ones and whether any is longer than
 * PADDED_BYTES, nothing else. Longer known secrets are compared by their SHA-256, as every
 * secret once was: only those, because a hash per request showed in the bearer server's W1 profile
 * (`npm run bench -- --profile W1 --servers auth`).
 */
export function staticCredentials(secrets: StaticCredentials): (given: string) => Principal | undefined {
  const known = Object.entries(secrets).map(([secret, who]) => {
    if (secret.length === 0) throw new TypeError('an empty string is not a usable token or key');
    const principal: Principal = typeof who === 'string' ? { id: who } : who;
    if (!principal.id) throw new TypeError('every token or key needs a non-empty principal id');
    return { secret, bytes: Buffer.from(secret, 'utf8'), principal };
  });
  const padded = known
    .filter((k) => k.bytes.length <= PADDED_BYTES)
    .map((k) => ({ padded: Buffer.concat([k.bytes], PADDED_BYTES), length: k.bytes.length, principal: k.principal }));
  const hashed = known.filter((k) => k.bytes.length > PADDED_BYTES).map((k) => ({ hash: digest(k.secret), principal: k.principal }));
  // Reused by every call (they are synchronous): no buffer per request.
  const given = Buffer.alloc(PADDED_BYTES);
  return (secret) => {
    let found: Principal | undefined;
    if (padded.length > 0) {
      const length = Buffer.byteLength(secret, 'utf8');
      const fits = length <= PADDED_BYTES;
      // A secret that does not fit is compared as all zeros with a length no known one has.
      const comparedLength = fits ? length : -1;
      given.fill(0);
      if (fits) given.write(secret, 'utf8');
      for (const entry of padded) {
        // Both tests run for every entry: `&`, not `&&`.
        const same = Number(timingSafeEqual(given, entry.padded)) & Number(comparedLength === entry.length);
        if (same === 1) found ??= entry.principal;
      }
    }
    if (hashed.length > 0) {
      const hash = digest(secret);
      for (const entry of hashed) if (timingSafeEqual(hash, entry.hash)) found ??= entry.principal;
    }
    return found;
  };
}
