/**
 * JWT bearer tokens (OAuth2 / OpenID Connect access tokens) verified with `jose`, against the
 * issuer's JWKS URL or one key given in the options.
 *
 * Every bad token, whatever is wrong with it, is "no credentials" (undefined: a 401). The one
 * failure that is not the caller's is a key server that fails (unreachable, too slow, too large,
 * no key set) while no key set was ever fetched: that is an A2A `unavailable` error (503). Once
 * keys are in hand, an outage of the key server only costs the tokens they cannot verify, and no
 * caller waits for a refresh (see jwks-cache.ts). Tokens never appear in an error or a log.
 */
import { createPublicKey, createSecretKey, KeyObject } from 'node:crypto';
import { jwtVerify, type CryptoKey, type JWK, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { a2aError } from '../a2a/errors.js';
import { quoted } from './bearer.js';
import { bearerToken } from './credentials.js';
import { keySetCache, KeySetUnavailable } from './jwks-cache.js';
import type { AuthMethod, OAuthFlows, Principal, SecurityScheme } from './types.js';

/**
 * What the card declares: an http Bearer scheme (`bearerFormat: JWT`), an OpenID Connect
 * discovery URL, or OAuth2 flows.
 */
export type JwtCardScheme =
  | {
      /** http Bearer with `bearerFormat: JWT`. */
      type: 'bearer';
    }
  | {
      /** OpenID Connect. */
      type: 'openIdConnect';
      /** The issuer's discovery document. */
      openIdConnectUrl: string;
    }
  | {
      /** OAuth2. */
      type: 'oauth2';
      /** The flows that issue the tokens. */
      flows: OAuthFlows;
      /** The authorization server's metadata (RFC 8414). */
      oauth2MetadataUrl?: string;
    };

/** What `jwtAuth` takes: exactly one of `jwksUrl` or `key`. */
export interface JwtAuthOptions {
  /** Where the issuer publishes its public keys (e.g. `https://issuer/.well-known/jwks.json`). */
  jwksUrl?: string | URL;
  /**
   * Or the one key tokens are signed with: a public key as PEM (SPKI), JWK, KeyObject or
   * CryptoKey. A symmetric key (`oct` JWK, secret KeyObject or CryptoKey) only together with
   * `algorithms` listing HS256/HS384/HS512.
   */
  key?: string | JWK | KeyObject | CryptoKey;
  /** Accepted `iss` (one of them). Default: any. */
  issuer?: string | string[];
  /** Accepted `aud` (the token must name one of them). Default: any. */
  audience?: string | string[];
  /** Seconds of clock skew allowed when checking `exp`, `nbf` and `iat` (default 30). */
  clockTolerance?: number;
  /** Accepted `alg` values (default RS*, PS*, ES*, EdDSA). `none` never; HS* only with a symmetric `key`. */
  algorithms?: string[];
  /** The principal for a verified token, or undefined to refuse it. Default: `sub` as id, the claims beside it. */
  principal?: (payload: JWTPayload) => Principal | undefined;
  /** What the card declares (default `{ type: 'bearer' }`: http Bearer with `bearerFormat: JWT`). */
  card?: JwtCardScheme;
  /** The card's name for the scheme (default `bearer`, `oidc` or `oauth2` by card type). */
  schemeName?: string;
  /** The scheme's description on the card. */
  description?: string;
  /** `realm` of the `WWW-Authenticate` challenge (default `a2a`). */
  realm?: string;
  /** How long one JWKS fetch may take, body included, in ms (default 5000). */
  jwksTimeoutMs?: number;
  /**
   * The most bytes of JWKS body read (default 1 MiB): a larger answer is cut off and counts as a
   * failed fetch. Real key sets are a few KB; the cap keeps a broken or hostile key server from
   * filling memory.
   */
  jwksMaxBytes?: number;
  /**
   * How soon after a fetch attempt ended an unknown `kid` may fetch the JWKS again, in ms (default
   * 30000). Also how long after a failed refresh the cached keys serve alone before the key server
   * is tried again.
   */
  jwksCooldownMs?: number;
  /**
   * How old the fetched key set may grow before a request refreshes it, in ms (default 600000).
   * The request that finds it stale is still answered from it; the refresh runs beside it.
   */
  jwksMaxAgeMs?: number;
}

/** Asymmetric only: with a symmetric algorithm anyone holding the (public) key could sign. */
const DEFAULT_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const SYMMETRIC_ALGORITHMS: ReadonlySet<string> = new Set(['HS256', 'HS384', 'HS512']);

/** Followed by why, e.g. "it did not answer within jwksTimeoutMs (5000 ms)". */
const KEY_SERVER_FAILED = 'the key server (JWKS) for bearer tokens failed';

const DEFAULT_SCHEME_NAME: Readonly<Record<JwtCardScheme['type'], string>> = { bearer: 'bearer', openIdConnect: 'oidc', oauth2: 'oauth2' };

const defaultPrincipal = (payload: JWTPayload): Principal | undefined =>
  typeof payload.sub === 'string' && payload.sub.length > 0 ? { id: payload.sub, claims: payload } : undefined;

const invalid = (what: string): TypeError => new TypeError(`jwtAuth: ${what}`);

function cardScheme(card: JwtCardScheme, description: string | undefined): SecurityScheme {
  const described = description ? { description } : {};
  switch (card.type) {
    case 'bearer':
      return { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT', ...described };
    case 'openIdConnect':
      if (typeof card.openIdConnectUrl !== 'string' || card.openIdConnectUrl.length === 0)
        throw invalid('card.openIdConnectUrl must be the OpenID Connect discovery URL');
      return { type: 'openIdConnect', openIdConnectUrl: card.openIdConnectUrl, ...described };
    case 'oauth2':
      if (typeof card.flows !== 'object' || card.flows === null || Object.keys(card.flows).length === 0)
        throw invalid('card.flows must declare at least one OAuth2 flow');
      return {
        type: 'oauth2',
        flows: card.flows,
        ...(card.oauth2MetadataUrl ? { oauth2MetadataUrl: card.oauth2MetadataUrl } : {}),
        ...described,
      };
    default:
      throw invalid(`card.type must be 'bearer', 'openIdConnect' or 'oauth2'`);
  }
}

/** A non-empty string or non-empty list of them (issuer, audience), or undefined. */
function names(value: string | string[] | undefined, option: string): string | string[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || list.some((v) => typeof v !== 'string' || v.length === 0))
    throw invalid(`${option} must be a non-empty string or list of them`);
  return value;
}

function duration(value: number | undefined, fallback: number, option: string, integer = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || (integer && !Number.isInteger(value)))
    throw invalid(`${option} must be a non-negative ${integer ? 'integer' : 'number'}`);
  return value;
}

