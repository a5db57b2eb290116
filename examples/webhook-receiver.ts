/**
 * A standalone receiver for A2A push notifications (webhooks), with node:http and nothing else.
 * The server POSTs the task to it on every state change; it checks the token, drops
 * duplicates and prints each new task state as one JSON line on stdout.
 *
 *   WEBHOOK_TOKEN=s3cret WEBHOOK_PORT=9000 node --import tsx examples/webhook-receiver.ts
 *
 * then serve an agent that may push to a loopback http URL (both are refused by default, to keep
 * a server from being pointed at internal services):
 *
 *   SERVICE_PUSH_ALLOW_HTTP=true SERVICE_PUSH_ALLOWED_HOSTS=127.0.0.1 \
 *     npx tsx src/cli/main.ts serve examples/form-agent.ts --store memory
 *
 * and send a message with `"configuration": {"pushNotificationConfig": {"url": "http://127.0.0.1:9000/", "token": "s3cret"}}`.
 *
 * What a receiver must do (wire reference §4.4):
 * - Check `X-A2A-Notification-Token`, the token the client put in its push config: it proves the
 *   notification comes from the server the client registered with. Anything else gets 401.
 * - Deduplicate on (task id, status.timestamp): a delivery may be retried after a timeout even
 *   though the first attempt arrived, so the same notification can come twice.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export interface WebhookReceiverOptions {
  /** 0 picks a free port. */
  port: number;
  /** The token the push config carries; notifications without it are refused. */
  token: string;
  /** Default 127.0.0.1: only this machine can post. */
  host?: string;
  /** Where the one-line records of new task states go. Default: stdout. */
  log?: (line: string) => void;
}

export interface WebhookReceiver {
  /** `http://<host>:<port>/`, the URL to put in a push config. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A task is small; a body larger than this is not a notification worth reading. */
const MAX_BODY_BYTES = 1024 * 1024;
/** How many (task, timestamp) pairs are remembered; the oldest are forgotten first, so memory stays bounded. */
const REMEMBERED = 10_000;

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

interface Notification {
  taskId: string;
  state: string;
  timestamp: string;
  message?: string;
}

/** The fields a receiver needs from the pushed Task, or undefined when the body is not one. */
function notificationOf(body: unknown): Notification | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { id, status } = body as { id?: unknown; status?: { state?: unknown; timestamp?: unknown; message?: { parts?: unknown } } };
  // Without a timestamp the notification cannot be deduplicated; this server always sends one.
  if (typeof id !== 'string' || typeof status?.state !== 'string' || typeof status.timestamp !== 'string') return undefined;
  const parts = Array.isArray(status.message?.parts) ? (status.message.parts as { kind?: unknown; text?: unknown }[]) : [];
  const text = parts
    .filter((p) => p.kind === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join(' ');
  return { taskId: id, state: status.state, timestamp: status.timestamp, ...(text ? { message: text } : {}) };
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Too large: stop reading; the 413 closes the connection, dropping the rest unread.
      if (size > MAX_BODY_BYTES) {
        req.pause();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const { port, token, host = '127.0.0.1', log = (line: string) => console.log(line) } = options;
  if (!token) throw new Error('a webhook receiver needs a token');

  // Constant-time check: timingSafeEqual takes as long wherever the inputs differ, so response
  // times do not reveal how much of a guess was right. It needs inputs of equal length, and
  // checking the length first would leak the token's length: comparing SHA-256 digests (always
  // 32 bytes) avoids both.
  const expected = sha256(token);
  const tokenIsRight = (given: string | string[] | undefined): boolean =>
    typeof given === 'string' && timingSafeEqual(sha256(given), expected);

  // A Set iterates in insertion order, so its first entry is the oldest one to forget.
  const seen = new Set<string>();
  const isNew = (n: Notification): boolean => {
    const key = JSON.stringify([n.taskId, n.timestamp]);
    if (seen.has(key)) return false;
    seen.add(key);
    if (seen.size > REMEMBERED) seen.delete(seen.values().next().value as string);
    return true;
  };

  const answer = (res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(`${text}\n`);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return void answer(res, 405, 'POST notifications here');
    // The token is checked before the body is read: an unknown sender costs us nothing more.
    if (!tokenIsRight(req.headers['x-a2a-notification-token'])) {
      req.resume();
      return void answer(res, 401, 'wrong or missing X-A2A-Notification-Token');
    }
    const text = await readBody(req);
    if (text === undefined) return void answer(res, 413, 'too large', { connection: 'close' });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return void answer(res, 400, 'not JSON');
    }
    const notification = notificationOf(body);
    if (!notification) return void answer(res, 400, 'not a task with id, status.state and status.timestamp');
    // A duplicate is still answered 2xx: it was handled the first time, and an error would only
    // make the sender retry it again.
    if (isNew(notification)) log(JSON.stringify({ event: 'task.state', ...notification }));
    answer(res, 200, 'ok');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) answer(res, 400, 'bad request');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// Run as a program (not when imported, e.g. by a test).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const token = process.env.WEBHOOK_TOKEN;
  if (!token) {
    console.error('Set WEBHOOK_TOKEN to the token your push config sends.');
    process.exit(2);
  }
  const receiver = await startWebhookReceiver({ port: Number(process.env.WEBHOOK_PORT ?? 9000), token, host: process.env.WEBHOOK_HOST });
  // stderr, so that stdout holds only the notification lines (pipe it to jq, a file, …).
  console.error(`webhook receiver listening on ${receiver.url}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void receiver.close().then(() => process.exit(0)));
}
