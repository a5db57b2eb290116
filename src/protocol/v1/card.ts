/**
 * One agent card for both versions (docs/architecture.md "Protocol versions"): the v0.3 card
 * plus v1.0's `supportedInterfaces` (each transport at each version), `capabilities
 * .extendedAgentCard` and `securityRequirements`. The two versions give `securitySchemes` the
 * same name and different shapes (v0.3 a `type` field, v1.0 a oneof), so that one field is
 * written in the shape of the `A2A-Version` the card is asked for; the answer varies by it.
 */
import type { AgentCard } from '../../a2a/card-schema.js';
import type { ProtocolVersion } from '../../a2a/versions.js';
import { protoSecurity, protoSecurityScheme } from '../rest-proto.js';

export interface V1AgentInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
}

type V03Scheme = NonNullable<AgentCard['securitySchemes']>[string];
type V1Scheme = ReturnType<typeof protoSecurityScheme>;
/** `securitySchemes` values of a version. */
export type SchemeOf<V extends ProtocolVersion> = V extends '0.3' ? V03Scheme : V1Scheme;

/** The card as served: v0.3's fields and v1.0's, `securitySchemes` in the asked version's shape. */
export type ServedCard<V extends ProtocolVersion = ProtocolVersion> = Omit<AgentCard, 'securitySchemes' | 'skills'> & {
  supportedInterfaces: V1AgentInterface[];
  capabilities: AgentCard['capabilities'] & { extendedAgentCard?: boolean };
  securitySchemes?: Record<string, SchemeOf<V>>;
  securityRequirements?: ReturnType<typeof protoSecurity>;
  skills: (AgentCard['skills'][number] & { securityRequirements?: ReturnType<typeof protoSecurity> })[];
};

/** The wire version each binding names in `protocolVersion`. */
const V1 = '1.0';
const V03 = '0.3';

/**
 * Every transport the card lists, at v1.0 first (clients pick the first interface they can
 * speak, and v1.0 where one binding has both), then at v0.3.
 */
function interfacesOf(card: AgentCard): V1AgentInterface[] {
  const listed = card.additionalInterfaces ?? [{ url: card.url, transport: card.preferredTransport ?? 'JSONRPC' }];
  const at = (protocolVersion: string) => listed.map((i) => ({ url: i.url, protocolBinding: i.transport, protocolVersion }));
  return [...at(V1), ...at(V03)];
}

const schemesAt = <V extends ProtocolVersion>(schemes: Record<string, V03Scheme>, version: V): Record<string, SchemeOf<V>> => {
  const shaped = (s: V03Scheme) => (version === '0.3' ? s : protoSecurityScheme(s)) as SchemeOf<V>;
  return Object.fromEntries(Object.entries(schemes).map(([name, scheme]) => [name, shaped(scheme)]));
};

export function servedCard<V extends ProtocolVersion>(card: AgentCard, version: V): ServedCard<V> {
  const { securitySchemes, security, skills, capabilities, ...rest } = card;
  const schemes = securitySchemes ? schemesAt(securitySchemes, version) : undefined;
  return {
    ...rest,
    supportedInterfaces: interfacesOf(card),
    capabilities: { ...capabilities, extendedAgentCard: card.supportsAuthenticatedExtendedCard === true },
    ...(schemes ? { securitySchemes: schemes } : {}),
    ...(security ? { security, securityRequirements: protoSecurity(security) } : {}),
    skills: skills.map((s) => (s.security ? { ...s, securityRequirements: protoSecurity(s.security) } : s)),
  };
}
