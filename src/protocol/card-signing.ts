/**
 * Signed agent cards (A2A v0.3 `AgentCard.signatures`): a JWS over the card without its
 * `signatures`, canonicalized per RFC 8785, with the payload detached (RFC 7515 Appendix F): the
 * card itself is the payload, so the signature object holds only `protected` and `signature`.
 * A verifier removes `signatures`, canonicalizes what is left and checks the JWS over it
 * (`verifyAgentCard`).
 */
import { FlattenedSign, type JWSHeaderParameters } from 'jose';
import type { AgentCardSignature } from '../a2a/card-schema.js';
import { canonicalJson } from '../a2a/canonical-json.js';
import { signingKeyOf, type CardSigningAlgorithm, type SigningKeyInput } from './signing-key.js';

/** How the server signs the cards it serves (`createServer({ cardSigning })`). */
export interface CardSigningOptions {
  /**
   * The private key: PEM text (PKCS#8, SEC1 or PKCS#1), a JWK (object or JSON text), the path of
   * a file holding either, a KeyObject or a CryptoKey. EC P-256/P-384 (ES256/ES384), RSA
   * (RS256, or PS256 with `alg`) or Ed25519 (EdDSA).
   */
  key: SigningKeyInput;
  /** `kid` of the protected header: which of the agent's published keys verifies (default: the JWK's `kid`). */
  kid?: string;
  /** `jku` of the protected header: the https URL of a JWKS holding the public key (RFC 7515 §4.1.2). */
  jku?: string;
  /** For an RSA key: RS256 (default) or PS256 (and the 384/512 forms). */
  alg?: CardSigningAlgorithm;
}

export interface CardSigner {
  readonly alg: CardSigningAlgorithm;
  readonly kid: string | undefined;
  /** The card with `signatures` holding this server's signature (any it had are replaced). */
  sign<T extends { signatures?: unknown }>(card: T): Promise<Omit<T, 'signatures'> & { signatures: AgentCardSignature[] }>;
}

/** Signatures kept by canonical card: the cards of a few base URLs and the extended cards of a few callers. */
const SIGNATURE_CACHE_LIMIT = 64;

const encoder = new TextEncoder();

/** The card as it is signed and verified: everything but `signatures`. */
export function unsignedCard<T extends { signatures?: unknown }>(card: T): Omit<T, 'signatures'> {
  const { signatures: _, ...rest } = card;
  return rest;
}

/** Checks the key and the header fields; throws a TypeError naming the problem (never the key). */
export function createCardSigner(options: CardSigningOptions): CardSigner {
  const { key, alg, kid: keyKid } = signingKeyOf(options.key, options.alg);
  const kid = options.kid ?? keyKid;
  if (kid !== undefined && (typeof kid !== 'string' || kid.length === 0))
    throw new TypeError('card signing kid must be a non-empty string');
  if (options.jku !== undefined && !/^https?:\/\/\S+$/.test(options.jku))
    throw new TypeError('card signing jku must be an http(s) URL of a JWKS');
  // `typ: JOSE` as in A2A's own example; no `crit`/`b64` (RFC 7797): the payload is base64url
  // encoded in the signing input as plain RFC 7515 says, and only left out of the serialization.
  const header: JWSHeaderParameters = { alg, typ: 'JOSE', ...(kid ? { kid } : {}), ...(options.jku ? { jku: options.jku } : {}) };
  const signatures = new Map<string, Promise<{ protected: string; signature: string }>>();

  const signatureOf = (canonical: string) => {
    let signature = signatures.get(canonical);
    if (!signature) {
      signature = new FlattenedSign(encoder.encode(canonical))
        .setProtectedHeader(header)
        .sign(key)
        // The payload is detached (RFC 7515 Appendix F): the card next to the signature is it.
        .then((jws) => ({ protected: jws.protected ?? '', signature: jws.signature }));
      if (signatures.size >= SIGNATURE_CACHE_LIMIT) signatures.clear();
      signatures.set(canonical, signature);
      signature.catch(() => signatures.delete(canonical));
    }
    return signature;
  };

  return {
    alg,
    kid,
    async sign<T extends { signatures?: unknown }>(card: T) {
      const unsigned = unsignedCard(card);
      return { ...unsigned, signatures: [await signatureOf(canonicalJson(unsigned))] };
    },
  };
}
