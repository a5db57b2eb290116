/**
 * `testAgent(agent)`: an agent author's test harness. It serves the agent in-process on a free
 * 127.0.0.1 port (memory store, quiet logs) and gives a small typed JSON-RPC client, so a test
 * of an agent is a few lines:
 *
 *   const t = await testAgent(myAgent);
 *   const task = await t.send('hello');
 *   expect(task.kind === 'task' && task.status.state).toBe('completed');
 *   await t.close();
 */
import { randomUUID } from 'node:crypto';
import type { AgentDefinition } from './agent.js';
import type { Message, MessageSendConfiguration, StreamEvent, Task } from './a2a/schemas.js';
import { createServer, type A2AServer, type CreateServerOptions } from './server.js';

/** An A2A error answer, with its JSON-RPC code (-32001 task not found, …). */
export class A2ARequestError extends Error {
  /**
   * An error answer as the server sent it.
   * @param code the JSON-RPC error code
   * @param message the error's message
   * @param data the error's `data`, when it has one
   */
  constructor(
    /** The JSON-RPC error code. */
    readonly code: number,
    message: string,
    /** The error's `data`, when it has one. */
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'A2ARequestError';
  }
}

/** How `send` and `stream` of the test client shape the message and the request. */
export interface SendOptions {
  /** A follow-up on this task (input-required / auth-required). */
  taskId?: string;
  /** The conversation the message belongs to. */
  contextId?: string;
  /** Wait for the turn to end (default true, as the protocol says). */
  blocking?: boolean;
  /** The rest of the request's `configuration` (accepted output modes, history length, push). */
  configuration?: Omit<MessageSendConfiguration, 'blocking'>;
  /** Extensions to activate (sent as the `X-A2A-Extensions` header). */
  extensions?: string[];
}

/** A served agent and a small JSON-RPC client for it, as `testAgent` gives them. */
export interface AgentTestClient {
  /** The server's URL, for requests of your own. */
  readonly url: string;
  /** The server itself (settings, stats, store). */
  readonly server: A2AServer;
  /** `message/send` with a text (or parts): the task, or the agent's direct reply. */
  send(content: string | Message['parts'], opts?: SendOptions): Promise<Task | Message>;
  /** `message/stream`: every event until the stream ends (the task snapshot first). */
  stream(content: string | Message['parts'], opts?: Omit<SendOptions, 'blocking'>): Promise<StreamEvent[]>;
  /** `tasks/get`: the task, with the last `historyLength` messages when given. */
  get(taskId: string, historyLength?: number): Promise<Task>;
  /** `tasks/cancel`: the task as the cancel left it. */
  cancel(taskId: string): Promise<Task>;
  /** Stops the server at once. */
  close(): Promise<void>;
}

type RpcAnswer = { result?: unknown; error?: { code: number; message: string; data?: unknown } };

/** Serves `agent` in-process on a free 127.0.0.1 port (memory store, quiet logs) with a client for tests. */
export async function testAgent(
  agent: AgentDefinition,
  options: Partial<Omit<CreateServerOptions, 'agent'>> = {},
): Promise<AgentTestClient> {
  const server = await createServer({ host: '127.0.0.1', port: 0, store: 'memory', logLevel: 'silent', env: {}, ...options, agent });
  let ids = 0;

  const body = (method: string, params: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: ++ids, method, params });
  const answerOf = (answer: RpcAnswer): unknown => {
    if (answer.error) throw new A2ARequestError(answer.error.code, answer.error.message, answer.error.data);
    return answer.result;
  };
  const extensionHeader = (opts: SendOptions): Record<string, string> =>
    opts.extensions ? { 'x-a2a-extensions': opts.extensions.join(', ') } : {};
  const call = async (method: string, params: unknown, headers: Record<string, string> = {}): Promise<unknown> => {
    const res = await fetch(`${server.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: body(method, params),
    });
    return answerOf((await res.json()) as RpcAnswer);
  };
  const sendParams = (content: string | Message['parts'], opts: SendOptions) => ({
    message: {
      kind: 'message',
      role: 'user',
      messageId: randomUUID(),
      parts: typeof content === 'string' ? [{ kind: 'text', text: content }] : content,
      ...(opts.taskId ? { taskId: opts.taskId } : {}),
      ...(opts.contextId ? { contextId: opts.contextId } : {}),
    },
    configuration: { ...opts.configuration, ...(opts.blocking === undefined ? {} : { blocking: opts.blocking }) },
  });

  return {
    url: server.url,
    server,
    send: async (content, opts = {}) => (await call('message/send', sendParams(content, opts), extensionHeader(opts))) as Task | Message,
    async stream(content, opts = {}) {
      const res = await fetch(`${server.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...extensionHeader(opts) },
        body: body('message/stream', sendParams(content, opts)),
      });
      const text = await res.text();
      // A refusal before the stream (streaming off) is a plain JSON answer.
      if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream'))
        return [answerOf(JSON.parse(text) as RpcAnswer) as StreamEvent];
      return text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => answerOf(JSON.parse(line.slice('data: '.length)) as RpcAnswer) as StreamEvent);
    },
    get: async (taskId, historyLength) =>
      (await call('tasks/get', { id: taskId, ...(historyLength === undefined ? {} : { historyLength }) })) as Task,
    cancel: async (taskId) => (await call('tasks/cancel', { id: taskId })) as Task,
    close: () => server.close(),
  };
}
