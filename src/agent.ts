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

/**
 * An extension the agent supports (wire reference §1.8, §4.3). Clients activate it per request
 * with the `X-A2A-Extensions` header; a `required` one must be activated on every A2A call.
 */
export interface AgentExtension {
  /** Identifies the extension; no whitespace or commas (it travels in a comma-separated header). */
  uri: string;
  description?: string;
  /** Every A2A request must activate it (refused with -32008 otherwise). Default false. */
  required?: boolean;
  /** Extension-specific configuration, published in the card as it is. */
  params?: Record<string, unknown>;
}

export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  stateTransitionHistory?: boolean;
  /** Served as the card's `capabilities.extensions`. */
  extensions?: AgentExtension[];
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
  /** Extension data, keyed by extension-specific names. */
  metadata?: Record<string, unknown>;
  /** URIs of the extensions this artifact uses. */
  extensions?: string[];
}

/** Parts with message-level extension data (`metadata`) and the extensions they use. */
export interface MessageContent {
  parts: Part[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
}

/**
 * Text, a list of parts, or parts with `metadata`/`extensions` (which then go on the agent's
 * message, or on the `final-answer` artifact for `complete`).
 */
export type Content = string | Part[] | MessageContent;

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
  /**
   * The extensions this turn's request activated (`X-A2A-Extensions`), among those the agent
   * declares; empty when none. Extension data goes in `metadata` of what the handler emits.
   */
  readonly extensions: readonly string[];
  /**
   * `configuration.acceptedOutputModes` of this turn's request: the MIME types the client takes
   * in parts of artifacts and messages. Empty means anything.
   */
  readonly acceptedOutputModes: readonly string[];
  /**
   * Whether the client accepts a part of this MIME type (`text/*`, `*\/*` wildcards honoured;
   * a text part is `text/plain`, a data part `application/json`). Emitting a part it does not
   * accept throws ContentTypeNotSupportedError (-32005): convert it, or the task fails.
   */
  accepts(mimeType: string): boolean;
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
