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
 * then gains keys new hidden classes each time, about 620 bytes a task more (a wire message
 * has no symbol keys, the one thing the spread would copy and this does not).
 */
export function messageInTask(message: Message, taskId: string, contextId: string): Message {
  if (!isSimpleMessage(message)) return { ...message, taskId, contextId };
  return new TaskMessage(message, taskId, contextId);
}

/*
 * The records a running task is made of are built by constructors, not object or array
 * literals. V8 watches each literal's objects and, once it has seen them survive a scavenge
 * (a warm-up does), allocates that literal's objects in the old generation from then on
 * (allocation-site pretenuring, a decision it keeps). A task record born old is garbage only a
 * full collection frees, and until then it holds on to everything the turn writes into it
 * later (statuses, messages, artifacts): each scavenge copied and then promoted all of it
 * (bench/micro/turn.ts 20000 64: every task record of W1 was born old). Objects a constructor
 * makes are never pretenured, nor are arrays a builtin makes (`Array.of`).
 */

/** A simple message as a task's history keeps it, in the order messageInTask writes its keys. */
class TaskMessage implements Message {
  readonly kind: Message['kind'];
  readonly role: Message['role'];
  readonly parts: Message['parts'];
  readonly messageId: string;
  readonly taskId: string;
  readonly contextId: string;
  constructor(message: Message, taskId: string, contextId: string) {
    this.kind = message.kind;
    this.role = message.role;
    this.parts = message.parts;
    this.messageId = message.messageId;
    this.taskId = taskId;
    this.contextId = contextId;
  }
}

/** A new task's metadata: its (empty) transition timeline; `_eventSeq` joins it at the first event. */
class TaskMetadata {
  [key: string]: unknown;
  stateTransitions: unknown[] = Array.of();
}

/** A new task's record, submitted with its first message (keys in the stored JSON's order). */
class TaskRecord implements Task {
  readonly kind = 'task';
  readonly id: string;
  readonly contextId: string;
  status: Task['status'];
  history: Message[];
  metadata: Record<string, unknown>;
  constructor(id: string, contextId: string, first: Message, timestamp: string) {
    this.id = id;
    this.contextId = contextId;
    this.status = { state: 'submitted', timestamp };
    this.history = Array.of(first);
    this.metadata = new TaskMetadata();
  }
}

/** A new task: `submitted` at `timestamp`, with `first` as its history. */
export const newTaskRecord = (id: string, contextId: string, first: Message, timestamp: string): Task =>
  new TaskRecord(id, contextId, first, timestamp);

/** An artifact the runtime keeps (task-views' applyArtifactChunk): its optional fields are added after. */
export class ArtifactRecord implements Artifact {
  readonly artifactId: string;
  readonly parts: Part[];
  declare name?: string;
  constructor(artifactId: string, parts: Part[]) {
    this.artifactId = artifactId;
    this.parts = parts;
  }
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

export function statusEvent(task: Task): TaskStatusUpdateEvent {
  const state = task.status.state;
  return {
    kind: 'status-update',
    taskId: task.id,
    contextId: task.contextId,
    status: { ...task.status },
    final: isTerminalState(state) || isInterruptedState(state),
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
