/**
 * The private key agent cards are signed with, read once at start-up: a PEM text, a JWK (object
 * or JSON text), the path of a file holding either, a KeyObject or a CryptoKey. A public or a
 * symmetric key is refused (a symmetric "signature" could be forged by anyone who can check it),
 * and so is a key this server cannot sign JWS with. Errors describe the key, never quote it.
 */
import { createPrivateKey, KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CryptoKey, JWK } from 'jose';
import { CARD_SIGNING_ALGORITHMS, type CardSigningAlgorithm } from '../a2a/card-schema.js';

export { CARD_SIGNING_ALGORITHMS, type CardSigningAlgorithm };

/** What may be given as the signing key. */
export type SigningKeyInput = string | JWK | KeyObject | CryptoKey;

export interface SigningKey {
  readonly key: KeyObject;
  readonly alg: CardSigningAlgorithm;
  /** The JWK's `kid`, when the key came as a JWK that has one. */
  readonly kid?: string;
}

const problem = (what: string): TypeError => new TypeError(`card signing key: ${what}`);

const isCryptoKey = (key: unknown): key is CryptoKey =>
  typeof key === 'object' && key !== null && (key as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'CryptoKey';

const isAlgorithm = (alg: unknown): alg is CardSigningAlgorithm => CARD_SIGNING_ALGORITHMS.includes(alg as CardSigningAlgorithm);

/** A JWK from its JSON text, refusing anything else (the text is never echoed). */
function jwkOf(text: string): JWK {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw problem('the text starts like a JWK but is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw problem('the JSON text is not a JWK object');
  return value as JWK;
}

/** PEM or JWK text as it stands; anything else is read as the path of a file holding one. */
function keyText(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN') || trimmed.startsWith('{')) return trimmed;
  // A value with line breaks or that long is key material gone wrong, not a path: never read it
  // as one (the error would name it).
  if (/[\r\n]/.test(trimmed) || trimmed.length > 4096) throw problem('the text is neither PEM nor JWK JSON');
  try {
    return readFileSync(trimmed, 'utf8').trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw problem(`the value is neither PEM nor JWK JSON, and no key file can be read at ${trimmed}${code ? ` (${code})` : ''}`);
  }
}

function fromPem(pem: string): KeyObject {
  if (/-----BEGIN (RSA |EC )?PUBLIC KEY-----|-----BEGIN CERTIFICATE-----/.test(pem)) {
    throw problem('this is a public key (or certificate): the server signs with the private key; give the public key to verifiers');
  }
  if (pem.includes('ENCRYPTED')) throw problem('the PEM key is encrypted: give it unencrypted (keep the file readable by the server only)');
  try {
    return createPrivateKey(pem);
  } catch {
    throw problem('the PEM text is not a private key (PKCS#8, SEC1 or PKCS#1)');
  }
}

function fromJwk(jwk: JWK): KeyObject {
  if (typeof jwk.kty !== 'string') throw problem('the JWK has no kty');
  if (jwk.kty === 'oct')
    throw problem('a symmetric (oct) key cannot sign a card anyone can verify: give an EC, RSA or Ed25519 private key');
  if (jwk.d === undefined) throw problem('the JWK is a public key (no "d"): the server signs with the private key');
  if (jwk.use !== undefined && jwk.use !== 'sig') throw problem(`the JWK's use is "${String(jwk.use)}", not "sig"`);
  try {
    return createPrivateKey({ key: jwk as JWK & Record<string, unknown>, format: 'jwk' });
  } catch {
    throw problem('the JWK is not a usable private key');
  }
}

/** The one algorithm for this key: set by its type and curve, or chosen (RSA) by `alg`. */
function algorithmOf(key: KeyObject, wanted: string | undefined): CardSigningAlgorithm {
  if (wanted !== undefined && !isAlgorithm(wanted)) {
    throw problem(`alg ${JSON.stringify(wanted)} is not one of ${CARD_SIGNING_ALGORITHMS.join(', ')}`);
  }
  const fixed = (alg: CardSigningAlgorithm, kind: string): CardSigningAlgorithm => {
    if (wanted !== undefined && wanted !== alg) throw problem(`${kind} key signs ${alg}, not ${wanted}`);
    return alg;
  };
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'ec': {
      // RFC 7518 §3.4: each ES algorithm is bound to one curve.
      const curves: Record<string, CardSigningAlgorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };
      const alg = curves[details.namedCurve ?? ''];
      if (!alg) throw problem(`the EC curve ${details.namedCurve ?? '(unknown)'} has no JWS algorithm: use P-256, P-384 or P-521`);
      return fixed(alg, `a ${details.namedCurve} EC`);
    }
    case 'rsa': {
      // RFC 7518 §3.3 and §3.5: 2048 bits at least.
      if ((details.modulusLength ?? 0) < 2048) throw problem(`the RSA key has ${details.modulusLength ?? 0} bits; JWS needs 2048 at least`);
      if (wanted !== undefined && !/^(RS|PS)\d+$/.test(wanted))
        throw problem(`an RSA key signs RS256 or PS256 (and the 384/512 forms), not ${wanted}`);
      return wanted ?? 'RS256';
    }
    case 'ed25519':
      return fixed('EdDSA', 'an Ed25519');
    case 'rsa-pss':
      throw problem('RSA-PSS-only keys (id-RSASSA-PSS) are not supported: give the plain RSA key with alg PS256');
    default:
      throw problem(
        `a ${key.asymmetricKeyType ?? 'non-asymmetric'} key cannot sign JWS here: give an EC (P-256, P-384), RSA or Ed25519 private key`,
      );
  }
}

function keyObjectOf(input: SigningKeyInput): { key: KeyObject; jwk?: JWK } {
  if (typeof input === 'string') {
    const text = keyText(input);
    if (!text.startsWith('{')) return { key: fromPem(text) };
    const jwk = jwkOf(text);
    return { key: fromJwk(jwk), jwk };
  }
  if (input instanceof KeyObject) return { key: input };
  if (isCryptoKey(input)) return { key: KeyObject.from(input) };
  if (typeof input === 'object' && input !== null) return { key: fromJwk(input), jwk: input };
  throw problem('give a PEM text, a JWK, the path of a key file, a KeyObject or a CryptoKey');
}

/**
 * The signing key and its algorithm. `alg` picks RS* or PS* for an RSA key (default RS256, or
 * the JWK's own `alg`); for EC and Ed25519 keys it can only repeat what the key implies.
 */
export function signingKeyOf(input: SigningKeyInput, alg?: string): SigningKey {
  const { key, jwk } = keyObjectOf(input);
  if (key.type === 'secret') throw problem('a symmetric key cannot sign a card anyone can verify: give an EC, RSA or Ed25519 private key');
  if (key.type === 'public') throw problem('this is a public key: the server signs with the private key; give the public key to verifiers');
  const jwkAlg = typeof jwk?.alg === 'string' ? jwk.alg : undefined;
  if (alg !== undefined && jwkAlg !== undefined && alg !== jwkAlg) throw problem(`the JWK is for ${jwkAlg}, not ${alg}`);
  const kid = typeof jwk?.kid === 'string' && jwk.kid.length > 0 ? jwk.kid : undefined;
  return { key, alg: algorithmOf(key, alg ?? jwkAlg), ...(kid ? { kid } : {}) };
}
