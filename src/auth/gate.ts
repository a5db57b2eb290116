/**
 * Enforcing an agent's `auth` on a request: the caller's principal or a 401 (with
 * `WWW-Authenticate`), then per operation a 403 when `authorize` refuses. Built once at start-up,
 * where a declaration that the card could not honour stops the server with a clear message.
 */
import { a2aError, A2AError, ERRORS, isA2AError } from '../a2a/errors.js';
import type { Logger } from '../log.js';
import { credentialHeaders } from './api-key.js';
import type {
  AgentAuth,
  AuthMethod,
  Authenticator,
  Caller,
  IncomingRequest,
  Operation,
  Principal,
  SecurityRequirement,
  SecurityScheme,
} from './types.js';

export interface AuthGate {
  /** The card's `securitySchemes` and `security`, as declared (and enforced). */
  readonly card: { securitySchemes: Record<string, SecurityScheme>; security: SecurityRequirement[] };
  /**
   * The caller of a request; throws (or rejects with) the 401, or the authenticator's 503.
   * Synchronous when the authenticator is (static tokens and keys): no promise on the hot path.
   */
  authenticate(request: IncomingRequest): Caller | Promise<Caller>;
  /**
   * Rejects with the 403 when the agent refuses this caller the operation; undefined (no
   * promise, nothing to wait for) when the agent has no `authorize`.
   */
  authorize(caller: Caller, operation: Operation, request: IncomingRequest): Promise<void> | undefined;
  /**
   * The 400 for a request that sent a credential header (Authorization, a declared API-key
   * header) more than once, given the names of its repeated headers; else undefined.
   */
  repeatedCredential(repeatedHeaders: readonly string[]): A2AError | undefined;
}

/** How a client is told to present each kind of scheme, for the 401's message. */
function howToPresent(scheme: SecurityScheme): string {
  switch (scheme.type) {
    case 'apiKey':
      return scheme.in === 'header' ? `an ${scheme.name} header` : `an API key (${scheme.in} ${scheme.name})`;
    case 'http':
      return `an Authorization: ${scheme.scheme} header`;
    case 'oauth2':
    case 'openIdConnect':
      return 'an Authorization: Bearer access token';
    case 'mutualTLS':
      return 'a client certificate';
  }
}

/** A method's card `security`: as declared, or by default any one of its schemes alone. */
export const requirementsOf = (method: AuthMethod): SecurityRequirement[] =>
  method.security ?? Object.keys(method.securitySchemes).map((name) => ({ [name]: [] }));

/** Checks that every requirement names declared schemes; returns the card's `security`. */
function checkedRequirements(
  where: string,
  requirements: SecurityRequirement[],
  schemes: Record<string, SecurityScheme>,
): SecurityRequirement[] {
  for (const requirement of requirements) {
    for (const name of Object.keys(requirement)) {
      if (!Object.hasOwn(schemes, name)) {
        throw new TypeError(`${where} names the security scheme ${JSON.stringify(name)}, which auth.securitySchemes does not declare`);
      }
    }
  }
  return requirements;
}

const validPrincipal = (p: unknown): p is Principal =>
  typeof p === 'object' && p !== null && typeof (p as Principal).id === 'string' && (p as Principal).id.length > 0;

/** Skill-level `security` is declared on the card: it must name schemes that are enforced. */
export function checkSkillSecurity(
  skills: readonly { id: string; security?: SecurityRequirement[] | undefined }[],
  auth: AgentAuth | undefined,
): void {
  skills.forEach((skill, i) => {
    if (!skill.security) return;
    const where = `card.skills[${i}].security: skill ${JSON.stringify(skill.id)}`;
    if (!auth) throw new TypeError(`${where} declares security, but the agent declares no auth to enforce it`);
    checkedRequirements(where, skill.security, auth.securitySchemes);
  });
}

