/**
 * Every setting has one name, a default and a SERVICE_* environment variable (docs/configuration.md, "Every setting").
 * Explicit options (CLI flags, createServer options) override the environment.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { CARD_SIGNING_ALGORITHMS } from './a2a/card-schema.js';

const bool = z.union([z.boolean(), z.string()], { error: 'use true or false' }).transform((v, ctx) => {
  if (typeof v === 'boolean') return v;
  const s = v.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(s)) return false;
  ctx.addIssue({ code: 'custom', message: `use true or false (or 1/0, yes/no, on/off), not ${JSON.stringify(v)}` });
  return z.NEVER;
});

/** Seconds in each unit a duration may name. */
const SECONDS_PER: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600 };
const DURATION = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)$/;
const DURATION_HINT = 'use seconds (10, 0.5) or a number with ms, s, m or h (500ms, 10s, 2m, 1h)';

/** A duration in seconds: a bare number is seconds, as it always was; `500ms`, `10s`, `2m`, `1h` name their unit. */
function toSeconds(value: number | string, ctx: z.RefinementCtx): number {
  if (typeof value === 'number') return value;
  const text = value.trim();
  const bare = text === '' ? NaN : Number(text);
  if (Number.isFinite(bare)) return bare;
  const m = DURATION.exec(text.toLowerCase());
  if (m) return Number(m[1]) * (SECONDS_PER[m[2] as string] as number);
  ctx.addIssue({ code: 'custom', message: `${DURATION_HINT}, not ${JSON.stringify(value)}` });
  return z.NEVER;
}
const seconds = (check: z.ZodNumber) => z.union([z.number(), z.string()], { error: DURATION_HINT }).transform(toSeconds).pipe(check);
/** A duration of zero or more seconds (units: toSeconds). */
const duration = seconds(z.number().finite().min(0));
/** A duration of more than zero seconds (units: toSeconds). */
const positiveDuration = seconds(z.number().finite().positive());
/** A count or a size in bytes: a whole number from `min` up. */
const wholeNumber = (min: number) => z.coerce.number({ error: 'must be a whole number' }).int().min(min);
const list = z
  .union([z.array(z.string()), z.string()])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim().toLowerCase()).filter(Boolean));

const portNumber = z.coerce.number({ error: 'must be a port number (0-65535)' }).int().min(0).max(65535);

