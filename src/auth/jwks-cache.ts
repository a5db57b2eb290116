/**
 * The key lookup for a JWKS URL: a cached key set that one fetch at a time keeps fresh.
 *
 * - Nothing fetched yet: the caller waits for the fetch, and every caller arriving meanwhile
 *   waits for the same one. If it fails they all get KeySetUnavailable; the next caller tries
 *   again (there is nothing to serve in the meantime).
 * - Keys older than the max age: the caller is answered from them at once, and one refresh runs
 *   in the background. Nobody waits for a refresh of keys already in hand.
 * - An unknown `kid` (the issuer may have rotated): the caller waits for the refresh in flight, or
 *   starts one if the last attempt ended a cooldown ago, then looks again. Anyone can send any
 *   `kid`, so the cooldown is what keeps them from driving the key server.
 *
 * A failed refresh keeps the keys in hand; the key server is tried again a cooldown later. Only
 * requests start fetches: there is no timer, so a server that stops taking requests stops
 * fetching.
 */
import type { JWTVerifyGetKey } from 'jose';
import { loadJose } from './load-jose.js';
import { fetchKeySet, KeySetFetchFailed, type KeySetFetchLimits, type LocalKeySet } from './jwks-fetch.js';

export interface KeySetCacheOptions extends KeySetFetchLimits {
  /** How soon after an attempt ended an unknown `kid` may start another (stale keys too, after a failed one), in ms. */
  cooldownMs: number;
  /** How old the keys may grow before a request refreshes them, in ms. */
  maxAgeMs: number;
}

/** Thrown by the lookup when nothing was ever fetched and the fetch failed; the message says why. */
export class KeySetUnavailable extends Error {
  override name = 'KeySetUnavailable';
}

const ignore = () => undefined;

export function keySetCache(url: URL, options: KeySetCacheOptions): JWTVerifyGetKey {
  let keys: { lookup: LocalKeySet; fetchedAt: number } | undefined;
  let inFlight: Promise<void> | undefined;
  let lastAttempt: { endedAt: number; succeeded: boolean } | undefined;

  /** The fetch in flight, or a new one: never two at once. */
  const refresh = (): Promise<void> =>
    (inFlight ??= fetchKeySet(url, options).then(
      (lookup) => {
        keys = { lookup, fetchedAt: Date.now() };
        lastAttempt = { endedAt: keys.fetchedAt, succeeded: true };
        inFlight = undefined;
      },
      (err: unknown) => {
        lastAttempt = { endedAt: Date.now(), succeeded: false };
        inFlight = undefined;
        throw err;
      },
    ));

  const cooledDown = () => lastAttempt === undefined || Date.now() - lastAttempt.endedAt >= options.cooldownMs;
  /** Stale keys are refreshed at once after a fetch that worked, a cooldown after one that failed. */
  const refreshDue = (fetchedAt: number) => Date.now() - fetchedAt >= options.maxAgeMs && (lastAttempt?.succeeded === true || cooledDown());

  const firstKeys = async (): Promise<LocalKeySet> => {
    try {
      await refresh();
    } catch (err) {
      throw new KeySetUnavailable(err instanceof KeySetFetchFailed ? err.message : 'it cannot be reached');
    }
    // Set by the refresh that just succeeded.
    return keys!.lookup;
  };

  return async (header, token) => {
    let lookup: LocalKeySet;
    if (keys === undefined) {
      lookup = await firstKeys();
    } else {
      lookup = keys.lookup;
      if (inFlight === undefined && refreshDue(keys.fetchedAt)) refresh().catch(ignore);
    }
    try {
      return await lookup(header, token);
    } catch (err) {
      if (!(err instanceof (await loadJose()).errors.JWKSNoMatchingKey)) throw err;
      if (inFlight !== undefined) await inFlight.catch(ignore);
      else if (cooledDown()) await refresh().catch(ignore);
      else throw err;
      return keys!.lookup(header, token);
    }
  };
}
