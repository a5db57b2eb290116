/**
 * The agent card and every object in it (wire reference §1.8), declared once as zod schemas; the
 * card types the package exports are inferred from them. The rules are A2A's plus what the
 * conformance checks read off a card (wire reference §5): non-blank names, http(s) URLs, MIME
 * types for modes, tagged skills, known transports, and security requirements that name
 * declared schemes. The server checks its public card with them at start-up and the extended
 * card an author's provider returns at request time.
 */
import { z } from 'zod';

/** A string with something in it besides white space. */
const nonBlank = z.string().refine((s) => s.trim().length > 0, 'must not be empty or blank');

/** An absolute http(s) URL, as clients fetch it (no white space, which `new URL` would accept around it). */
const isHttpUrl = (s: string): boolean => {
  if (/\s/.test(s)) return false;
  try {
    const url = new URL(s);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};
const httpUrl = z.string().refine(isHttpUrl, 'must be an absolute http:// or https:// URL');

/**
 * A media type as RFC 9110 §8.3.1 writes it: `type/subtype` of token characters, optionally
 * with `; name=value` parameters (`text/plain; charset=utf-8`, `*\/*`).
 */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\]*"))*$`);
const mediaType = z.string().regex(MEDIA_TYPE, 'must be a MIME type such as text/plain');
const modes = z.array(mediaType).min(1, 'must list at least one MIME type');

/** Transport names of A2A v0.3 (wire reference §4.2). */
export const TransportNameSchema = z.enum(['JSONRPC', 'HTTP+JSON', 'GRPC'], 'must be JSONRPC, HTTP+JSON or GRPC');
/** A transport a card may name. */
export type TransportName = z.infer<typeof TransportNameSchema>;

/** One alternative of a `security` list: scheme name -> the scopes it needs (all of them). */
export const SecurityRequirementSchema = z.record(z.string(), z.array(z.string()));
/** One alternative of a `security` list: scheme name -> the scopes it needs. */
export type SecurityRequirement = z.infer<typeof SecurityRequirementSchema>;

const described = { description: z.string().optional() };
const scopes = z.record(z.string(), z.string());

export const ApiKeySecuritySchemeSchema = z.object({
  type: z.literal('apiKey'),
  in: z.enum(['query', 'header', 'cookie']),
  name: nonBlank,
  ...described,
});
export const HttpSecuritySchemeSchema = z.object({
  type: z.literal('http'),
  /** e.g. `Bearer`, `Basic`. */
  scheme: nonBlank,
  bearerFormat: z.string().optional(),
  ...described,
});
/** The OAuth2 flows a scheme offers; at least one. */
export const OAuthFlowsSchema = z
  .object({
    authorizationCode: z.object({ authorizationUrl: httpUrl, tokenUrl: httpUrl, refreshUrl: httpUrl.optional(), scopes }).optional(),
    clientCredentials: z.object({ tokenUrl: httpUrl, refreshUrl: httpUrl.optional(), scopes }).optional(),
    implicit: z.object({ authorizationUrl: httpUrl, refreshUrl: httpUrl.optional(), scopes }).optional(),
    password: z.object({ tokenUrl: httpUrl, refreshUrl: httpUrl.optional(), scopes }).optional(),
  })
  .refine((flows) => Object.values(flows).some((f) => f !== undefined), 'must declare at least one OAuth2 flow');
