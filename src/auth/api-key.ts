/** An API key in a request header (default `X-API-Key`), from a fixed set or checked by a function. */
import { credentialHeader, staticCredentials, type StaticCredentials } from './credentials.js';
import { quoted } from './bearer.js';
import type { AuthMethod, Principal } from './types.js';

/** What `apiKeyAuth` takes: exactly one of `keys` or `verify`. */
export interface ApiKeyAuthOptions {
  /** Static keys: key -> principal id (or principal). Compared in constant time. */
  keys?: StaticCredentials;
  /** Or a check of your own: the principal for a key, or undefined to refuse it. */
  verify?: (key: string) => Principal | undefined | Promise<Principal | undefined>;
  /** The header that carries the key (default `X-API-Key`). */
  header?: string;
  /** The name the card's `securitySchemes` uses for it (default `apiKey`). */
  schemeName?: string;
  /** The scheme's description on the card. */
  description?: string;
}

/** An API key in a request header (default `X-API-Key`), from a fixed set or checked by a function. */
export function apiKeyAuth(options: ApiKeyAuthOptions): AuthMethod {
  const { keys, verify } = options;
  if ((keys === undefined) === (verify === undefined)) throw new TypeError('apiKeyAuth needs exactly one of `keys` or `verify`');
  const check = keys ? staticCredentials(keys) : verify!;
  const header = options.header ?? 'X-API-Key';
  if (!/^[A-Za-z0-9-]+$/.test(header)) throw new TypeError(`apiKeyAuth: ${JSON.stringify(header)} is not a header name`);
  const lower = header.toLowerCase();
  const name = options.schemeName ?? 'apiKey';
  return {
    securitySchemes: {
      [name]: { type: 'apiKey', in: 'header', name: header, ...(options.description ? { description: options.description } : {}) },
    },
    authenticate: (request) => {
      const key = credentialHeader(request.headers, lower);
      return key === undefined ? undefined : check(key);
    },
    // No registered scheme exists for API keys; this names the header to send.
    challenges: [`ApiKey header=${quoted(header)}`],
  };
}

/**
 * The header names an API-key method reads its secret from (never exposed to handlers):
 * lower-cased, or as declared with `asDeclared`.
 */
export const credentialHeaders = (method: AuthMethod, asDeclared = false): string[] =>
  Object.values(method.securitySchemes).flatMap((s) =>
    s.type === 'apiKey' && s.in === 'header' ? [asDeclared ? s.name : s.name.toLowerCase()] : [],
  );
