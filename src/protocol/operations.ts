/**
 * The one service API behind both transports. Each operation takes the raw params object (REST
 * bodies are normalized to A2A JSON first), validates it, and calls the runtime. Capability
 * gates live here so REST and JSON-RPC refuse the same things with the same errors.
 */
import type { IncomingRequest } from '../agent.js';
import type { Caller, Operation } from '../auth/types.js';
import type { Settings } from '../config.js';
import { PushConfigs, type VersionedPushConfig } from '../push/configs.js';
import type { ProtocolVersion } from '../a2a/versions.js';
import type { TaskFeed } from '../runtime/task-feed.js';
import { openResubscribe, openTurnFeed } from '../runtime/task-feed.js';
import { StreamQuota } from '../runtime/stream-quota.js';
import { assertClientMessage } from '../runtime/size-limits.js';
import type { SendResult, TaskService } from '../runtime/task-service.js';
import { buildCard, parseExtendedCard, type CardOptions } from './card.js';
import { servedCard, type ServedCard } from './v1/card.js';
import type { CardSigner } from './card-signing.js';
import { createExtensionPolicy } from './extensions.js';
import { silentLogger, type Logger } from '../log.js';
import { A2AError, a2aError, ERRORS, isA2AError, shown } from '../a2a/errors.js';
import { JsonText } from './json-text.js';
import { promiseOf } from '../promise-of.js';
import { formatPath, freeFormTooDeep } from './json-depth.js';
import { isObject, parseParams, parseSendParams } from './params.js';
import { decodePageToken, encodePageToken } from './page-token.js';
import { normalizePushConfig } from './rest-input.js';
import {
  DeletePushConfigParamsSchema,
  GetPushConfigParamsSchema,
  ListTasksParamsSchema,
  PushNotificationConfigSchema,
  TaskIdParamsSchema,
  TaskPushNotificationConfigSchema,
  TaskQueryParamsSchema,
  type ListTasksResult,
  type Message,
  type MessageSendParams,
  type Part,
  type PushNotificationConfig,
  type Task,
  type TaskPushNotificationConfig,
} from '../a2a/schemas.js';

export interface OperationsDeps {
  service: TaskService;
  card: CardOptions;
  push: PushConfigs;
  /** Readiness checks by backend name; each throws when its backend is down. */
  readiness?: Record<string, () => Promise<void>>;
  /** Levels free-form client JSON may nest (SERVICE_MAX_JSON_DEPTH); default 64. */
  maxJsonDepth?: number;
  /** Size limits (docs/configuration.md, "Limits and quotas"); absent ones are not enforced. */
  limits?: Partial<Pick<Settings, 'listMaxBytes' | 'maxMessageBytes'>>;
  /** Signs every card served (SERVICE_CARD_SIGNING_KEY); absent: cards carry no `signatures`. */
  signer?: CardSigner;
  /** Where an invalid extended card is reported (the client only learns "Internal error"). */
  logger?: Logger;
  /** Streams one caller may hold at once (SERVICE_MAX_STREAMS_PER_CALLER); default: no limit. */
  maxStreamsPerCaller?: number;
}

/** A served card and its JSON text. */
export interface CardEntry {
  card: ServedCard;
  json: string;
}

export interface Readiness {
  ready: boolean;
  body: { status: 'ready' | 'unavailable'; checks: Record<string, string>; down?: string[] };
}

const READINESS_TIMEOUT_MS = 2000;

const CARD_CACHE_LIMIT = 32;

/**
 * The one service API both transports call. Every method takes the raw params (REST bodies
 * normalized to A2A JSON first) and, with auth on, the caller; it validates, then acts.
 */
