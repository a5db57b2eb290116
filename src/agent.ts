/**
 * The agent author's API: one async handler plus the card it is described by.
 */
import type { AgentAuth, IncomingRequest, Principal, SecurityRequirement, SecurityScheme } from './auth/types.js';
import type { Artifact, Message, Part, Task } from './a2a/schemas.js';

export type { IncomingRequest };

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  /** Card `security` for this skill (OR of ANDs over the card's `securitySchemes`). */
  security?: SecurityRequirement[];
}

export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  stateTransitionHistory?: boolean;
}

export interface AgentProvider {
  organization: string;
  url: string;
}

/** What the author declares; URLs, transports and the protocol version are added per request. */
export interface AgentCardInfo {
  name: string;
  description: string;
  version: string;
  skills: AgentSkill[];
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
  provider?: AgentProvider;
  documentationUrl?: string;
  iconUrl?: string;
}

/** The full agent card as served (wire reference §1.8). */
export interface AgentCard extends AgentCardInfo {
  protocolVersion: string;
  url: string;
  preferredTransport: Transport;
  additionalInterfaces: { url: string; transport: Transport }[];
  capabilities: AgentCapabilities;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  supportsAuthenticatedExtendedCard: boolean;
  /** Present only when the agent declares `auth`: the card never claims a scheme that is not enforced. */
  securitySchemes?: Record<string, SecurityScheme>;
  security?: SecurityRequirement[];
}

export type Transport = 'JSONRPC' | 'HTTP+JSON';

/**
 * Builds the authenticated extended card. Throw `unauthenticated()` (from this package) to
 * answer 401; return the card (typically the public card with more skills) otherwise.
 */
export type ExtendedCardProvider = (request: IncomingRequest, publicCard: AgentCard) => AgentCard | Promise<AgentCard>;

export interface ArtifactChunk {
  parts: Part[];
  artifactId?: string;
  name?: string;
  description?: string;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Record<string, unknown>;
}

/** Text, or a list of parts. */
export type Content = string | Part[];

/** What a handler gets for one turn of a task. */
export interface AgentContext {
  /** The message that started this turn. */
  readonly message: Message;
  /** The text of all text parts of `message`, joined by newlines. */
  readonly text: string;
  readonly taskId: string;
  readonly contextId: string;
  /** Earlier messages of this task (user and agent), oldest first, ending with `message`. */
  readonly history: readonly Message[];
  /** Artifacts the task holds so far. */
  readonly artifacts: readonly Artifact[];
  /**
   * Who sent this turn's message, when the agent declares `auth` (undefined otherwise). The
   * task belongs to this principal: no other caller can see or continue it.
   */
  readonly principal: Principal | undefined;
  /** The request headers `auth.exposeHeaders` names (lower-case), from this turn's request. */
  readonly headers: Readonly<Record<string, string>>;
  /** Fires when a client cancels the task. Stop work and return. */
  readonly signal: AbortSignal;
  /** An intermediate status (working -> working), optionally with a message. */
  status(content?: Content): void;
  /** Emit an artifact or a chunk of one. */
  artifact(chunk: ArtifactChunk): void;
  /** Finish the task; text becomes the artifact `final-answer`. */
  complete(content?: Content): void;
  fail(reason: Content): void;
  reject(reason: Content): void;
  /** Pause the task in `input-required`; the next message on this task continues it. */
  requestInput(question: Content): void;
  /** Pause the task in `auth-required`. */
  requestAuth(details: Content): void;
  /** Answer with a Message instead of a task (only on the first turn; later it completes the task). */
  reply(content: Content): void;
}

export type AgentHandler = (context: AgentContext) => Promise<void> | void;

export interface AgentDefinition {
  card: AgentCardInfo;
  capabilities?: AgentCapabilities;
  handler: AgentHandler;
  extendedCard?: ExtendedCardProvider;
  /**
   * Who may call: with it, every A2A endpoint needs credentials (401 without), the card declares
   * its `securitySchemes` and `security`, and each caller sees only the tasks it created. The
   * card, health and metrics stay public. Use `bearerAuth`, `apiKeyAuth`, `jwtAuth` or your own.
   */
  auth?: AgentAuth;
}

/** Identity helper that gives authors type checking and completion. */
export function defineAgent(definition: AgentDefinition): AgentDefinition {
  return definition;
}

export type { Artifact, Message, Part, Task };