export function createAuthGate(auth: AgentAuth, logger: Logger): AuthGate {
  const schemes = auth.securitySchemes;
  const names = Object.keys(schemes);
  if (names.length === 0) throw new TypeError('auth.securitySchemes declares no scheme: the card would ask for nothing');
  if (typeof auth.authenticate !== 'function') throw new TypeError('auth.authenticate must be a function');
  const security = checkedRequirements('auth.security', requirementsOf(auth), schemes);
  const challenge = (auth.challenges ?? []).join(', ');
  const headers: Record<string, string> = challenge ? { 'WWW-Authenticate': challenge } : {};
  const ways = [...new Set(names.map((n) => howToPresent(schemes[n] as SecurityScheme)))].join(' or ');
  const unauthenticated = new A2AError(ERRORS.unauthenticated, `send ${ways}`, undefined, headers);

  // Credentials are never handed to the handler, even if named.
  const secret = new Set(['authorization', 'cookie', ...credentialHeaders(auth)]);
  // Two values of one credential leave "which one counts" to each hop: a proxy may check the
  // first while the authenticator reads the last. Such a request is refused, never guessed at.
  const singular = new Map([
    ['authorization', 'Authorization'],
    ...credentialHeaders(auth, true).map((h) => [h.toLowerCase(), h] as const),
  ]);
  // A request that sent credentials is told they were refused, not to send some: the values
  // are never quoted, only which headers carried them. One error per set of headers sent.
  const refusals = new Map<string, A2AError>();
  const refusal = (request: IncomingRequest): A2AError => {
    const sent = [...singular].filter(([lower]) => request.headers[lower] !== undefined).map(([, name]) => name);
    if (sent.length === 0) return unauthenticated;
    const bearer = sent.length === 1 && sent[0] === 'Authorization' && /^bearer\s/i.test(request.headers.authorization ?? '');
    const key = `${bearer ? 'bearer ' : ''}${sent.join(' ')}`;
    let error = refusals.get(key);
    if (!error) {
      const what = bearer
        ? 'the bearer token in the Authorization header was'
        : sent.length === 1
          ? `the credentials in the ${sent[0]} header were`
          : `the credentials in the ${sent.join(' and ')} headers were`;
      error = new A2AError(ERRORS.unauthenticated, `${what} refused (accepted: ${ways})`, undefined, headers);
      refusals.set(key, error);
    }
    return error;
  };
  const exposed = (auth.exposeHeaders ?? []).map((h) => h.toLowerCase()).filter((h) => !secret.has(h));
  const NONE: Readonly<Record<string, string>> = Object.freeze({});
  const exposedHeaders = (request: IncomingRequest): Readonly<Record<string, string>> => {
    if (exposed.length === 0) return NONE;
    const out: Record<string, string> = {};
    for (const name of exposed) {
      const value = request.headers[name];
      if (value !== undefined) out[name] = value;
    }
    return out;
  };

  return {
    card: { securitySchemes: schemes, security },

    authenticate(request) {
      const failed = (err: unknown): never => {
        if (isA2AError(err)) throw err;
        // The error's text may quote what it was given: only its kind is logged.
        logger.warn('auth.authenticator_failed', { path: request.path, error: err instanceof Error ? err.name : typeof err });
        throw refusal(request);
      };
      const callerOf = (principal: unknown): Caller => {
        if (principal === undefined || principal === null) throw refusal(request);
        if (!validPrincipal(principal)) {
          logger.warn('auth.invalid_principal', {
            path: request.path,
            reason: 'the authenticator returned a principal without a non-empty string id',
          });
          throw refusal(request);
        }
        return { principal, headers: exposedHeaders(request) };
      };
      let result: ReturnType<Authenticator>;
      try {
        result = auth.authenticate(request);
      } catch (err) {
        return failed(err);
      }
      return result instanceof Promise ? result.then(callerOf, failed) : callerOf(result);
    },

    authorize(caller, operation, request) {
      const authorizer = auth.authorize;
      if (!authorizer) return undefined;
      return (async () => {
        let allowed = false;
        try {
          allowed = (await authorizer(caller.principal, { operation, request })) === true;
        } catch (err) {
          logger.warn('auth.authorizer_failed', { operation, error: err instanceof Error ? err.name : typeof err });
        }
        if (!allowed) throw new A2AError(ERRORS.forbidden, `${caller.principal.id} may not call ${operation}`);
      })();
    },

    repeatedCredential(repeatedHeaders) {
      for (const name of repeatedHeaders) {
        const shownName = singular.get(name);
        if (shownName) return a2aError('malformedHttp', `more than one ${shownName} header`);
      }
      return undefined;
    },
  };
}
