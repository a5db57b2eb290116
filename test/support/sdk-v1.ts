/** Helpers for tests that drive @a2a-js/sdk 1.3.0 (installed as `a2a-sdk-v1`), natively or in its v0.3 compatibility mode. */
import { randomUUID } from 'node:crypto';
import { Role, type Message, type SendMessageRequest, type Task } from 'a2a-sdk-v1';

/** A user text message in the 1.x client's own (proto) shape. */
export const v1Message = (text: string, extra: Partial<Message> = {}): Message => ({
  messageId: randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...extra,
});

/** A SendMessageRequest for `message`; `returnImmediately` is 1.x's name for a non-blocking send. */
export const v1Send = (message: Message, returnImmediately = false): SendMessageRequest => ({
  tenant: '',
  message,
  configuration: { acceptedOutputModes: [], historyLength: undefined, taskPushNotificationConfig: undefined, returnImmediately },
  metadata: undefined,
});

export const isV1Task = (r: Task | Message): r is Task => 'status' in r && 'id' in r;

/** One request the 1.x client made, as the server saw it. */
export interface SeenCall {
  /** `POST /message:send`, path decoded and relative to the host. */
  line: string;
  /** Its `A2A-Version` header. */
  version: string | null;
  /** The JSON-RPC method, when the body is a JSON-RPC request. */
  rpcMethod?: string;
}

/**
 * A `fetch` for the 1.x client that records every call into `seen` (so a test can prove which
 * version and which method names went over the wire) and adds `headers` to each.
 */
export function recordingFetch(seen: SeenCall[], headers: Record<string, string> = {}): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const sent = new Headers(init?.headers);
    for (const [k, v] of Object.entries(headers)) sent.set(k, v);
    let rpcMethod: string | undefined;
    if (typeof init?.body === 'string') {
      try {
        const body = JSON.parse(init.body) as { jsonrpc?: unknown; method?: unknown };
        if (body.jsonrpc === '2.0' && typeof body.method === 'string') rpcMethod = body.method;
      } catch {
        // Not JSON: nothing to record beyond the line.
      }
    }
    seen.push({
      line: `${init?.method ?? 'GET'} ${decodeURIComponent(url.pathname)}`,
      version: sent.get('A2A-Version'),
      ...(rpcMethod ? { rpcMethod } : {}),
    });
    return fetch(input, { ...init, headers: sent });
  };
}
