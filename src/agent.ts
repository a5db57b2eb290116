/**
 * The agent author's API: one async handler plus the card it is described by.
 */
import type { AgentAuth, IncomingRequest, Principal } from './auth/types.js';
import type {
  AgentCard,
  AgentCardInfo,
  AgentCardSignature,
  AgentExtension,
  AgentProvider,
  AgentSkill,
  TransportName,
} from './a2a/card-schema.js';
import type { Artifact, Message, Part, Task } from './a2a/schemas.js';

export type { IncomingRequest };

/** What the agent offers; the settings may turn a declared capability off, never on. */
export interface AgentCapabilities {
  /** Serve `message/stream` and subscribe (default true). */
  streaming?: boolean;
  /** Take webhook configs and deliver task transitions to them (default true). */
  pushNotifications?: boolean;
  /** Keep each state entered in the task's `metadata.stateTransitions` (default true). */
  stateTransitionHistory?: boolean;
  /** Served as the card's `capabilities.extensions`. */
  extensions?: AgentExtension[];
}

/**
 * The card types are inferred from the zod schemas the server checks cards with
 * (`a2a/card-schema.ts`): `AgentCardInfo` is what the author declares (URLs, transports and the
 * protocol version are added per request), `AgentCard` the full card as served (wire reference §1.8).
 */
export type { AgentCard, AgentCardInfo, AgentCardSignature, AgentExtension, AgentProvider, AgentSkill, TransportName };

/** The transports this server serves (a card may also name `GRPC`: see TransportName). */
export type Transport = 'JSONRPC' | 'HTTP+JSON';

/**
 * Builds the authenticated extended card. Throw `unauthenticated()` (from this package) to
 * answer 401; return the card (typically the public card with more skills) otherwise. The card
 * is checked against the A2A rules before it is served (an invalid one is logged and answered
 * -32603; fields A2A does not define are dropped) and signed when the server signs cards (any
 * `signatures` returned are replaced).
 */
export type ExtendedCardProvider = (request: IncomingRequest, publicCard: AgentCard) => AgentCard | Promise<AgentCard>;

/** An artifact, or one chunk of one, as `ctx.artifact` takes it. */
export interface ArtifactChunk {
  /** The content of this chunk. */
  parts: Part[];
  /** Names the artifact; chunks of one artifact share it (generated when absent). */
  artifactId?: string;
  /** A name for people. */
  name?: string;
  /** What the artifact holds, for people. */
  description?: string;
  /** True: these parts extend the artifact's earlier chunks instead of replacing them. */
  append?: boolean;
  /** True: this is the artifact's last chunk. */
  lastChunk?: boolean;
  /** Extension data, keyed by extension-specific names. */
  metadata?: Record<string, unknown>;
  /** URIs of the extensions this artifact uses. */
  extensions?: string[];
}

/** Parts with message-level extension data (`metadata`) and the extensions they use. */
export interface MessageContent {
  /** The message's parts. */
  parts: Part[];
  /** Extension data, keyed by extension-specific names. */
  metadata?: Record<string, unknown>;
  /** URIs of the extensions this content uses. */
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
  /** The task this turn belongs to. */
  readonly taskId: string;
  /** The conversation the task belongs to. */
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
  /**
   * Fires when a client cancels the task (or the server shuts down), or when the turn runs past
   * the server's time limit (SERVICE_TURN_TIMEOUT), which fails the task at once. Stop work and
   * return: after it fires, what the handler emits is ignored. Work left running by
   * `continueInBackground` should stop too.
   */
  readonly signal: AbortSignal;
  /** An intermediate status (working -> working), optionally with a message. */
  status(content?: Content): void;
  /** Emit an artifact or a chunk of one. */
  artifact(chunk: ArtifactChunk): void;
  /** Finish the task; text becomes the artifact `final-answer`. */
  complete(content?: Content): void;
  /** End the task `failed`, with the reason as its status message. */
  fail(reason: Content): void;
  /** End the task `rejected` (the agent will not do it), with the reason as its status message. */
  reject(reason: Content): void;
  /** Pause the task in `input-required`; the next message on this task continues it. */
  requestInput(question: Content): void;
  /** Pause the task in `auth-required`. */
  requestAuth(details: Content): void;
  /** Answer with a Message instead of a task (only on the first turn; later it completes the task). */
  reply(content: Content): void;
  /**
   * Leave the task `working` when the handler returns, instead of completing it. Call it during
   * the turn, then return while work you started goes on (a promise you do not await, a job
   * queue). The turn ends: a blocking `message/send` returns the task as it stands (`working`,
   * with the artifacts emitted so far), a `message/stream` closes with a `working` status
   * marked `final`, and the task is stored. It then stays `working`, with no turn running,
   * until that work ends it through this same context (`complete`, `fail`, `reject`,
   * `requestInput`, `requestAuth`; `status` and `artifact` report progress meanwhile, to
   * subscribers, push and the store) or a client cancels it: the task ends `canceled` at once
   * and `signal` fires, so the work should watch it. A client's message on the task meanwhile
   * starts a new turn of the handler, as on a paused task: `signal` fires first and the calls
   * of the work left running are no longer taken. A handler that throws after calling this
   * still fails the task.
   *
   * The task lives in this server's memory until it ends: a restart marks it failed, like any
   * task left working, so long work belongs in a store of its own.
   */
  continueInBackground(): void;
}

/** The agent's code: runs once per turn; returning without a terminal call completes the task. */
export type AgentHandler = (context: AgentContext) => Promise<void> | void;

/** An agent: what `defineAgent` takes and an agent module exports by default. */
export interface AgentDefinition {
  /** What the author declares of the card; the server adds URLs, transports and capabilities. */
  card: AgentCardInfo;
  /** Streaming, push, state history and extensions (streaming and push on by default). */
  capabilities?: AgentCapabilities;
  /** Runs each turn of each task. */
  handler: AgentHandler;
  /** Serves the authenticated extended card; without it the extended card endpoints answer 404. */
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