/** The OAuth2 flows a scheme offers. */
export type OAuthFlows = z.infer<typeof OAuthFlowsSchema>;
export const OAuth2SecuritySchemeSchema = z.object({
  type: z.literal('oauth2'),
  flows: OAuthFlowsSchema,
  oauth2MetadataUrl: httpUrl.optional(),
  ...described,
});
export const OpenIdConnectSecuritySchemeSchema = z.object({
  type: z.literal('openIdConnect'),
  openIdConnectUrl: httpUrl,
  ...described,
});
export const MutualTlsSecuritySchemeSchema = z.object({ type: z.literal('mutualTLS'), ...described });
export const SecuritySchemeSchema = z.discriminatedUnion(
  'type',
  [
    ApiKeySecuritySchemeSchema,
    HttpSecuritySchemeSchema,
    OAuth2SecuritySchemeSchema,
    OpenIdConnectSecuritySchemeSchema,
    MutualTlsSecuritySchemeSchema,
  ],
  { error: 'must be a security scheme of type apiKey, http, oauth2, openIdConnect or mutualTLS' },
);
/** A card `securitySchemes` entry: apiKey, http, oauth2, openIdConnect or mutualTLS. */
export type SecurityScheme = z.infer<typeof SecuritySchemeSchema>;

/** Who offers the agent: organization and URL. */
export const AgentProviderSchema = z.object({ organization: nonBlank, url: httpUrl });
/** Who offers the agent. */
export type AgentProvider = z.infer<typeof AgentProviderSchema>;

/** An extension the agent declares: its URI, and whether every request must activate it. */
export const AgentExtensionSchema = z.object({
  uri: nonBlank.refine((s) => s === s.trim(), 'must not start or end with white space'),
  description: z.string().optional(),
  required: z.boolean().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});
/** An extension the agent declares. */
export type AgentExtension = z.infer<typeof AgentExtensionSchema>;

export const AgentCapabilitiesSchema = z.object({
  streaming: z.boolean().optional(),
  pushNotifications: z.boolean().optional(),
  stateTransitionHistory: z.boolean().optional(),
  extensions: z.array(AgentExtensionSchema).optional(),
});

export const AgentSkillSchema = z.object({
  id: nonBlank,
  name: nonBlank,
  description: nonBlank,
  tags: z.array(nonBlank).min(1, 'a skill must list at least one tag'),
  examples: z.array(z.string()).optional(),
  /** Override the card's default modes for this skill. */
  inputModes: modes.optional(),
  outputModes: modes.optional(),
  /** Card `security` for this skill (OR of ANDs over the card's `securitySchemes`). */
  security: z.array(SecurityRequirementSchema).optional(),
});
/** A skill of the card: what the agent can do, with tags and examples. */
export type AgentSkill = z.infer<typeof AgentSkillSchema>;

/** A gRPC target as clients dial it: `host:port` (an IPv6 host in brackets). */
const isGrpcTarget = (s: string): boolean => /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(s);

/** A gRPC interface's URL is the target its clients dial (`host:port`) or an http(s) URL. */
export const AgentInterfaceSchema = z
  .object({ url: z.string(), transport: TransportNameSchema })
  .refine((i) => isHttpUrl(i.url) || (i.transport === 'GRPC' && isGrpcTarget(i.url)), {
    message: 'must be an absolute http:// or https:// URL (or host:port for GRPC)',
    path: ['url'],
  });

/** JWS algorithms (RFC 7518 §3.1, RFC 8037 §3.1) a card is signed and verified with: asymmetric only. */
export const CARD_SIGNING_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA'] as const;
/** A JWS algorithm a card is signed with. */
export type CardSigningAlgorithm = (typeof CARD_SIGNING_ALGORITHMS)[number];

const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** RFC 7515 §7.2.1 flattened JWS JSON, its payload detached (Appendix F): the canonical card. */
export const AgentCardSignatureSchema = z.object({
  protected: z.string().regex(BASE64URL, 'must be a base64url JWS protected header'),
  signature: z.string().regex(BASE64URL, 'must be a base64url JWS signature'),
  header: z.record(z.string(), z.unknown()).optional(),
});
/** One signature of a card: a detached JWS. */
export type AgentCardSignature = z.infer<typeof AgentCardSignatureSchema>;