const isCryptoKey = (key: unknown): key is CryptoKey =>
  typeof key === 'object' && key !== null && (key as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'CryptoKey';

interface LocalKey {
  key: KeyObject | CryptoKey;
  symmetric: boolean;
  /** The only algorithm the key may be used with, when it says so (a JWK's `alg`). */
  alg?: string;
}

/** Checks and converts the `key` option once, at construction. */
function localKey(key: string | JWK | KeyObject | CryptoKey): LocalKey {
  const privateKey = invalid('`key` is a private key: give the public key');
  if (typeof key === 'string') {
    if (/PRIVATE KEY-----/.test(key)) throw privateKey;
    try {
      return { key: createPublicKey(key), symmetric: false };
    } catch {
      throw invalid('`key` is not a PEM public key');
    }
  }
  if (key instanceof KeyObject || isCryptoKey(key)) {
    if (key.type === 'private') throw privateKey;
    if (isCryptoKey(key) && !key.usages.includes('verify')) throw invalid("`key` is a CryptoKey without the 'verify' usage");
    return { key, symmetric: key.type === 'secret' };
  }
  if (typeof key !== 'object' || key === null || typeof key.kty !== 'string')
    throw invalid('`key` must be a PEM string, a JWK, a KeyObject or a CryptoKey');
  if (key.d !== undefined || (key as { priv?: unknown }).priv !== undefined) throw privateKey;
  if (key.use !== undefined && key.use !== 'sig') throw invalid("`key` is a JWK whose `use` is not 'sig'");
  if (Array.isArray(key.key_ops) && !key.key_ops.includes('verify')) throw invalid("`key` is a JWK whose `key_ops` lack 'verify'");
  const alg = typeof key.alg === 'string' ? key.alg : undefined;
  try {
    if (key.kty === 'oct') {
      if (typeof key.k !== 'string' || key.k.length === 0) throw new Error('no k');
      return { key: createSecretKey(Buffer.from(key.k, 'base64url')), symmetric: true, ...(alg ? { alg } : {}) };
    }
    return {
      key: createPublicKey({ key: key as JWK & Record<string, unknown>, format: 'jwk' }),
      symmetric: false,
      ...(alg ? { alg } : {}),
    };
  } catch {
    throw invalid('`key` is not a usable JWK');
  }
}

/** The accepted algorithms: never `none`, symmetric ones only (and only when listed) for a symmetric key. */
function acceptedAlgorithms(listed: string[] | undefined, symmetric: boolean, keyAlg: string | undefined): string[] {
  if (
    listed !== undefined &&
    (!Array.isArray(listed) || listed.length === 0 || listed.some((a) => typeof a !== 'string' || a.length === 0))
  )
    throw invalid('algorithms must be a non-empty list of JWS algorithm names');
  if (listed?.some((a) => a.toLowerCase() === 'none')) throw invalid("the 'none' algorithm is never accepted");
  if (symmetric) {
    if (listed === undefined || !listed.every((a) => SYMMETRIC_ALGORITHMS.has(a)))
      throw invalid('a symmetric key needs `algorithms` listing only HS256, HS384 or HS512');
  } else if (listed?.some((a) => SYMMETRIC_ALGORITHMS.has(a))) {
    throw invalid('HS256/HS384/HS512 need a symmetric `key` (never with a public key or a JWKS)');
  }
  let algorithms = [...(listed ?? DEFAULT_ALGORITHMS)];
  if (keyAlg !== undefined) {
    algorithms = algorithms.filter((a) => a === keyAlg);
    if (algorithms.length === 0) throw invalid(`the key is for ${keyAlg}, which \`algorithms\` does not accept`);
  }
  return algorithms;
}

/** JWT access tokens (OAuth2, OpenID Connect) verified against a JWKS URL or one key. */
export function jwtAuth(options: JwtAuthOptions): AuthMethod {
  if (typeof options !== 'object' || options === null) throw invalid('options are required');
  if ((options.jwksUrl === undefined) === (options.key === undefined))
    throw new TypeError('jwtAuth needs exactly one of `jwksUrl` or `key`');

  const card = options.card ?? { type: 'bearer' };
  const securitySchemes = { [options.schemeName ?? DEFAULT_SCHEME_NAME[card.type]]: cardScheme(card, options.description) };
  const issuer = names(options.issuer, 'issuer');
  const audience = names(options.audience, 'audience');
  const clockTolerance = duration(options.clockTolerance, 30, 'clockTolerance');
  if (!Number.isFinite(clockTolerance)) throw invalid('clockTolerance must be finite');
  const principalOf = options.principal ?? defaultPrincipal;
  if (typeof principalOf !== 'function') throw invalid('principal must be a function');

  let verifyWith: KeyObject | CryptoKey | JWTVerifyGetKey;
  let algorithms: string[];
  if (options.jwksUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(options.jwksUrl);
    } catch {
      throw invalid('jwksUrl is not a URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid('jwksUrl must be an http(s) URL');
    if (url.username || url.password) throw invalid('jwksUrl must not carry credentials');
    algorithms = acceptedAlgorithms(options.algorithms, false, undefined);
    const timeoutMs = duration(options.jwksTimeoutMs, 5000, 'jwksTimeoutMs', true);
    // AbortSignal.timeout takes no more than a 32-bit delay.
    if (timeoutMs === 0 || timeoutMs > 0xffff_ffff) throw invalid('jwksTimeoutMs must be positive and at most 4294967295');
    const maxBytes = duration(options.jwksMaxBytes, 1024 * 1024, 'jwksMaxBytes', true);
    if (maxBytes === 0) throw invalid('jwksMaxBytes must be positive');
    verifyWith = keySetCache(url, {
      timeoutMs,
      maxBytes,
      cooldownMs: duration(options.jwksCooldownMs, 30_000, 'jwksCooldownMs'),
      maxAgeMs: duration(options.jwksMaxAgeMs, 600_000, 'jwksMaxAgeMs'),
    });
  } else {
    const local = localKey(options.key!);
    algorithms = acceptedAlgorithms(options.algorithms, local.symmetric, local.alg);
    verifyWith = local.key;
  }

  // Built once: every request shares them. `exp` is required (RFC 9068 §2.2): a token without one never expires.
  const verifyOptions: JWTVerifyOptions = {
    algorithms,
    clockTolerance,
    requiredClaims: ['exp'],
    ...(issuer !== undefined ? { issuer } : {}),
    ...(audience !== undefined ? { audience } : {}),
  };
  const verify = (token: string) => jwtVerify(token, verifyWith, verifyOptions);

  const check = async (token: string): Promise<Principal | undefined> => {
    let payload: JWTPayload;
    try {
      ({ payload } = await verify(token));
    } catch (err) {
      // jose's errors never quote the token, but none of them is passed on anyway.
      if (err instanceof KeySetUnavailable) throw a2aError('unavailable', `${KEY_SERVER_FAILED}: ${err.message}`);
      return undefined;
    }
    return principalOf(payload);
  };

  return {
    securitySchemes,
    // No credentials at all are refused without a promise; a token is verified asynchronously.
    authenticate: (request) => {
      const token = bearerToken(request.headers.authorization);
      return token === undefined ? undefined : check(token);
    },
    challenges: [`Bearer realm=${quoted(options.realm ?? 'a2a')}`],
  };
}
