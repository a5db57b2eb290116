/**
 * Who is calling: the types an agent declares its authentication with (the card's
 * `securitySchemes` and `security`, wire reference §1.8 and §4.4) and the principal a request
 * is served for. Nothing here depends on a transport. The card's objects are the zod schemas of
 * `a2a/card-schema.ts`; their types are inferred there.
 */
import type { z } from 'zod';
import type {
  ApiKeySecuritySchemeSchema,
  HttpSecuritySchemeSchema,
  MutualTlsSecuritySchemeSchema,
  OAuth2SecuritySchemeSchema,
  OAuthFlows,
  OpenIdConnectSecuritySchemeSchema,
  SecurityRequirement,
  SecurityScheme,
} from '../a2a/card-schema.js';

/** The incoming HTTP request as an authenticator or extended-card provider sees it. */
export interface IncomingRequest {
  /** The HTTP method, upper case. */
  method: string;
  /** The path, without the query (under a mount, relative to the mount path). */
  path: string;
  /** Lower-cased header names. */
  headers: Readonly<Record<string, string>>;
}

export type ApiKeySecurityScheme = z.infer<typeof ApiKeySecuritySchemeSchema>;
export type HttpSecurityScheme = z.infer<typeof HttpSecuritySchemeSchema>;
/** One OAuth2 flow; which URLs it needs depends on the flow (see OAuthFlows). */
export type OAuthFlow = NonNullable<OAuthFlows[keyof OAuthFlows]>;
export type OAuth2SecurityScheme = z.infer<typeof OAuth2SecuritySchemeSchema>;
export type OpenIdConnectSecurityScheme = z.infer<typeof OpenIdConnectSecuritySchemeSchema>;
export type MutualTlsSecurityScheme = z.infer<typeof MutualTlsSecuritySchemeSchema>;
export type { OAuthFlows, SecurityRequirement, SecurityScheme };

/** Who a request is served for. Tasks record the `id` of the principal that created them. */
export interface Principal {
  /** Stable and unique per caller: tasks are kept per id. */
  readonly id: string;
  /** What the authenticator learnt (JWT claims, a user record, …), for the handler. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/**
 * Returns the caller's principal, or undefined when the request carries no valid credentials
 * (401). It may throw an A2A error (`unavailable()` when a key server is down: 503).
 */
export type Authenticator = (request: IncomingRequest) => Principal | undefined | Promise<Principal | undefined>;

/** The A2A operations a caller may be allowed or refused, named as their JSON-RPC methods. */
export type Operation =
  | 'message/send'
  | 'message/stream'
  | 'tasks/get'
  | 'tasks/list'
  | 'tasks/cancel'
  | 'tasks/resubscribe'
  | 'tasks/pushNotificationConfig/set'
  | 'tasks/pushNotificationConfig/get'
  | 'tasks/pushNotificationConfig/list'
  | 'tasks/pushNotificationConfig/delete'
  | 'agent/getAuthenticatedExtendedCard';

/** Whether an authenticated principal may perform an operation (false: 403). */
export type Authorizer = (principal: Principal, request: { operation: Operation; request: IncomingRequest }) => boolean | Promise<boolean>;

/**
 * One way to authenticate, with the card declaration that describes it: what the ready-made
 * authenticators (`bearerAuth`, `apiKeyAuth`, `jwtAuth`) return, and what `anyAuth` combines.
 */
export interface AuthMethod {
  /** Card `securitySchemes`: name -> scheme. */
  securitySchemes: Record<string, SecurityScheme>;
  /** Card `security` (OR of ANDs); default: any one of `securitySchemes`. */
  security?: SecurityRequirement[];
  /** Finds the caller of a request, or refuses it. */
  authenticate: Authenticator;
  /** `WWW-Authenticate` challenges sent with a 401 (e.g. `Bearer realm="a2a"`). */
  challenges?: string[];
}

/** An agent's authentication: one method (or `anyAuth(...)` of several), plus optional rules. */
export interface AgentAuth extends AuthMethod {
  /** Refuse an authenticated caller an operation (403). Default: every operation allowed. */
  authorize?: Authorizer;
  /**
   * Request headers (lower-case names) the handler may read as `ctx.headers`, e.g. a locale.
   * Credentials are never exposed this way: `authorization` and the API-key header are dropped.
   */
  exposeHeaders?: string[];
}

/**
 * The authenticated caller of one request as the runtime sees it: the principal (whose id
 * owns the tasks it creates) and the request headers the agent chose to expose.
 */
export interface Caller {
  readonly principal: Principal;
  readonly headers: Readonly<Record<string, string>>;
}
