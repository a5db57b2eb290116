/** Building wire objects from the runtime's task records. */
import { newId } from '../a2a/ids.js';
import type { Content } from '../agent.js';
import type { Artifact, Message, Part, Task, TaskStatusUpdateEvent } from '../a2a/schemas.js';
import { isInterruptedState, isTerminalState } from '../../machines/task.machine.js';

export const partsOf = (content: Content): Part[] =>
  typeof content === 'string' ? [{ kind: 'text', text: content }] : Array.isArray(content) ? content : content.parts;

/** An agent message; content given with `metadata`/`extensions` keeps them on the message. */
export function agentMessage(content: Content, taskId: string, contextId: string): Message {
  const message: Message = { kind: 'message', role: 'agent', parts: partsOf(content), messageId: newId(), taskId, contextId };
  if (typeof content === 'string' || Array.isArray(content)) return message;
  if (content.extensions !== undefined) message.extensions = content.extensions;
  if (content.metadata !== undefined) message.metadata = content.metadata;
  return message;
}

/** The text of a message's text parts, joined by newlines (one text part, the usual message, is its text). */
export function textOf(message: Message): string {
  let text: string | undefined;
  for (const part of message.parts) {
    if (part.kind !== 'text') continue;
    text = text === undefined ? part.text : `${text}\n${part.text}`;
  }
  return text ?? '';
}

/** The key order of a message the send fast path (or zod, for the same input) builds. */
const SIMPLE_MESSAGE_KEYS = ['kind', 'role', 'parts', 'messageId'];

/** Whether the message's enumerable keys are exactly SIMPLE_MESSAGE_KEYS, in that order. */
function isSimpleMessage(message: Message): boolean {
  let i = 0;
  for (const key in message) {
    if (key !== SIMPLE_MESSAGE_KEYS[i]) return false;
    i++;
  }
  return i === SIMPLE_MESSAGE_KEYS.length;
}

/**
 * `{ ...message, taskId, contextId }`: the message as a task's history keeps it. The common
 * message (kind, role, parts, messageId) is built as one literal: V8 gives a spread copy that
 * then gains keys new hidden classes each time, memory every task pays (a wire message has no
 * symbol keys, the one thing the spread would copy and this does not).
 */
export function messageInTask(message: Message, taskId: string, contextId: string): Message {
  if (!isSimpleMessage(message)) return { ...message, taskId, contextId };
  return { kind: message.kind, role: message.role, parts: message.parts, messageId: message.messageId, taskId, contextId };
}

export interface ViewOptions {
  historyLength?: number | undefined;
  includeArtifacts?: boolean;
}

/**
 * A copy of a task for a response: arrays are copied so a live task that keeps changing never
 * alters a response that is being written. `historyLength`: absent = all, 0 = none, N = last N.
 */
export function taskView(task: Task, opts: ViewOptions = {}): Task {
  const view: Task = { kind: 'task', id: task.id, contextId: task.contextId, status: { ...task.status } };
  const history = task.history ?? [];
  view.history = opts.historyLength === undefined ? history.slice() : opts.historyLength === 0 ? [] : history.slice(-opts.historyLength);
  if (opts.includeArtifacts !== false && task.artifacts && task.artifacts.length > 0) {
    view.artifacts = task.artifacts.map((a) => ({ ...a, parts: a.parts.slice() }));
  }
  if (task.metadata) {
    const transitions = task.metadata.stateTransitions;
    view.metadata = { ...task.metadata, ...(Array.isArray(transitions) ? { stateTransitions: transitions.slice() } : {}) };
  }
  return view;
}

/**
 * The task's status as an event. It is `final` where a turn ends: at a terminal or paused state,
 * and (`turnEnds`) when the turn ends with the task still working, its handler having continued
 * in the background: `final` is how the v0.3 wire says the stream ends there.
 */
export function statusEvent(task: Task, turnEnds = false): TaskStatusUpdateEvent {
  const state = task.status.state;
  return {
    kind: 'status-update',
    taskId: task.id,
    contextId: task.contextId,
    status: { ...task.status },
    final: turnEnds || isTerminalState(state) || isInterruptedState(state),
  };
}

/**
 * Applies an artifact chunk to the task's artifacts (append extends, otherwise replace/start).
 * The chunk becomes the task's own (its caller made it): artifacts are never changed in place,
 * an append replaces the entry with a new one.
 */
export function applyArtifactChunk(task: Task, chunk: Artifact, append: boolean): void {
  const artifacts = (task.artifacts ??= []);
  let at = 0;
  while (at < artifacts.length && (artifacts[at] as Artifact).artifactId !== chunk.artifactId) at++;
  const existing = artifacts[at];
  if (append && existing) {
    artifacts[at] = { ...existing, parts: [...existing.parts, ...chunk.parts] };
  } else if (existing) {
    artifacts[at] = chunk;
  } else {
    artifacts.push(chunk);
  }
}