export interface Operations {
  /**
   * The public card and its JSON for a base URL: at once when it is cached, else (when it has
   * to be signed first) a promise.
   */
  card(baseUrl: string, version?: ProtocolVersion): CardEntry | Promise<CardEntry>;
  /** `version`: the shape of `securitySchemes` (see v1/card.ts); default v0.3. */
  extendedCard<V extends ProtocolVersion = '0.3'>(request: IncomingRequest, baseUrl: string, version?: V): Promise<ServedCard<V>>;
  /** The declared extensions a request activates (`X-A2A-Extensions`); a shared empty list when none. */
  activateExtensions(headers: Readonly<Record<string, string>>): readonly string[];
  /** Throws -32008 when the operation needs a required extension the request did not activate. */
  requireExtensions(operation: Operation, activated: readonly string[]): void;
  /** `extensions`: the ones the request activated, for the handler's `ctx.extensions`. */
  /** `version`: the A2A version of the request, remembered by an inline push config (default 0.3). */
  sendMessage(
    raw: unknown,
    caller?: Caller,
    extensions?: readonly string[],
    version?: ProtocolVersion,
  ): Promise<Task | Message | JsonText<Task>>;
  streamMessage(raw: unknown, caller?: Caller, extensions?: readonly string[], version?: ProtocolVersion): Promise<TaskFeed>;
  resubscribe(raw: unknown, lastEventId: string | undefined, caller?: Caller): Promise<TaskFeed>;
  getTask(raw: unknown, caller?: Caller): Promise<Task>;
  listTasks(raw: unknown, caller?: Caller): Promise<ListTasksResult>;
  cancelTask(raw: unknown, caller?: Caller): Promise<Task>;
  /** JSON-RPC shape: `{taskId, pushNotificationConfig}`. */
  setPushConfig(raw: unknown, caller?: Caller, version?: ProtocolVersion): Promise<TaskPushNotificationConfig>;
  /** REST shape: the task id from the path, the config as the body. */
  createPushConfig(taskId: string, rawConfig: unknown, caller?: Caller, version?: ProtocolVersion): Promise<TaskPushNotificationConfig>;
  getPushConfig(raw: unknown, caller?: Caller): Promise<TaskPushNotificationConfig>;
  listPushConfigs(raw: unknown, caller?: Caller): Promise<TaskPushNotificationConfig[]>;
  deletePushConfig(raw: unknown, caller?: Caller): Promise<null>;
  readiness(): Promise<Readiness>;
  health(): { status: string };
}

/**
 * Clients send `token: ""` and `authentication: {}` for "none" on every transport (wire
 * reference §1.6), not only on REST: the config under `key` is read that way before validation.
 */
const tolerantPushConfig = (raw: unknown, key: string): unknown =>
  isObject(raw) && isObject(raw[key]) ? { ...raw, [key]: normalizePushConfig(raw[key]) } : raw;
const tolerantSendParams = (raw: unknown): unknown =>
  isObject(raw) && isObject(raw.configuration)
    ? { ...raw, configuration: tolerantPushConfig(raw.configuration, 'pushNotificationConfig') }
    : raw;

