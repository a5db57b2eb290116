/** `Authorization: Bearer <token>` checked against a fixed set of tokens or by a function. */
import { bearerToken, staticCredentials, type StaticCredentials } from './credentials.js';
import type { AuthMethod, Principal } from './types.js';

/** What `bearerAuth` takes: exactly one of `tokens` or `verify`. */
export interface BearerAuthOptions {
  /** Static tokens: token -> principal id (or principal). Compared in constant time. */
  tokens?: StaticCredentials;
  /** Or a check of your own: the principal for a token, or undefined to refuse it. */
  verify?: (token: string) => Principal | undefined | Promise<Principal | undefined>;
  /** The name the card's `securitySchemes` uses for it (default `bearer`). */
  schemeName?: string;
  /** Card `bearerFormat` hint, e.g. `JWT`. */
  bearerFormat?: string;
  /** The scheme's description on the card. */
  description?: string;
  /** `realm` of the `WWW-Authenticate` challenge (default `a2a`). */
  realm?: string;
}

/** Quoted-string for a challenge parameter (RFC 9110 §5.6.4). */
export const quoted = (text: string): string => `"${text.replace(/["\\]/g, '\\$&')}"`;

/** `Authorization: Bearer <token>` checked against a fixed set of tokens or by a function. */
export function bearerAuth(options: BearerAuthOptions): AuthMethod {
  const { tokens, verify } = options;
  if ((tokens === undefined) === (verify === undefined)) throw new TypeError('bearerAuth needs exactly one of `tokens` or `verify`');
  const check = tokens ? staticCredentials(tokens) : verify!;
  const name = options.schemeName ?? 'bearer';
  return {
    securitySchemes: {
      [name]: {
        type: 'http',
        scheme: 'Bearer',
        ...(options.bearerFormat ? { bearerFormat: options.bearerFormat } : {}),
        ...(options.description ? { description: options.description } : {}),
      },
    },
    authenticate: (request) => {
      const token = bearerToken(request.headers.authorization);
      return token === undefined ? undefined : check(token);
    },
    challenges: [`Bearer realm=${quoted(options.realm ?? 'a2a')}`],
  };
}
