/**
 * JWT bearer tokens (OAuth2 / OpenID Connect access tokens) verified with `jose`: against a
 * JWKS URL (fetched on first use, again for an unknown `kid` at most once per cooldown, cached
 * in between) or a local public key. Every bad token is "no credentials" (401); only a key
 * server that cannot be reached while no keys were ever fetched is 503.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, errors, jwtVerify, type JWK, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { a2aError } from '../a2a/errors.js';
import { quoted } from './bearer.js';
import { bearerToken } from './credentials.js';
import type { AuthMethod, OAuthFlows, Principal, SecurityScheme } from './types.js';

/** Asymmetric algorithms only: a symmetric one would let anyone holding the public key sign. */
const DEFAULT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export type JwtCardScheme =
  | { type: 'bearer' }
  | { type: 'openIdConnect'; openIdConnectUrl: string }
  | { type: 'oauth2'; flows: OAuthFlows; oauth2MetadataUrl?: string };

export interface JwtAuthOptions {
  /** Where the issuer publishes its keys (e.g. `https://issuer/.well-known/jwks.json`). */
  jwksUrl?: string | URL;
  /** Or one public key: PEM (SPKI), a JWK, or a KeyObject. */
  key?: string | JWK | KeyObject;
  issuer?: string | string[];
  audience?: string | string[];
  /** Seconds of clock skew allowed for `exp`/`nbf`/`iat` (default 30). */
  clockTolerance?: number;
  /** Accepted `alg` values (default: RS*, PS*, ES*, EdDSA; `none` never). */
  algorithms?: string[];
  /** The principal for a verified token (default: `sub` as id, the claims beside it; no `sub`: refused). */
  principal?: (payload: JWTPayload) => Principal | undefined;
  /** What the card declares (default `{ type: 'bearer' }`: http Bearer, bearerFormat JWT). */
  card?: JwtCardScheme;
  /** The card's name for the scheme (default `bearer`, `oidc` or `oauth2` by card type). */
  schemeName?: string;
  description?: string;
  /** `realm` of the `WWW-Authenticate` challenge (default `a2a`). */
  realm?: string;
  /** How long one JWKS fetch may take (default 5000 ms). */
  jwksTimeoutMs?: number;
  /** How soon an unknown `kid` may fetch the JWKS again (default 30000 ms). */
  jwksCooldownMs?: number;
}

const defaultPrincipal = (payload: JWTPayload): Principal | undefined =>
  typeof payload.sub === 'string' && payload.sub.length > 0 ? { id: payload.sub, claims: payload } : undefined;

function cardScheme(card: JwtCardScheme, description: string | undefined): SecurityScheme {
  const described = description ? { description } : {};
  switch (card.type) {
    case 'bearer':
      return { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT', ...described };
    case 'openIdConnect':
      return { type: 'openIdConnect', openIdConnectUrl: card.openIdConnectUrl, ...described };
    case 'oauth2':
      return {
        type: 'oauth2',
        flows: card.flows,
        ...(card.oauth2MetadataUrl ? { oauth2MetadataUrl: card.oauth2MetadataUrl } : {}),
        ...described,
      };
  }
}

const DEFAULT_SCHEME_NAME: Record<JwtCardScheme['type'], string> = { bearer: 'bearer', openIdConnect: 'oidc', oauth2: 'oauth2' };

function publicKeyOf(key: string | JWK | KeyObject): KeyObject {
  try {
    if (typeof key === 'string') return createPublicKey(key);
    if ('type' in key && typeof key.type === 'string' && 'export' in key) return key as KeyObject;
    return createPublicKey({ key: key as JWK & Record<string, unknown>, format: 'jwk' });
  } catch (err) {
    throw new TypeError(`jwtAuth: the key is not a usable public key (${err instanceof Error ? err.message : String(err)})`, {
      cause: err,
    });
  }
}

/** Whether a verification failure was the key server's (not reachable, too slow, not a JWKS). */
const isKeyServerFailure = (err: unknown): boolean =>
  err instanceof errors.JWKSTimeout ||
  err instanceof errors.JWKSInvalid ||
  // A refused connection or a non-200 answer: jose passes fetch's error on, or says so itself.
  !(err instanceof errors.JOSEError) ||
  err.code === 'ERR_JOSE_GENERIC';

export function jwtAuth(options: JwtAuthOptions): AuthMethod {
  if ((options.jwksUrl === undefined) === (options.key === undefined))
    throw new TypeError('jwtAuth needs exactly one of `jwksUrl` or `key`');
  const card = options.card ?? { type: 'bearer' };
  const name = options.schemeName ?? DEFAULT_SCHEME_NAME[card.type];
  const verifyOptions: JWTVerifyOptions = {
    algorithms: options.algorithms ?? DEFAULT_ALGORITHMS,
    clockTolerance: options.clockTolerance ?? 30,
    ...(options.issuer !== undefined ? { issuer: options.issuer } : {}),
    ...(options.audience !== undefined ? { audience: options.audience } : {}),
  };
  const principalOf = options.principal ?? defaultPrincipal;

  let verify: (token: string) => Promise<JWTPayload>;
  let keysEverFetched = () => true;
  if (options.jwksUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(options.jwksUrl);
    } catch {
      throw new TypeError(`jwtAuth: jwksUrl ${JSON.stringify(String(options.jwksUrl))} is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('jwtAuth: jwksUrl must be http(s)');
    const jwks = createRemoteJWKSet(url, {
      timeoutDuration: options.jwksTimeoutMs ?? 5000,
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
    });
    verify = async (token) => (await jwtVerify(token, jwks, verifyOptions)).payload;
    keysEverFetched = () => jwks.jwks() !== undefined;
  } else {
    const key = publicKeyOf(options.key as string | JWK | KeyObject);
    verify = async (token) => (await jwtVerify(token, key, verifyOptions)).payload;
  }

  return {
    securitySchemes: { [name]: cardScheme(card, options.description) },
    authenticate: async (request) => {
      const token = bearerToken(request.headers.authorization);
      if (token === undefined) return undefined;
      let payload: JWTPayload;
      try {
        payload = await verify(token);
      } catch (err) {
        // With keys in hand, a token they cannot verify is simply invalid.
        if (isKeyServerFailure(err) && !keysEverFetched()) {
          throw a2aError('unavailable', 'the key server (JWKS) for bearer tokens cannot be reached');
        }
        return undefined;
      }
      return principalOf(payload);
    },
    challenges: [`Bearer realm=${quoted(options.realm ?? 'a2a')}`],
  };
}