export function createOperations(deps: OperationsDeps): Operations {
  const { service, push } = deps;
  const maxJsonDepth = deps.maxJsonDepth ?? 64;

  /**
   * Free-form client JSON is stored and serialized again later: past the limit it is refused
   * here, naming the field, instead of failing a write (or the process) long after.
   */
  const assertShallow = (field: string, value: unknown): void => {
    if (value === undefined) return;
    const at = freeFormTooDeep(value, maxJsonDepth);
    if (at) {
      throw a2aError('jsonTooDeep', `${formatPath([field, ...at])} nests deeper than ${maxJsonDepth} levels (SERVICE_MAX_JSON_DEPTH)`);
    }
  };
  const checkedSend = (params: MessageSendParams, version: ProtocolVersion | undefined): MessageSendParams => {
    assertShallow('metadata', params.metadata);
    const inline = params.configuration?.pushNotificationConfig;
    if (inline && version !== undefined && version !== '0.3') {
      params.configuration = { ...params.configuration, pushNotificationConfig: versioned(inline, version) };
    }
    assertShallow('message.metadata', params.message.metadata);
    if (deps.limits?.maxMessageBytes !== undefined) assertClientMessage(params.message, { maxMessageBytes: deps.limits.maxMessageBytes });
    const parts = params.message.parts;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as Part;
      assertShallow(`message.parts[${i}].metadata`, part.metadata);
      if (part.kind === 'data') assertShallow(`message.parts[${i}].data`, part.data);
    }
    return params;
  };
  /** A config with the version it is registered in; v0.3's, the default, is left out. */
  const versioned = (config: PushNotificationConfig, version: ProtocolVersion | undefined): VersionedPushConfig =>
    version !== undefined && version !== '0.3' ? { ...config, protocolVersion: version } : config;
  /** Params of the read/cancel/push calls: their only free-form field is `metadata`. */
  const checked = <T extends { metadata?: Record<string, unknown> | undefined }>(params: T): T => {
    assertShallow('metadata', params.metadata);
    return params;
  };
  const caps = deps.card.capabilities;
  // A capability gate like streaming and push: both transports refuse the same requests.
  const extensions = createExtensionPolicy(caps.extensions);
  const { signer } = deps;
  const logger = deps.logger ?? silentLogger;
  const streams = new StreamQuota(deps.maxStreamsPerCaller ?? Infinity);
  const cardCache = new Map<string, CardEntry | Promise<CardEntry>>();
  const remember = (baseUrl: string, entry: CardEntry | Promise<CardEntry>) => {
    if (cardCache.size >= CARD_CACHE_LIMIT) cardCache.clear();
    cardCache.set(baseUrl, entry);
  };

  const requirePush = () => {
    if (!caps.pushNotifications) throw a2aError('pushNotSupported');
  };
  const requireStreaming = () => {
    if (!caps.streaming) throw a2aError('streamingNotSupported');
  };
  /** Push config calls on an unknown task (or, with auth on, another caller's) are -32001. */
  const requireTask = async (taskId: string, caller: Caller | undefined) => {
    await service.getTask(taskId, 0, caller?.principal.id);
  };

  /** A finished task's stored JSON, with the task it was made from (it no longer changes: task-service.ts). */
  const resultOf = (r: SendResult): Task | Message | JsonText<Task> =>
    r.kind === 'message' ? r.message : r.json !== undefined ? new JsonText(r.json, r.task) : r.task;

  return {
    /**
     * The public card and its JSON, cached per base URL (the URL is the only varying part). A
     * signed card is signed once per base URL: concurrent first requests share the signing.
     */
    card(baseUrl: string, version: ProtocolVersion = '0.3'): CardEntry | Promise<CardEntry> {
      const key = version === '0.3' ? baseUrl : `${version} ${baseUrl}`;
      const hit = cardCache.get(key);
      if (hit) return hit;
      const card = servedCard(buildCard(deps.card, baseUrl), version);
      if (!signer) {
        const entry = { card, json: JSON.stringify(card) };
        remember(key, entry);
        return entry;
      }
      const signing = signer.sign(card).then(
        (signed) => {
          const entry = { card: signed, json: JSON.stringify(signed) };
          if (cardCache.get(key) === signing) cardCache.set(key, entry);
          return entry;
        },
        (err: unknown) => {
          if (cardCache.get(key) === signing) cardCache.delete(key);
          throw err;
        },
      );
      remember(key, signing);
      return signing;
    },

    async extendedCard<V extends ProtocolVersion = '0.3'>(request: IncomingRequest, baseUrl: string, version?: V): Promise<ServedCard<V>> {
      const provider = deps.card.agent.extendedCard;
      if (!provider) throw a2aError('extendedCardNotConfigured');
      const publicCard = structuredClone(buildCard(deps.card, baseUrl));
      let returned: unknown;
      try {
        returned = await provider(request, publicCard);
      } catch (err) {
        if (isA2AError(err)) throw err;
        throw a2aError('internal', 'the extended card provider failed');
      }
      // The card is the author's code's answer, built per request: checked here, every time. What
      // is wrong goes to the log; the client learns only that the server failed.
      const parsed = parseExtendedCard(returned);
      if (!parsed.ok) {
        logger.error('card.extended_invalid', { problems: parsed.problems });
        throw a2aError('internal');
      }
      const served = servedCard(parsed.card, version ?? ('0.3' as V));
      return signer ? signer.sign(served) : served;
    },

    activateExtensions: (headers) => extensions.activate(headers),
    requireExtensions: (operation, activated) => extensions.require(operation, activated),

    /**
     * The hot path, so `promiseOf` rather than an async frame: the service's promise, mapped once;
     * invalid params are a rejected promise, never a throw.
     */
    sendMessage(
      raw: unknown,
      caller?: Caller,
      activated?: readonly string[],
      version?: ProtocolVersion,
    ): Promise<Task | Message | JsonText<Task>> {
      return promiseOf(() => service.sendMessage(checkedSend(parseSendParams(tolerantSendParams(raw)), version), caller, activated)).then(
        resultOf,
      );
    },

    /** message:stream. Validation and capability errors are thrown before any stream starts. */
    async streamMessage(raw: unknown, caller?: Caller, activated?: readonly string[], version?: ProtocolVersion): Promise<TaskFeed> {
      requireStreaming();
      const params = checkedSend(parseSendParams(tolerantSendParams(raw)), version);
      return streams.open(caller?.principal.id, () => openTurnFeed(service, params, caller, activated));
    },

    async resubscribe(raw: unknown, lastEventId: string | undefined, caller?: Caller): Promise<TaskFeed> {
      requireStreaming();
      const { id } = checked(parseParams(TaskIdParamsSchema, raw));
      const owner = caller?.principal.id;
      return streams.open(owner, () => openResubscribe(service, id, lastEventId, { owner }));
    },

    async getTask(raw: unknown, caller?: Caller): Promise<Task> {
      const params = checked(parseParams(TaskQueryParamsSchema, raw));
      return service.getTask(params.id, params.historyLength, caller?.principal.id);
    },

    async listTasks(raw: unknown, caller?: Caller): Promise<ListTasksResult> {
      const params = parseParams(ListTasksParamsSchema, raw);
      const owner = caller?.principal.id;
      const page = await service.listTasks({
        pageSize: params.pageSize,
        ...(owner !== undefined ? { owner } : {}),
        ...(params.contextId !== undefined ? { contextId: params.contextId } : {}),
        ...(params.status !== undefined ? { status: params.status } : {}),
        ...(params.statusTimestampAfter !== undefined ? { statusTimestampAfter: params.statusTimestampAfter } : {}),
        ...(params.pageToken ? { afterId: decodePageToken(params.pageToken) } : {}),
        historyLength: params.historyLength,
        includeArtifacts: params.includeArtifacts,
        maxBytes: deps.limits?.listMaxBytes,
      });
      return {
        tasks: page.tasks,
        nextPageToken: page.lastId ? encodePageToken(page.lastId) : '',
        pageSize: params.pageSize,
        totalSize: page.totalSize,
      };
    },

    async cancelTask(raw: unknown, caller?: Caller): Promise<Task> {
      const { id } = checked(parseParams(TaskIdParamsSchema, raw));
      return service.cancelTask(id, caller?.principal.id);
    },

    /** JSON-RPC shape: `{taskId, pushNotificationConfig}`. */
    async setPushConfig(raw: unknown, caller?: Caller, version?: ProtocolVersion): Promise<TaskPushNotificationConfig> {
      requirePush();
      const params = parseParams(TaskPushNotificationConfigSchema, tolerantPushConfig(raw, 'pushNotificationConfig'));
      await requireTask(params.taskId, caller);
      return push.set(params.taskId, versioned(params.pushNotificationConfig, version));
    },

    /** REST shape: task id from the path, the config as the body. */
    async createPushConfig(
      taskId: string,
      rawConfig: unknown,
      caller?: Caller,
      version?: ProtocolVersion,
    ): Promise<TaskPushNotificationConfig> {
      requirePush();
      const config = parseParams(PushNotificationConfigSchema, rawConfig);
      await requireTask(taskId, caller);
      return push.set(taskId, versioned(config, version));
    },

    async getPushConfig(raw: unknown, caller?: Caller): Promise<TaskPushNotificationConfig> {
      requirePush();
      const params = checked(parseParams(GetPushConfigParamsSchema, raw));
      await requireTask(params.id, caller);
      return push.get(params.id, params.pushNotificationConfigId);
    },

    async listPushConfigs(raw: unknown, caller?: Caller): Promise<TaskPushNotificationConfig[]> {
      requirePush();
      const { id } = checked(parseParams(TaskIdParamsSchema, raw));
      await requireTask(id, caller);
      return push.list(id);
    },

    async deletePushConfig(raw: unknown, caller?: Caller): Promise<null> {
      requirePush();
      const params = checked(parseParams(DeletePushConfigParamsSchema, raw));
      await requireTask(params.id, caller);
      if (!(await push.delete(params.id, params.pushNotificationConfigId))) {
        throw a2aError('pushConfigNotFound', shown(params.pushNotificationConfigId));
      }
      return null;
    },

    /** `GET /v1/health/ready`: every backend answers, or 503 naming the ones that do not. */
    async readiness(): Promise<Readiness> {
      const entries = Object.entries(deps.readiness ?? {});
      const results = await Promise.all(
        entries.map(async ([name, check]) => {
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error('no answer in time')), READINESS_TIMEOUT_MS);
          });
          try {
            await Promise.race([check(), timeout]);
            return [name, 'ok'] as const;
          } catch {
            return [name, 'down'] as const;
          } finally {
            clearTimeout(timer);
          }
        }),
      );
      const checks: Record<string, string> = Object.fromEntries(results);
      const down = results.filter(([, r]) => r !== 'ok').map(([n]) => n);
      // A draining server takes no new tasks: load balancers should send them elsewhere.
      if (service.isDraining) {
        checks.server = 'draining';
        down.push('server');
      }
      const ready = service.ready && down.length === 0;
      return { ready, body: ready ? { status: 'ready', checks } : { status: 'unavailable', checks, down } };
    },

    health(): { status: string } {
      if (!service.ready) throw new A2AError(ERRORS.notInitialized);
      return { status: 'ok' };
    },
  };
}
