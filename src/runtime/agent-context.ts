/**
 * The object an agent handler receives for one turn. Each method turns into one machine event
 * carrying its data (the message, the artifact chunk); the machine decides whether it is
 * accepted (after a cancel, or once the task has ended, calls are ignored).
 */
import type { AgentContext, ArtifactChunk, Content } from '../agent.js';
import type { Message, Part } from '../a2a/schemas.js';
import { a2aError } from '../a2a/errors.js';
import type { LiveTask, RuntimeTaskEvent } from './live-task.js';
import { outputFilter, refusedType, type AcceptsMime } from './output-modes.js';
import { agentMessage, partsOf, textOf } from './task-views.js';

export interface AgentContextDriver {
  /** Sends the event (with its data) to the task's actor if the machine accepts it now. */
  agentEvent(live: LiveTask, event: RuntimeTaskEvent): boolean;
  /** A direct reply: replaces a first-turn task with a Message, or completes it. */
  reply(live: LiveTask, message: Message): void;
}

/**
 * Free-form agent JSON (data parts, metadata) is stored and sent later: if it cannot be
 * serialized (a BigInt, a cycle), the call that hands it over throws, so the bug shows in the
 * handler (and fails its task) instead of in a store write after the turn. Text-only content,
 * the common case, is not serialized here.
 */
function assertSerializable(where: string, parts: readonly Part[], metadata?: unknown): void {
  const check = (what: string, value: unknown): void => {
    try {
      JSON.stringify(value);
    } catch (err) {
      throw new TypeError(`${where}: ${what} is not JSON-serializable (${err instanceof Error ? err.message : String(err)})`, {
        cause: err,
      });
    }
  };
  if (metadata !== undefined) check('metadata', metadata);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as Part;
    if (part.kind === 'data') check(`parts[${i}].data`, part.data);
    if (part.metadata !== undefined) check(`parts[${i}].metadata`, part.metadata);
  }
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Refuses output the client did not accept (output-modes.ts has the rule and why): the call
 * throws and nothing is emitted. `fail` and `reject` are not checked: a failure's reason must
 * always get through, and refusing it would only end in another (text) failure.
 */
function assertAcceptedParts(live: LiveTask, accepts: AcceptsMime, where: string, parts: readonly Part[]): void {
  const refused = refusedType(accepts, parts);
  if (refused === undefined) return;
  const modes = live.acceptedOutputModes;
  throw a2aError('outputNotAccepted', `${where} has a ${refused} part, and the client accepts only ${modes.join(', ')}`, {
    mimeType: refused,
    acceptedOutputModes: modes,
  });
}

export function createAgentContext(live: LiveTask, driver: AgentContextDriver): AgentContext {
  const { task } = live;
  const message = live.turnMessage;
  const accepts = outputFilter(live.acceptedOutputModes);
  const say = (content: Content, where?: string) => {
    const msg = agentMessage(content, task.id, task.contextId);
    if (where !== undefined) assertAcceptedParts(live, accepts, where, msg.parts);
    if (typeof content !== 'string') assertSerializable('agent message', msg.parts, msg.metadata);
    return msg;
  };
  const withMessage = (type: 'REQUEST_INPUT' | 'REQUEST_AUTH' | 'FAIL' | 'REJECT', content: Content, where?: string) => {
    driver.agentEvent(live, { type, message: say(content, where) });
  };

  return {
    message,
    text: textOf(message),
    taskId: task.id,
    contextId: task.contextId,
    history: task.history ?? [],
    artifacts: task.artifacts ?? [],
    principal: live.caller?.principal,
    headers: live.caller?.headers ?? NO_HEADERS,
    extensions: live.extensions,
    acceptedOutputModes: live.acceptedOutputModes,
    accepts,
    get signal() {
      return live.signal;
    },
    status(content) {
      driver.agentEvent(live, { type: 'STATUS', message: content === undefined ? undefined : say(content, 'status') });
    },
    artifact(chunk) {
      assertAcceptedParts(live, accepts, 'artifact', chunk.parts);
      assertSerializable('artifact', chunk.parts, chunk.metadata);
      driver.agentEvent(live, { type: 'ARTIFACT', artifact: chunk });
    },
    complete(content) {
      if (content === undefined) {
        driver.agentEvent(live, { type: 'COMPLETE' });
        return;
      }
      const parts = partsOf(content);
      assertAcceptedParts(live, accepts, 'complete', parts);
      const artifact: ArtifactChunk = { artifactId: 'final-answer', parts, lastChunk: true };
      if (typeof content !== 'string' && !Array.isArray(content)) {
        if (content.metadata !== undefined) artifact.metadata = content.metadata;
        if (content.extensions !== undefined) artifact.extensions = content.extensions;
      }
      if (typeof content !== 'string') assertSerializable('complete', parts, artifact.metadata);
      driver.agentEvent(live, { type: 'COMPLETE', artifact });
    },
    fail: (reason) => withMessage('FAIL', reason),
    reject: (reason) => withMessage('REJECT', reason),
    requestInput: (question) => withMessage('REQUEST_INPUT', question, 'requestInput'),
    requestAuth: (details) => withMessage('REQUEST_AUTH', details, 'requestAuth'),
    reply(content) {
      driver.reply(live, say(content, 'reply'));
    },
  };
}
