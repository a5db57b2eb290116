/**
 * The object an agent handler receives for one turn. Each method turns into one machine event
 * carrying its data (the message, the artifact chunk); the machine decides whether it is
 * accepted (after a cancel, or once the task has ended or paused, calls are ignored). A turn
 * that continues in the background keeps its context live: its calls go on reaching the task.
 */
import type { AgentContext, ArtifactChunk, Content } from '../agent.js';
import type { Message, Part } from '../a2a/schemas.js';
import { a2aError } from '../a2a/errors.js';
import type { LiveTask, RuntimeTaskEvent } from './live-task.js';
import { assertAgentMessage, assertArtifactChunk, type SizeLimits } from './size-limits.js';
import { outputFilter, refusedType, type AcceptsMime } from './output-modes.js';
import { agentMessage, partsOf, textOf } from './task-views.js';

export interface AgentContextDriver {
  /** Sends the event (with its data) to the task's actor if the machine accepts it now. */
  agentEvent(live: LiveTask, event: RuntimeTaskEvent): boolean;
  /** A direct reply: replaces a first-turn task with a Message, or completes it. */
  reply(live: LiveTask, message: Message): void;
  /** What the handler's output may add to its task. */
  readonly sizeLimits: SizeLimits;
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

type MessageEventType = 'REQUEST_INPUT' | 'REQUEST_AUTH' | 'FAIL' | 'REJECT';

/**
 * One turn's context. Its data are plain fields; its methods are made on first use, bound to
 * the turn, so handlers may destructure them (`{ complete }`) as they could always do. A
 * context of closures cost a dozen functions per turn, of which a handler uses two or three.
 */
class TurnContext implements AgentContext {
  readonly message: Message;
  readonly text: string;
  readonly taskId: string;
  readonly contextId: string;
  readonly history: readonly Message[];
  readonly artifacts: AgentContext['artifacts'];
  readonly principal: AgentContext['principal'];
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: readonly string[];
  readonly acceptedOutputModes: readonly string[];
  readonly accepts: AcceptsMime;
  #status: AgentContext['status'] | undefined;
  #artifact: AgentContext['artifact'] | undefined;
  #complete: AgentContext['complete'] | undefined;
  #fail: AgentContext['fail'] | undefined;
  #reject: AgentContext['reject'] | undefined;
  #requestInput: AgentContext['requestInput'] | undefined;
  #requestAuth: AgentContext['requestAuth'] | undefined;
  #reply: AgentContext['reply'] | undefined;
  #continueInBackground: AgentContext['continueInBackground'] | undefined;
  /** The handler asked to leave the task working when it returns; read when it does. */
  #leavesWorking = false;

  // Private to the runtime: a handler that lists or spreads its context sees only the API.
  readonly #live: LiveTask;
  readonly #driver: AgentContextDriver;

  constructor(live: LiveTask, driver: AgentContextDriver) {
    this.#live = live;
    this.#driver = driver;
    const { task } = live;
    const message = live.turnMessage;
    this.message = message;
    this.text = textOf(message);
    this.taskId = task.id;
    this.contextId = task.contextId;
    this.history = task.history ?? [];
    this.artifacts = task.artifacts ?? [];
    this.principal = live.caller?.principal;
    this.headers = live.caller?.headers ?? NO_HEADERS;
    this.extensions = live.extensions;
    this.acceptedOutputModes = live.acceptedOutputModes;
    this.accepts = outputFilter(live.acceptedOutputModes);
  }

  get signal(): AbortSignal {
    return this.#live.signal;
  }

  get status(): AgentContext['status'] {
    return (this.#status ??= (content) =>
      this.#event({ type: 'STATUS', message: content === undefined ? undefined : this.#say(content, 'status') }));
  }

  get artifact(): AgentContext['artifact'] {
    return (this.#artifact ??= (chunk) => {
      assertAcceptedParts(this.#live, this.accepts, 'artifact', chunk.parts);
      assertSerializable('artifact', chunk.parts, chunk.metadata);
      assertArtifactChunk(this.#live.task, chunk, this.#driver.sizeLimits);
      this.#event({ type: 'ARTIFACT', artifact: chunk });
    });
  }

  get complete(): AgentContext['complete'] {
    return (this.#complete ??= (content) => this.#completeWith(content));
  }

  get fail(): AgentContext['fail'] {
    return (this.#fail ??= (reason) => this.#withMessage('FAIL', reason));
  }

  get reject(): AgentContext['reject'] {
    return (this.#reject ??= (reason) => this.#withMessage('REJECT', reason));
  }

  get requestInput(): AgentContext['requestInput'] {
    return (this.#requestInput ??= (question) => this.#withMessage('REQUEST_INPUT', question, 'requestInput'));
  }

  get requestAuth(): AgentContext['requestAuth'] {
    return (this.#requestAuth ??= (details) => this.#withMessage('REQUEST_AUTH', details, 'requestAuth'));
  }

  get reply(): AgentContext['reply'] {
    return (this.#reply ??= (content) => this.#driver.reply(this.#live, this.#say(content, 'reply')));
  }

  get continueInBackground(): AgentContext['continueInBackground'] {
    return (this.#continueInBackground ??= () => {
      this.#leavesWorking = true;
    });
  }

  /**
   * Whether the turn that made `context` asked to continue in the background. The answer is read
   * once, when the handler returns, and reported to the machine as the event that ends the turn
   * (AGENT_DETACHED rather than AGENT_DONE): the machine, not this flag, holds the task's state.
   */
  static leavesWorking(context: AgentContext): boolean {
    return #leavesWorking in context && context.#leavesWorking;
  }

  #event(event: RuntimeTaskEvent): void {
    this.#driver.agentEvent(this.#live, event);
  }

  #say(content: Content, where?: string): Message {
    const msg = agentMessage(content, this.taskId, this.contextId);
    if (where !== undefined) assertAcceptedParts(this.#live, this.accepts, where, msg.parts);
    if (typeof content !== 'string') assertSerializable('agent message', msg.parts, msg.metadata);
    assertAgentMessage(this.#live.task, msg, this.#driver.sizeLimits);
    return msg;
  }

  #withMessage(type: MessageEventType, content: Content, where?: string): void {
    this.#event({ type, message: this.#say(content, where) });
  }

  #completeWith(content: Content | undefined): void {
    if (content === undefined) {
      this.#event({ type: 'COMPLETE' });
      return;
    }
    const parts = partsOf(content);
    assertAcceptedParts(this.#live, this.accepts, 'complete', parts);
    const artifact: ArtifactChunk = { artifactId: 'final-answer', parts, lastChunk: true };
    if (typeof content !== 'string' && !Array.isArray(content)) {
      if (content.metadata !== undefined) artifact.metadata = content.metadata;
      if (content.extensions !== undefined) artifact.extensions = content.extensions;
    }
    if (typeof content !== 'string') assertSerializable('complete', parts, artifact.metadata);
    assertArtifactChunk(this.#live.task, artifact, this.#driver.sizeLimits);
    this.#event({ type: 'COMPLETE', artifact });
  }
}

export function createAgentContext(live: LiveTask, driver: AgentContextDriver): AgentContext {
  return new TurnContext(live, driver);
}

/** Whether the handler called `continueInBackground()` during the turn of `context`. */
export const continuesInBackground = (context: AgentContext): boolean => TurnContext.leavesWorking(context);