/** Every setting with its default and its check; each has a SERVICE_* variable of its name. */
export const SettingsSchema = z.object({
  /** Address to listen on (SERVICE_HOST). */
  host: z.string().default('127.0.0.1'),
  /**
   * The names a request may give in `Host` (and, with a list, in a believed `X-Forwarded-Host`);
   * others get 403. `auto`: on a loopback address only `localhost` names and IP literals, so a web
   * page cannot reach a local server through DNS rebinding, and any name elsewhere; `any`; or a
   * comma list (`agents.example.com,*.example.com`), IP literals always allowed.
   */
  allowedHosts: list
    .refine(
      (v) =>
        (v.length === 1 && (v[0] === 'auto' || v[0] === 'any')) ||
        (v.length > 0 && !v.includes('auto') && !v.includes('any') && v.every((h) => /^(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(h))),
      'use auto, any, or a comma list of host names (*.example.com for any subdomain)',
    )
    .default(['auto']),
  /**
   * Peers whose `X-Forwarded-Proto` and `X-Forwarded-Host` are believed (the card's URL, allowed
   * hosts); others are answered as if they sent none. Unset: every peer. `loopback`, `none`, or a
   * comma list of IP addresses and CIDRs (`10.0.0.0/8`).
   */
  trustedProxies: list
    .refine(
      (v) =>
        v.every((entry) => {
          if (entry === 'loopback' || entry === 'none') return true;
          const [address = '', prefix, extra] = entry.split('/');
          const family = isIP(address);
          return (
            family !== 0 &&
            extra === undefined &&
            (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)))
          );
        }),
      'use loopback, none, or a comma list of IP addresses and CIDRs (10.0.0.0/8)',
    )
    .optional(),
  /**
   * `auto`: a native uWebSockets.js build when one loads here, else `node` (HTTP/1.1 of its own on
   * node:net); `uws` or `node` forces one; `node-http`: node:http's own server; `none`: no
   * listener, the app mounts `server.nodeHandler()` itself.
   */
  frontEnd: z.enum(['auto', 'uws', 'node', 'node-http', 'none']).default('auto'),
  /** Port to listen on; 0 = any free port (SERVICE_PORT). */
  port: portNumber.default(8080),
  /** `memory` (packed), `memory-plain` (a Map), `sqlite:<path>` (or a path ending in .db/.sqlite), `postgres://…`. */
  store: z
    .string()
    .regex(
      /^(memory|memory-plain|sqlite:.*|postgres(ql)?:\/\/.+|.+\.(db|sqlite3?))$/,
      'use memory, memory-plain, sqlite:<path> (or a path ending in .db or .sqlite), or postgres://user@host:5432/db',
    )
    .default('sqlite:./data/a2actor.db'),
  /**
   * How SQLite syncs its write-ahead log (README "Persistence and replicas"): `normal` survives a
   * process crash but a power loss may undo the last commits; `full` syncs every commit, so a
   * power loss loses nothing acknowledged, for a slower write.
   */
  sqliteSynchronous: z.enum(['normal', 'full'], { error: 'use "normal" or "full"' }).default('normal'),
  // Light install: which SQLite driver opens the file.
  /**
   * `auto`: Node's built-in node:sqlite where this Node has it (22.13+), else better-sqlite3;
   * `node` or `better-sqlite3` forces one. Both read and write the same file.
   */
  sqliteDriver: z
    .enum(['auto', 'node', 'better-sqlite3'], { error: 'use "auto", "node" (node:sqlite) or "better-sqlite3"' })
    .default('auto'),
  /**
   * `memory` (one process), or `redis://…`: the event log, task leases and cancel signals that
   * several replicas share.
   */
  events: z
    .string()
    .regex(/^(memory|rediss?:\/\/.+)$/, 'use "memory" or "redis://host:port"')
    .default('memory'),
  /** Seconds a task stays claimed by a replica that stopped renewing (died). */
  leaseTtl: positiveDuration.default(15),
  /** Serve the `/chat` debug page (SERVICE_DEBUG). */
  debug: bool.default(false),
  /** Send task actors to the Stately inspector (SERVICE_INSPECT). */
  inspect: bool.default(false),
  /** WebSocket receiver of the Stately inspector's events (docs/debugging.md, "Stately inspector"). */
  inspectUrl: z.url({ protocol: /^wss?$/ }).default('ws://127.0.0.1:8081'),
  /** The lowest level logged, as JSON lines on stderr (SERVICE_LOG_LEVEL). */
  logLevel: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** The transport the card names as preferred (SERVICE_PREFERRED_TRANSPORT). */
  preferredTransport: z.enum(['JSONRPC', 'HTTP+JSON']).default('JSONRPC'),
  /**
   * The shapes REST answers in: `a2a`, the spec's bare A2A objects, or `proto`, the v0.3 proto's
   * JSON (`{"task": …}`, `TASK_STATE_*`), which the official SDK's REST transport reads.
   */
  restDialect: z
    .enum(['a2a', 'proto'], { error: 'use "a2a" (the spec\'s JSON) or "proto" (proto-JSON, for proto-based REST clients)' })
    .default('a2a'),
  /** Capability switches: can only turn off what the agent declares. */
  streaming: bool.default(true),
  /** `false` turns off push notifications the agent declares (SERVICE_PUSH_NOTIFICATIONS). */
  pushNotifications: bool.default(true),
  /** Larger request bodies get 413 (SERVICE_MAX_BODY_BYTES). */
  maxBodyBytes: wholeNumber(1024).default(10 * 1024 * 1024),
  /** Levels free-form client JSON (metadata, data parts) may nest (README "Security notes"). */
  maxJsonDepth: wholeNumber(1).max(1000).default(64),
  /**
   * Bytes of large request bodies (over 64 KiB) read and parsed at once, server-wide: parsing
   * holds the event loop, so a few callers looping large bodies would stall everyone else. A
   * large body past it waits, its socket unread; one caller may use half of it; one body may
   * always go when none is in flight. Small bodies never wait.
   */
  bodyBudgetBytes: wholeNumber(64 * 1024).default(16 * 1024 * 1024),
  /** Large bodies that may wait for the body budget; past it a new one is refused (503, Retry-After). */
  bodyQueue: wholeNumber(0).default(64),
  /**
   * Seconds a large body may take to arrive once its turn in the body budget has come; then 503
   * with Retry-After (a body trickled in would hold its place for ever).
   */
  bodyReadTimeout: positiveDuration.default(10),
  /** Seconds a blocking send waits before it returns the task as it stands (SERVICE_BLOCKING_TIMEOUT). */
  blockingTimeout: positiveDuration.default(30),
  /** Seconds after which a handler that ignores a cancel is canceled anyway (SERVICE_CANCEL_FORCE_TIMEOUT). */
  cancelForceTimeout: positiveDuration.default(10),
  /** How long a cancel call waits for a cooperative handler to land in `canceled`. */
  cancelGrace: duration.default(2),
  // Per-turn time limit
  /**
   * Seconds one turn of the handler may run before the task is failed and the handler's signal
   * fires (a handler that never returns would leave its task working for good); 0 = no limit.
   * Work left running after `continueInBackground()` is past its turn and not limited.
   */
  turnTimeout: duration.default(0),
  /**
   * Characters of task JSON one `tasks/list` answer may carry: a list pays for what it returns,
   * so paging stops before this is passed (the first task of a page is always returned, and
   * `maxTaskBytes` bounds it).
   */
  listMaxBytes: wholeNumber(1024).default(4 * 1024 * 1024),
  /**
   * Size of one message (client or agent), counted over its parts' text, file content and JSON
   * data: a message is stored, listed and streamed whole, so one caller's giant message costs
   * every reader. The default matches the body cap, so no HTTP client meets it first.
   */
  maxMessageBytes: wholeNumber(1024).default(10 * 1024 * 1024),
  /** Size of one artifact, counted like a message, including every chunk appended to it. */
  maxArtifactBytes: wholeNumber(1024).default(10 * 1024 * 1024),
  /** Size of one task (history plus artifacts), counted like a message: what one list entry can cost. */
  maxTaskBytes: wholeNumber(1024).default(32 * 1024 * 1024),
  /**
   * The window of a running task's coalesced progress writes, streamed or sent: at most one
   * write per task per window, so a crash loses at most about one window of what clients saw.
   */
  progressFlushInterval: duration.default(0.25),
  /** How long a turn's final write is retried while the store is unreachable. */
  storeRetryWindow: duration.default(30),
  /** Events kept per task for `Last-Event-ID` (SERVICE_EVENT_REPLAY). */
  eventReplay: wholeNumber(0).default(1000),
  /** Seconds a streamed turn's events stay replayable after it ends (SERVICE_EVENT_RETENTION). */
  eventRetention: duration.default(60),
  /** Seconds between `: ping` comments on an open SSE stream. */
  sseHeartbeat: positiveDuration.default(15),
  /** Bytes a slow SSE reader may leave waiting before its stream is closed (it resumes with Last-Event-ID). */
  sseMaxBufferedBytes: wholeNumber(1024).default(1024 * 1024),
  /**
   * Concurrent streams (message:stream, subscribe) one caller may hold: each pins a socket, a
   * subscription and buffers, so one caller could otherwise take the memory every caller needs.
   * A caller is the authenticated principal; without auth, every request is the one caller.
   */
  maxStreamsPerCaller: wholeNumber(1).default(100),
  /** Tasks one caller may have in memory at once (running, or working in the background). */
  maxLiveTasksPerCaller: wholeNumber(1).default(1000),
  /**
   * Characters of a JSON-RPC string `id`: the id is echoed in every answer and in every event
   * of a stream, so a long one multiplies what the server writes.
   */
  maxRpcIdLength: wholeNumber(1).default(256),
  /**
   * JSON characters of the events one task keeps for `Last-Event-ID` replay, besides their count
   * (`eventReplay`); past it the oldest go, and a resume from before them gets the task as it stands.
   */
  eventReplayMaxBytes: wholeNumber(1024).default(1024 * 1024),
  /** JSON characters of the events kept for replay of every ended or paused turn together; past it the oldest turns' go first. */
  eventRetainedMaxBytes: wholeNumber(1024).default(128 * 1024 * 1024),
  /** Webhook delivery attempts (SERVICE_PUSH_MAX_RETRIES). */
  pushMaxRetries: wholeNumber(1).default(3),
  /** Seconds before the first retry; each later one waits twice as long (SERVICE_PUSH_RETRY_DELAY). */
  pushRetryDelay: duration.default(1),
  /** Seconds one webhook attempt may take (SERVICE_PUSH_TIMEOUT). */
  pushTimeout: positiveDuration.default(10),
  /** Webhook attempts in flight, all webhooks together (SERVICE_PUSH_MAX_CONCURRENT). */
  pushMaxConcurrent: wholeNumber(1).default(50),
  /** Allow `http://` webhooks, for development (SERVICE_PUSH_ALLOW_HTTP). */
  pushAllowHttp: bool.default(false),
  /** Seconds an idle delivery worker waits before it exits (SERVICE_PUSH_IDLE_TIMEOUT). */
  pushIdleTimeout: positiveDuration.default(300),
  /**
   * Record accepted webhook deliveries with the store until they are sent or give up, so a
   * restart (SIGTERM or kill -9) sends what was queued; `false` keeps them in memory only.
   */
  pushDurable: bool.default(true),
  /** Webhook hosts that skip the private-address check (SERVICE_PUSH_ALLOWED_HOSTS). */
  pushAllowedHosts: list.default([]),
  /** Webhook hosts always refused (SERVICE_PUSH_BLOCKED_HOSTS). */
  pushBlockedHosts: list.default([]),
  /** Webhook configs one task may have: each transition is delivered to every one of them. */
  pushMaxConfigsPerTask: wholeNumber(1).default(10),
  /**
   * Webhook attempts one caller's tasks may have in flight at once: its share of
   * pushMaxConcurrent, so receivers that never answer cannot hold every slot. The caller is the
   * task's owner; without auth, each webhook origin counts as one caller. Freed slots go to the
   * waiting callers in turn.
   */
  pushMaxConcurrentPerCaller: wholeNumber(1).default(10),
  /**
   * Deliveries one config may have waiting. Past it, the oldest waiting non-final state is
   * replaced by the newer one (each delivery carries the whole task); a final state is never
   * dropped.
   */
  pushMaxQueuedPerConfig: wholeNumber(1).default(20),
  /** Failed attempts in a row (timeout, no connection, 5xx, 429) that open a webhook origin's circuit. */
  pushCircuitFailures: wholeNumber(1).default(10),
  /**
   * Seconds an open circuit sends nothing to its origin (its deliveries wait, a newer state
   * replacing an older one); then one probe decides whether it closes or stays open.
   */
  pushCircuitCooldown: positiveDuration.default(15),
  /** Seconds running turns, then queued webhooks, get on a graceful stop (SERVICE_SHUTDOWN_GRACE). */
  shutdownGrace: duration.default(10),
  /**
   * V8 runs its next full collection when the old generation has grown this much past what
   * survived the last one (src/heap-tuning.ts); 0 leaves V8's own factor (up to 4x); `auto`
   * chooses by store (heap-tuning.ts says why). Process-wide: applied by `a2actor serve`, or by
   * createServer only with `tuneHeap: true`.
   */
  heapGrowthPercent: z
    .union([z.literal('auto'), z.coerce.number().int()], { error: "use auto, 0 (V8's own) or 10-300" })
    .refine((v) => v === 'auto' || v === 0 || (v >= 10 && v <= 300), "use auto, 0 (V8's own) or 10-300")
    .default('auto'),
  /**
   * V8's allocation-site pretenuring (src/heap-tuning.ts): `off` lets every object start in the
   * young generation, where a task's short-lived objects die cheaply; `v8` leaves V8's own
   * heuristics. Process-wide: applied by `a2actor serve`, or by createServer only with
   * `tuneHeap: true`.
   */
  pretenuring: z.enum(['off', 'v8']).default('off'),
  /**
   * Sign the agent card (README "Signed cards"): a private key as PEM text, JWK JSON text, or the
   * path of a file holding either. Never logged or served.
   */
  cardSigningKey: z.string().min(1).optional(),
  /** `kid` in the signature's protected header (default: the JWK's `kid`). */
  cardSigningKid: z.string().min(1).optional(),
  /** `jku` in the signature's protected header: where verifiers fetch the public key set. */
  cardSigningJku: z.url({ protocol: /^https?$/ }).optional(),
  /** For an RSA key: RS256 (default) or PS256 (and the 384/512 forms). */
  cardSigningAlg: z.enum(CARD_SIGNING_ALGORITHMS).optional(),
  /**
   * Prometheus metrics at `GET /metrics` (public, like health). `createServer` also takes
   * `{ port }` here: the same as setting `metricsPort`.
   */
  metrics: z
    .union(
      [
        bool,
        z.object({
          /** Serve /metrics on a listener of its own on this port (as `metricsPort`). */
          port: portNumber,
        }),
      ],
      { error: 'use true or false' },
    )
    .default(true),
  /** A listener of its own for /metrics (plain node:http, same host), off the public port; unset = the server's port. */
  metricsPort: portNumber.optional(),
  // gRPC transport (README "gRPC"): both versions' A2AService on a port of its own.
  /** The gRPC listener's port; unset = no gRPC (its packages are not even loaded); 0 = any free port. */
  grpcPort: portNumber.optional(),
  /** Where gRPC listens; unset = `host`. */
  grpcHost: z.string().min(1).optional(),
  /** TLS for gRPC: the certificate chain and its private key, PEM text or a file path each (both or neither). */
  grpcTlsCert: z.string().min(1).optional(),
  /** The private key of `grpcTlsCert`: PEM text or a file path. */
  grpcTlsKey: z.string().min(1).optional(),
  /** Plaintext gRPC on a host that is not loopback (credentials travel in metadata): only behind a TLS-terminating proxy. */
  grpcAllowPlaintext: bool.default(false),
});

