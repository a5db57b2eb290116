/**
 * The agent card (wire reference §1.8, §4.1): the author's card info plus the URL derived
 * from the request, both transports, the effective capabilities and the protocol version.
 */
import type { AgentCapabilities, AgentCard, AgentDefinition, Transport } from '../agent.js';
import type { SecurityRequirement, SecurityScheme } from '../auth/types.js';
import { AgentCardSchema, cardProblems } from '../a2a/card-schema.js';
import { PROTOCOL_VERSION } from './version.js';

export interface CardOptions {
  agent: AgentDefinition;
  /** What the agent's `auth` enforces (absent: no security is declared). */
  security?: { securitySchemes: Record<string, SecurityScheme>; security: SecurityRequirement[] };
  /** Every flag decided; `extensions` only when the agent declares some. */
  capabilities: Required<Omit<AgentCapabilities, 'extensions'>> & Pick<AgentCapabilities, 'extensions'>;
  preferredTransport: Transport;
  /** The gRPC listener's target (`host:port`) when gRPC is on: the card lists it as a `GRPC` interface. */
  grpcTarget?: string | undefined;
}

export function buildCard(opts: CardOptions, baseUrl: string): AgentCard {
  const { card } = opts.agent;
  const other: Transport = opts.preferredTransport === 'JSONRPC' ? 'HTTP+JSON' : 'JSONRPC';
  return {
    protocolVersion: PROTOCOL_VERSION,
    name: card.name,
    description: card.description,
    url: baseUrl,
    preferredTransport: opts.preferredTransport,
    additionalInterfaces: [
      { url: baseUrl, transport: opts.preferredTransport },
      { url: baseUrl, transport: other },
      ...(opts.grpcTarget !== undefined ? [{ url: opts.grpcTarget, transport: 'GRPC' as const }] : []),
    ],
    version: card.version,
    ...(card.provider !== undefined ? { provider: card.provider } : {}),
    ...(card.documentationUrl !== undefined ? { documentationUrl: card.documentationUrl } : {}),
    ...(card.iconUrl !== undefined ? { iconUrl: card.iconUrl } : {}),
    capabilities: { ...opts.capabilities },
    defaultInputModes: card.defaultInputModes ?? ['text/plain'],
    defaultOutputModes: card.defaultOutputModes ?? ['text/plain'],
    skills: card.skills,
    supportsAuthenticatedExtendedCard: opts.agent.extendedCard !== undefined,
    ...(opts.security ? { securitySchemes: opts.security.securitySchemes, security: opts.security.security } : {}),
  };
}

/** Stands in for the request's base URL when the card is checked at start-up. */
const SAMPLE_BASE_URL = 'http://localhost';

/**
 * Checks the public card against the A2A rules (a2a/card-schema.ts) before the server starts:
 * everything on it but the URL is fixed at start-up, so a card that is valid here is valid for
 * every request. Throws one message listing each problem by its path (`card.skills[0].tags: …`);
 * returns the card as checked (with a sample URL).
 */
export function checkCard(opts: CardOptions): AgentCard {
  const result = AgentCardSchema.safeParse(buildCard(opts, SAMPLE_BASE_URL));
  if (!result.success) throw new TypeError(`invalid agent card:\n  ${cardProblems('card', result.error).join('\n  ')}`);
  return result.data;
}

/** An extended card as the author's provider returned it, checked: the card, or its problems. */
export function parseExtendedCard(value: unknown): { ok: true; card: AgentCard } | { ok: false; problems: string[] } {
  const result = AgentCardSchema.safeParse(value);
  return result.success ? { ok: true, card: result.data } : { ok: false, problems: cardProblems('extendedCard', result.error) };
}

/**
 * The request headers a card's URLs are built from (baseUrlOf): every answer carrying a card
 * names them in `Vary`, so a shared cache never hands the card built for one client's forwarded
 * host to another.
 */
export const CARD_URL_VARY = 'Host, X-Forwarded-Host, X-Forwarded-Proto';

/**
 * The service's base URL as the client sees it: `X-Forwarded-Proto`/`X-Forwarded-Host` when a
 * proxy sets them, else the Host header. No trailing slash (clients append `/v1/...`).
 */
export function baseUrlOf(headers: Readonly<Record<string, string>>, fallbackHost: string): string {
  const first = (v: string | undefined) => v?.split(',')[0]?.trim() || undefined;
  const proto = first(headers['x-forwarded-proto']);
  const scheme = proto === 'https' || proto === 'http' ? proto : 'http';
  const rawHost = first(headers['x-forwarded-host']) ?? first(headers.host) ?? fallbackHost;
  // A host is letters, digits, dots, dashes, colons and IPv6 brackets; anything else is not trusted.
  const host = /^[A-Za-z0-9.\-:[\]]+$/.test(rawHost) ? rawHost : fallbackHost;
  return `${scheme}://${host}`;
}
