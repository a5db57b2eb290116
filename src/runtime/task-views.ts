/** Building wire objects from the runtime's task records. */
import { v7 as uuidv7 } from 'uuid';
import type { Content } from '../agent.js';
import type { Artifact, Message, Part, Task, TaskStatusUpdateEvent } from '../protocol/schemas.js';
import { isInterruptedState, isTerminalState } from '../../machines/task.machine.js';

/**
 * UUID v7 ids: time ordered (keyset pagination), monotonic within a millisecond. Random bytes
 * come from a pool refilled 4 KiB at a time: one crypto call per 256 ids instead of one per id.
 * `uuid` lays the bytes out into one reused array and the text is written in one go (its own
 * stringify builds the id from 20 pieces).
 */
const randomPool = new Uint8Array(4096);
let poolOffset = randomPool.length;
const clock = { msecs: -Infinity, seq: 0 };
const idBytes = new Uint8Array(16);
const idText = Buffer.alloc(36, '-');
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0').charCodeAt(0) * 256 + b.toString(16).padStart(2, '0').charCodeAt(1));
/** Where each byte's two hex digits go in `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`. */
const HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

export function newId(): string {
  if (poolOffset >= randomPool.length) {
    crypto.getRandomValues(randomPool);
    poolOffset = 0;
  }
  const random = randomPool.subarray(poolOffset, (poolOffset += 16));
  const now = Date.now();
  if (now > clock.msecs) {
    clock.msecs = now;
    // A random start in the lower half of the 31-bit range leaves room to count up.
    clock.seq = ((random[6] as number) << 22) | ((random[7] as number) << 14) | ((random[8] as number) << 6) | ((random[9] as number) >>> 2);
  } else {
    clock.seq = (clock.seq + 1) | 0;
    if (clock.seq === 0) clock.msecs++;
  }
  uuidv7({ random, msecs: clock.msecs, seq: clock.seq }, idBytes);
  for (let i = 0; i < 16; i++) idText.writeUInt16BE(HEX[idBytes[i] as number] as number, HEX_AT[i] as number);
  return idText.toString('latin1', 0, 36);
}

export const partsOf = (content: Content): Part[] =>
  typeof content === 'string' ? [{ kind: 'text', text: content }] : content;

export function agentMessage(content: Content, taskId: string, contextId: string): Message {
  return { kind: 'message', role: 'agent', parts: partsOf(content), messageId: newId(), taskId, contextId };
}

/** The text of a message's text parts. */
export const textOf = (message: Message): string =>
  message.parts
    .filter((p): p is Extract<Part, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join('\n');

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

/** Applies an artifact chunk to the task's artifacts (append extends, otherwise replace/start). */
export function applyArtifactChunk(task: Task, chunk: Artifact, append: boolean): void {
  const artifacts = (task.artifacts ??= []);
  const at = artifacts.findIndex((a) => a.artifactId === chunk.artifactId);
  const existing = at >= 0 ? artifacts[at] : undefined;
  if (append && existing) {
    artifacts[at] = { ...existing, parts: [...existing.parts, ...chunk.parts] };
  } else if (existing) {
    artifacts[at] = { ...chunk, parts: chunk.parts.slice() };
  } else {
    artifacts.push({ ...chunk, parts: chunk.parts.slice() });
  }
}