/** Every setting, resolved: defaults applied, values checked. */
export type Settings = z.infer<typeof SettingsSchema>;
/** Settings as given: strings from the environment, or values of each setting's type. */
export type SettingsInput = z.input<typeof SettingsSchema>;

/** SERVICE_* variable name of every setting (camelCase -> SCREAMING_SNAKE). */
export const envNameOf = (key: string): string => `SERVICE_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<Record<keyof Settings, string>> {
  const out: Partial<Record<keyof Settings, string>> = {};
  for (const key of Object.keys(SettingsSchema.shape) as (keyof Settings)[]) {
    const value = env[envNameOf(key)];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * The settings from the environment and the explicit options (which win). An invalid value is
 * reported under the name the user set it by: `nameOf` (the CLI names its flags), else its
 * SERVICE_* variable.
 */
export function resolveSettings(
  overrides: Partial<SettingsInput> = {},
  env: NodeJS.ProcessEnv = process.env,
  nameOf: (key: string) => string = envNameOf,
): Settings {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  const result = SettingsSchema.safeParse({ ...settingsFromEnv(env), ...defined });
  if (!result.success) {
    const lines = result.error.issues.map((i) => {
      const key = String(i.path[0]);
      return `${key in defined ? nameOf(key) : envNameOf(key)}: ${i.message}`;
    });
    throw new Error(`invalid settings:\n  ${lines.join('\n  ')}`);
  }
  return result.data;
}
