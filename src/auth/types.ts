/**
 * Who is calling: the types an agent declares its authentication with (the card's
 * `securitySchemes` and `security`, wire reference §1.8 and §4.4) and the principal a request
 * is served for. Nothing here depends on a transport.
 */

/** The incoming HTTP request as an authenticator or extended-card provider sees it. */
export interface IncomingRequest {
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Readonly<Record<string, string>>;
}

export interface ApiKeySecurityScheme {
  type: 'apiKey';
  in: 'query' | 'header' | 'cookie';
  name: string;
  description?: string;
}
export interface HttpSecurityScheme {
  type: 'http';
  /** e.g. `Bearer`, `Basic`. */
  scheme: string;
  bearerFormat?: string;
  description?: string;
}
export interface OAuthFlow {
  authorizationUrl?: string;
  tokenUrl?: string;
  refreshUrl?: string;
  scopes: Record<string, string>;
}
export interface OAuthFlows {
  authorizationCode?: OAuthFlow & { authorizationUrl: string; tokenUrl: string };
  clientCredentials?: OAuthFlow & { tokenUrl: string };
  implicit?: OAuthFlow & { authorizationUrl: string };
  password?: OAuthFlow & { tokenUrl: string };
}
export interface OAuth2SecurityScheme {
  type: 'oauth2';
  flows: OAuthFlows;
  oauth2MetadataUrl?: string;
  description?: string;
}
export interface OpenIdConnectSecurityScheme {
  type: 'openIdConnect';
  openIdConnectUrl: string;
  description?: string;
}
export interface MutualTlsSecurityScheme {
  type: 'mutualTLS';
  description?: string;
}
export type SecurityScheme =
  ApiKeySecurityScheme | HttpSecurityScheme | OAuth2SecurityScheme | OpenIdConnectSecurityScheme | MutualTlsSecurityScheme;

/** One alternative of a card's `security` list: scheme name -> required scopes (all of them). */
export type SecurityRequirement = Record<string, string[]>;

/** Who a request is served for. Tasks record the `id` of the principal that created them. */
export interface Principal {
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
