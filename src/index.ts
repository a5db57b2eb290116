/** Public entry of a2actor. */
export { defineAgent } from './agent.js';
export type {
  AgentCapabilities,
  AgentCard,
  AgentCardInfo,
  AgentCardSignature,
  AgentContext,
  AgentDefinition,
  AgentExtension,
  AgentHandler,
  AgentProvider,
  AgentSkill,
  ArtifactChunk,
  Content,
  ExtendedCardProvider,
  MessageContent,
  IncomingRequest,
  Transport,
  TransportName,
} from './agent.js';
/** The card's zod schemas: the rules a served card is checked by. */
export {
  AgentCardInfoSchema,
  AgentCardSchema,
  AgentCardSignatureSchema,
  AgentExtensionSchema,
  AgentProviderSchema,
  AgentSkillSchema,
  CARD_SIGNING_ALGORITHMS,
  OAuthFlowsSchema,
  SecurityRequirementSchema,
  SecuritySchemeSchema,
  TransportNameSchema,
  type OAuthFlows,
} from './a2a/card-schema.js';
export { canonicalJson, CanonicalJsonError } from './a2a/canonical-json.js';
export type { CardSigningOptions } from './protocol/card-signing.js';
export type { SigningKeyInput } from './protocol/signing-key.js';
export type { CardSigningAlgorithm } from './a2a/card-schema.js';
export { verifyAgentCard, type CardVerification, type CardVerificationKey } from './protocol/card-verify.js';
export { createServer, type A2AServer, type CreateServerOptions } from './server.js';
export type { ServerStats } from './server/front-end.js';
export type { Inspector } from './server/observability.js';
export type { FrontEndKind } from './http/exchange.js';
export type { BodyBudgetStats } from './http/body-budget.js';
export type { PushStats } from './push/dispatcher.js';
export type { Pretenuring } from './heap-tuning.js';
export type { NodeRequestHandler } from './http/node-server.js';
/** Mounting in Fastify, Hono (@hono/node-server) and Koa apps; none of them is imported. */
export {
  a2aFastify,
  a2aHono,
  a2aKoa,
  type FastifyA2APlugin,
  type FastifyScope,
  type FastifyRawReply,
  type FastifyRawRequest,
  type HonoA2AMiddleware,
  type HonoNodeContext,
  type KoaA2AMiddleware,
  type KoaNodeContext,
  type Mountable,
  type MountOptions,
} from './http/mount/index.js';
export { testAgent, A2ARequestError, type AgentTestClient, type SendOptions } from './testing.js';
export { resolveSettings, envNameOf, SettingsSchema, type Settings, type SettingsInput } from './config.js';
export { guardProcess, type ProcessGuardOptions } from './process-guard.js';
export { pause } from './pause.js';
export { createLogger, type Logger, type LogLevel } from './log.js';
export { A2AError, ERRORS, isA2AError, type ErrorEntry } from './a2a/errors.js';
export { MemoryTaskStore } from './store/memory.js';
export { SqliteTaskStore, type SqliteStoreOptions, type SqliteSynchronous } from './store/sqlite.js';
export type { SqlParams, SqlValue, SqliteDatabase, SqliteDriver, SqliteDriverName, SqliteStatement } from './store/sqlite-driver.js';
export { openStore } from './store/open.js';
export type { MessageKey, StoredPushConfig, TaskStore, TaskListQuery, TaskPage } from './store/types.js';
export type { ProtocolVersion } from './a2a/versions.js';
export {
  MemoryEventLog,
  type EventListener,
  type EventLogByteLimits,
  type EventLogStats,
  type LoggedEvent,
  type TaskEventLog,
} from './runtime/event-log.js';
export * from './a2a/schemas.js';
export {
  taskMachine,
  TASK_STATES,
  TERMINAL_STATES,
  INTERRUPTED_STATES,
  isTerminalState,
  isInterruptedState,
  wireStateOf,
  type TaskMachine,
  type TaskMachineEvent,
  type TaskMachineEventType,
  type TaskMachineContext,
  type TaskMachineInput,
} from '../machines/task.machine.js';

import { A2AError, ERRORS } from './a2a/errors.js';
import { quoted } from './auth/bearer.js';
/** Thrown by an extended-card provider to answer 401 (with `WWW-Authenticate`). */
export const unauthenticated = (realm = 'a2a'): A2AError =>
  new A2AError(ERRORS.unauthenticated, undefined, undefined, { 'WWW-Authenticate': `Bearer realm=${quoted(realm)}` });
/** Thrown by an authenticator (or provider) whose backend is down: 503, the client may retry. */
export const unavailable = (detail?: string): A2AError => new A2AError(ERRORS.unavailable, detail);
/** Thrown by an extended-card provider to refuse an authenticated caller: 403. */
export const forbidden = (detail?: string): A2AError => new A2AError(ERRORS.forbidden, detail);
export { safeEqual, bearerToken } from './auth/credentials.js';
export { bearerAuth, type BearerAuthOptions } from './auth/bearer.js';
export { apiKeyAuth, type ApiKeyAuthOptions } from './auth/api-key.js';
export { anyAuth } from './auth/any.js';
export { jwtAuth, type JwtAuthOptions, type JwtCardScheme } from './auth/jwt.js';
export type {
  AgentAuth,
  AuthMethod,
  Authenticator,
  Authorizer,
  Operation,
  Principal,
  SecurityRequirement,
  SecurityScheme,
} from './auth/types.js';
