/**
 * One fetch of an issuer's key set (JWKS), bounded in time and in size: the whole exchange, body
 * included, ends within the timeout, and a body past the byte cap is cut off unread. The result is
 * jose's local key set, ready for lookups; every failure is a KeySetFetchFailed whose message says
 * what went wrong in words a 503 may carry (no URL, no body).
 */
import type { createLocalJWKSet, JSONWebKeySet } from 'jose';
import { loadJose } from './load-jose.js';

export type LocalKeySet = ReturnType<typeof createLocalJWKSet>;

export interface KeySetFetchLimits {
  /** The whole fetch, body included, in ms (`jwksTimeoutMs`). */
  timeoutMs: number;
  /** The most bytes of body read (`jwksMaxBytes`). */
  maxBytes: number;
}

export class KeySetFetchFailed extends Error {
  override name = 'KeySetFetchFailed';
}

const ACCEPT = 'application/json, application/jwk-set+json';

/** The body as text, or a KeySetFetchFailed once it passes `maxBytes` (the rest is not read). */
async function boundedText(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(maxBytes);
  }
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early cancels the stream, which releases the connection.
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = (maxBytes: number) => new KeySetFetchFailed(`its answer is larger than jwksMaxBytes (${maxBytes} bytes)`);

export async function fetchKeySet(url: URL, limits: KeySetFetchLimits): Promise<LocalKeySet> {
  // The timer behind AbortSignal.timeout does not hold the process open.
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let text: string;
  try {
    // No redirects: the configured URL is the one trusted for keys.
    const response = await fetch(url, { method: 'GET', redirect: 'manual', signal, headers: { accept: ACCEPT } });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new KeySetFetchFailed(`it answered HTTP ${response.status}`);
    }
    text = await boundedText(response, limits.maxBytes);
  } catch (err) {
    if (err instanceof KeySetFetchFailed) throw err;
    if (signal.aborted) throw new KeySetFetchFailed(`it did not answer within jwksTimeoutMs (${limits.timeoutMs} ms)`);
    throw new KeySetFetchFailed('it cannot be reached');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new KeySetFetchFailed('its answer is not JSON');
  }
  const notAKeySet = new KeySetFetchFailed('its answer is not a JSON Web Key Set');
  if (!isKeySetShaped(json)) throw notAKeySet;
  try {
    return (await loadJose()).createLocalJWKSet(json);
  } catch {
    throw notAKeySet;
  }
}

/** `{ "keys": [ {...}, ... ] }`; jose checks the members further. */
const isKeySetShaped = (json: unknown): json is JSONWebKeySet =>
  typeof json === 'object' &&
  json !== null &&
  Array.isArray((json as { keys?: unknown }).keys) &&
  (json as { keys: unknown[] }).keys.every((key) => typeof key === 'object' && key !== null && !Array.isArray(key));
