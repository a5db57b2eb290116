/**
 * One webhook POST (spec "Push notifications" and "Authentication" 2-3): undici with redirects
 * off (a plain `request` never follows them), one timeout over the whole attempt, and sockets
 * that only reach addresses the policy accepted (guarded-lookup.ts). It reports what happened;
 * whether to try again is the caller's decision.
 */
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher } from 'undici';
import { checkWebhookUrl, type AddressPolicy } from './address-policy.js';
import { guardedLookup, UnsafeWebhookAddressError } from './guarded-lookup.js';

/**
 * undici's Agent and its `request`, loaded without undici's entry module: that one installs an
 * Agent of its own as the process's global dispatcher (the one node's `fetch` uses) whenever none
 * is set yet, and a library must not change what its embedder's `fetch` goes through. Every
 * request here names its dispatcher, so the global one is never needed. Loaded at the first
 * webhook, not at start: most servers never send one, and undici is a large module to read.
 */
interface Undici {
  Agent: typeof UndiciAgent;
  request: (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
}
let undici: Undici | undefined;
function loadUndici(): Undici {
  if (undici) return undici;
  const requireUndici = createRequire(import.meta.url);
  undici = {
    Agent: requireUndici('undici/lib/dispatcher/agent.js') as Undici['Agent'],
    request: requireUndici('undici/lib/api/api-request.js') as Undici['request'],
  };
  return undici;
}

export interface WebhookRequest {
  url: string;
  /** The JSON body, already serialized (one string shared by every config of a transition). */
  body: string;
  /** Absent: `application/json` (A2A v0.3); A2A v1.0 deliveries are `application/a2a+json`. */
  contentType?: string | undefined;
  token?: string | undefined;
  /** The full `Authorization` header value. */
  authorization?: string | undefined;
  /** More headers (the W3C `traceparent` of a traced delivery). */
  headers?: Readonly<Record<string, string>> | undefined;
}

export type PostOutcome =
  /** 2xx. */
  | { kind: 'delivered'; status: number }
  /** Network error, timeout, 5xx or 429: worth another attempt. */
  | { kind: 'retryable'; reason: string; status?: number }
  /** Any other answer (3xx is not followed, 4xx is the receiver's refusal) or a request that cannot be sent. */
  | { kind: 'failed'; reason: string; status?: number }
  /** The URL or an address it resolves to is not allowed: dropped. */
  | { kind: 'refused'; reason: string }
  /** Stopped by shutdown. */
  | { kind: 'aborted' };

export interface WebhookClient {
  post(req: WebhookRequest, signal: AbortSignal): Promise<PostOutcome>;
  /** Lets open requests finish, then closes the connection pool. */
  close(): Promise<void>;
  /** Closes every connection now. */
  destroy(): Promise<void>;
}

export interface WebhookClientOptions {
  policy: AddressPolicy;
  timeoutMs: number;
}

/** How much of a receiver's answer is read before the connection is released (it is ignored). */
const RESPONSE_READ_LIMIT = 64 * 1024;

class AttemptTimeout extends Error {
  constructor() {
    super('webhook attempt timed out');
  }
}

const classifyStatus = (status: number): PostOutcome => {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status >= 500 || status === 429) return { kind: 'retryable', reason: `http-${status}`, status };
  if (status >= 300 && status < 400) return { kind: 'failed', reason: 'redirect-not-followed', status };
  return { kind: 'failed', reason: `http-${status}`, status };
};

/** undici's own timers, kept as a backstop behind the attempt's timer: the same failure. */
const UNDICI_TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

const errorCode = (err: unknown): string | undefined => {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  return typeof err.code === 'string' ? err.code : undefined;
};

export function createWebhookClient(options: WebhookClientOptions): WebhookClient {
  const { policy, timeoutMs } = options;
  let agent: UndiciAgent | undefined;
  const agentOf = (lib: Undici): UndiciAgent =>
    (agent ??= new lib.Agent({
      connect: { lookup: guardedLookup(policy), timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    }));

  async function post(req: WebhookRequest, signal: AbortSignal): Promise<PostOutcome> {
    const verdict = checkWebhookUrl(req.url, policy);
    if (!verdict.ok) return { kind: 'refused', reason: verdict.reason };
    if (signal.aborted) return { kind: 'aborted' };

    const attempt = new AbortController();
    const timer = setTimeout(() => attempt.abort(new AttemptTimeout()), timeoutMs);
    const onShutdown = () => attempt.abort(signal.reason);
    signal.addEventListener('abort', onShutdown, { once: true });
    try {
      const lib = loadUndici();
      const res = await lib.request.call(agentOf(lib), {
        origin: verdict.url.origin,
        path: `${verdict.url.pathname}${verdict.url.search}`,
        method: 'POST',
        signal: attempt.signal,
        headers: {
          ...req.headers,
          'content-type': req.contentType ?? 'application/json',
          'user-agent': 'a2actor-push',
          ...(req.token ? { 'x-a2a-notification-token': req.token } : {}),
          ...(req.authorization ? { authorization: req.authorization } : {}),
        },
        body: req.body,
      });
      // The answer's body means nothing to us, but reading it frees the connection for reuse.
      await res.body.dump({ limit: RESPONSE_READ_LIMIT }).catch(() => undefined);
      return classifyStatus(res.statusCode);
    } catch (err) {
      if (signal.aborted) return { kind: 'aborted' };
      if (attempt.signal.reason instanceof AttemptTimeout) return { kind: 'retryable', reason: 'timeout' };
      if (err instanceof UnsafeWebhookAddressError) return { kind: 'refused', reason: err.reason };
      const code = errorCode(err);
      if (code !== undefined && UNDICI_TIMEOUTS.has(code)) return { kind: 'retryable', reason: 'timeout' };
      // A header value undici will not send (e.g. a token with a line break) fails every time.
      if (code === 'UND_ERR_INVALID_ARG') return { kind: 'failed', reason: 'invalid-request' };
      return { kind: 'retryable', reason: code ?? 'network-error' };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onShutdown);
    }
  }

  return {
    post,
    close: async () => agent?.close(),
    destroy: async () => agent?.destroy(),
  };
}