/** What an agent's author declares; URLs, transports and the protocol version are the server's. */
const authorFields = {
  name: nonBlank,
  description: nonBlank,
  /** The agent's own version, free format (`1.0.0`). */
  version: nonBlank,
  skills: z.array(AgentSkillSchema),
  provider: AgentProviderSchema.optional(),
  documentationUrl: httpUrl.optional(),
  iconUrl: httpUrl.optional(),
};

export const AgentCardInfoSchema = z.object({
  ...authorFields,
  /** Default `["text/plain"]`. */
  defaultInputModes: modes.optional(),
  /** Default `["text/plain"]`. */
  defaultOutputModes: modes.optional(),
});
/** What an agent's author declares of the card. */
export type AgentCardInfo = z.infer<typeof AgentCardInfoSchema>;

/** Where each security requirement of the card names a scheme the card does not declare. */
function checkRequirements(
  card: { securitySchemes?: Record<string, unknown>; security?: SecurityRequirement[]; skills: AgentSkill[] },
  ctx: z.RefinementCtx,
): void {
  const declared = card.securitySchemes ?? {};
  const check = (requirements: SecurityRequirement[] | undefined, path: (string | number)[]) =>
    requirements?.forEach((requirement, i) => {
      for (const name of Object.keys(requirement)) {
        if (!Object.hasOwn(declared, name)) {
          ctx.addIssue({
            code: 'custom',
            path: [...path, i, name],
            message: `names the security scheme "${name}", which securitySchemes does not declare`,
          });
        }
      }
    });
  check(card.security, ['security']);
  card.skills.forEach((skill, i) => check(skill.security, ['skills', i, 'security']));
}

/** Two skills with one id, or two extensions with one URI, cannot be told apart by a client. */
function checkUnique(
  card: { skills: AgentSkill[]; capabilities: { extensions?: AgentExtension[] | undefined } },
  ctx: z.RefinementCtx,
): void {
  const seen = new Set<string>();
  card.skills.forEach((skill, i) => {
    if (seen.has(skill.id)) ctx.addIssue({ code: 'custom', path: ['skills', i, 'id'], message: `repeats the skill id "${skill.id}"` });
    seen.add(skill.id);
  });
  const uris = new Set<string>();
  card.capabilities.extensions?.forEach((extension, i) => {
    if (uris.has(extension.uri)) {
      ctx.addIssue({ code: 'custom', path: ['capabilities', 'extensions', i, 'uri'], message: `repeats the extension "${extension.uri}"` });
    }
    uris.add(extension.uri);
  });
}

/** The full agent card as served (wire reference §1.8). */
export const AgentCardSchema = z
  .object({
    /** Clients check it starts with "0.3" (wire reference §5). */
    protocolVersion: z.string().regex(/^0\.3(\.\d+)?$/, 'must be an A2A 0.3 version such as 0.3.0'),
    ...authorFields,
    url: httpUrl,
    preferredTransport: TransportNameSchema,
    additionalInterfaces: z.array(AgentInterfaceSchema),
    capabilities: AgentCapabilitiesSchema,
    defaultInputModes: modes,
    defaultOutputModes: modes,
    supportsAuthenticatedExtendedCard: z.boolean(),
    /** Only what the server enforces (wire reference §4.4). */
    securitySchemes: z.record(z.string(), SecuritySchemeSchema).optional(),
    security: z.array(SecurityRequirementSchema).optional(),
    signatures: z.array(AgentCardSignatureSchema).optional(),
  })
  .superRefine((card, ctx) => {
    checkRequirements(card, ctx);
    checkUnique(card, ctx);
  });
/** The full agent card as served. */
export type AgentCard = z.infer<typeof AgentCardSchema>;

/** `card.skills[0].tags` from a zod issue path. */
export function pathOf(root: string, path: readonly PropertyKey[]): string {
  let out = root;
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** Every problem of a failed card parse, one `path: message` line each. */
export const cardProblems = (root: string, error: z.ZodError): string[] => error.issues.map((i) => `${pathOf(root, i.path)}: ${i.message}`);
