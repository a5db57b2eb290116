/**
 * Checking a signed agent card (see card-signing.ts): each entry of `signatures` is a JWS whose
 * detached payload (RFC 7515 Appendix F) is the RFC 8785 canonical JSON of the card without
 * `signatures`. Works on a card as fetched (parsed JSON) from any A2A server that signs this way.
 */
import { createPublicKey, KeyObject } from 'node:crypto';
import {
  base64url,
  createLocalJWKSet,
  flattenedVerify,
  type CryptoKey,
  type FlattenedVerifyGetKey,
  type JSONWebKeySet,
  type JWK,
  type KeyInput,
} from 'jose';
import { canonicalJson } from '../a2a/canonical-json.js';
import { AgentCardSignatureSchema } from '../a2a/card-schema.js';
import { CARD_SIGNING_ALGORITHMS } from './signing-key.js';
import { unsignedCard } from './card-signing.js';

/** A public key (PEM SPKI text, KeyObject, CryptoKey or JWK), or a JWKS whose key is picked by `kid`. */
export type CardVerificationKey = string | KeyObject | CryptoKey | JWK | JSONWebKeySet;

/** What `verifyAgentCard` found: a signature that checks, with its header, or why none does. */
export type CardVerification =
  | {
      /** A signature checked with the key. */
      valid: true;
      /** Its algorithm. */
      alg: string;
      /** Its protected header's `kid`. */
      kid?: string;
      /** Its protected header's `jku`. */
      jku?: string;
    }
  | {
      /** No signature checked with the key. */
      valid: false;
      /** Why, for people: unsigned, malformed, altered, or another key. */
      reason: string;
    };

const isCryptoKey = (key: unknown): key is CryptoKey =>
  typeof key === 'object' && key !== null && (key as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'CryptoKey';

const isJwks = (key: unknown): key is JSONWebKeySet =>
  typeof key === 'object' && key !== null && Array.isArray((key as { keys?: unknown }).keys);

/** The key as jose takes it; a private or symmetric key is a caller's mistake (TypeError). */
function verificationKey(key: CardVerificationKey): KeyInput | FlattenedVerifyGetKey {
  const refuse = (what: string) => new TypeError(`verifyAgentCard: ${what}`);
  if (typeof key === 'string') {
    if (/PRIVATE KEY-----/.test(key)) throw refuse('the key is a private key: give the public key');
    try {
      return createPublicKey(key);
    } catch {
      throw refuse('the key text is not a PEM public key');
    }
  }
  if (key instanceof KeyObject || isCryptoKey(key)) {
    if (key.type !== 'public') throw refuse(`the key is a ${key.type} key: give the public key`);
    return key;
  }
  if (isJwks(key)) return createLocalJWKSet(key);
  if (typeof key === 'object' && key !== null && typeof key.kty === 'string') {
    if (key.kty === 'oct' || key.d !== undefined) throw refuse('the JWK is a private or symmetric key: give the public key');
    return key;
  }
  throw refuse('give a PEM public key, a KeyObject, a CryptoKey, a JWK or a JWKS ({ keys: [...] })');
}

const reasonOf = (err: unknown): string => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${(err as Error).message}` : err instanceof Error ? err.message : String(err);
};

/**
 * Whether one of the card's signatures verifies with the key. Never throws for what the card
 * holds (unsigned, malformed, tampered: `{ valid: false, reason }`); throws a TypeError only
 * when `key` is not a usable public key. Only asymmetric algorithms are accepted (never `none`
 * or HS*: a card signed with a shared secret proves nothing to its readers).
 */
export async function verifyAgentCard(card: unknown, key: CardVerificationKey): Promise<CardVerification> {
  const verifier = verificationKey(key);
  if (typeof card !== 'object' || card === null || Array.isArray(card)) return { valid: false, reason: 'the card is not a JSON object' };
  const { signatures } = card as { signatures?: unknown };
  if (!Array.isArray(signatures) || signatures.length === 0) return { valid: false, reason: 'the card has no signatures' };
  let payload: string;
  try {
    payload = base64url.encode(canonicalJson(unsignedCard(card as { signatures?: unknown })));
  } catch (err) {
    return { valid: false, reason: `the card cannot be canonicalized: ${reasonOf(err)}` };
  }
  const failures: string[] = [];
  for (const [i, raw] of signatures.entries()) {
    const parsed = AgentCardSignatureSchema.safeParse(raw);
    if (!parsed.success) {
      failures.push(`signatures[${i}]: not a {protected, signature} object`);
      continue;
    }
    const { protected: protectedHeader, signature, header } = parsed.data;
    try {
      const result = await flattenedVerify({ protected: protectedHeader, signature, payload, ...(header ? { header } : {}) }, verifier, {
        algorithms: [...CARD_SIGNING_ALGORITHMS],
      });
      const { alg, kid, jku } = result.protectedHeader ?? {};
      return { valid: true, alg: String(alg), ...(typeof kid === 'string' ? { kid } : {}), ...(typeof jku === 'string' ? { jku } : {}) };
    } catch (err) {
      failures.push(`signatures[${i}]: ${reasonOf(err)}`);
    }
  }
  return { valid: false, reason: failures.join('; ') };
}
