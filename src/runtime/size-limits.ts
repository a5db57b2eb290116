/**
 * Size limits on what a task holds (docs/configuration.md, "Limits and quotas"): per message, per artifact (all
 * its appended chunks together) and per task (history plus artifacts). A task is stored, listed
 * and streamed whole, so without them one caller's giant content costs every other reader.
 *
 * Sizes are counted over content, not over the JSON around it: a text part's characters, a file
 * part's base64 bytes (or its URI), a data part's and any metadata's JSON text. That is what a
 * client or agent controls, and it is cheap to count on every send.
 *
 * A client message over its limit is refused at send (contentTooLarge). An agent's output over a
 * limit is refused where the handler emits it: the call throws, nothing is emitted, and unless
 * the handler catches it the turn fails with the error's message as the task's status message,
 * as output-mode refusals do (output-modes.ts).
 */
import type { ArtifactChunk } from '../agent.js';
import { a2aError, type A2AError } from '../a2a/errors.js';
import type { Artifact, Message, Part, Task } from '../a2a/schemas.js';

export interface SizeLimits {
  maxMessageBytes: number;
  maxArtifactBytes: number;
  maxTaskBytes: number;
}

/** Limits a runtime built without settings enforces: none. */
export const NO_SIZE_LIMITS: SizeLimits = {
  maxMessageBytes: Number.POSITIVE_INFINITY,
  maxArtifactBytes: Number.POSITIVE_INFINITY,
  maxTaskBytes: Number.POSITIVE_INFINITY,
};

/** JSON sizes of data parts and metadata already counted: a task's are counted again at each output. */
const jsonSizes = new WeakMap<object, number>();

function jsonSize(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value).length;
  let size = jsonSizes.get(value);
  if (size === undefined) {
    size = JSON.stringify(value).length;
    jsonSizes.set(value, size);
  }
  return size;
}

export function partsSize(parts: readonly Part[]): number {
  let size = 0;
  for (const part of parts) {
    if (part.kind === 'text') size += part.text.length;
    else if (part.kind === 'data') size += jsonSize(part.data);
    else size += 'bytes' in part.file ? part.file.bytes.length : part.file.uri.length;
    if (part.metadata !== undefined) size += jsonSize(part.metadata);
  }
  return size;
}

export const messageSize = (message: Message): number => partsSize(message.parts) + jsonSize(message.metadata);

const artifactSize = (artifact: Artifact): number => partsSize(artifact.parts) + jsonSize(artifact.metadata);

/** History plus artifacts. */
export function taskSize(task: Task): number {
  let size = 0;
  for (const message of task.history ?? []) size += messageSize(message);
  for (const artifact of task.artifacts ?? []) size += artifactSize(artifact);
  return size;
}

const tooLarge = (what: string, size: number, limit: number, setting: string, name: keyof SizeLimits): A2AError =>
  a2aError('contentTooLarge', `${what} is ${size} bytes, over the limit of ${limit} (${setting})`, { limit: name, size, max: limit });

/** Refuses a client message over the per-message limit (at send, before any task is touched). */
export function assertClientMessage(message: Message, limits: Pick<SizeLimits, 'maxMessageBytes'>): void {
  const size = messageSize(message);
  if (size > limits.maxMessageBytes)
    throw tooLarge('the message', size, limits.maxMessageBytes, 'SERVICE_MAX_MESSAGE_BYTES', 'maxMessageBytes');
}

/** Refuses an agent message over the per-message limit, or one that would take its task over the per-task limit. */
export function assertAgentMessage(task: Task, message: Message, limits: SizeLimits): void {
  const size = messageSize(message);
  if (size > limits.maxMessageBytes)
    throw tooLarge('the agent message', size, limits.maxMessageBytes, 'SERVICE_MAX_MESSAGE_BYTES', 'maxMessageBytes');
  assertTaskRoom(task, size, 0, limits);
}

/** Refuses an artifact chunk that would take its artifact (appended chunks together) or its task over the limit. */
export function assertArtifactChunk(task: Task, chunk: ArtifactChunk, limits: SizeLimits): void {
  const existing = chunk.artifactId === undefined ? undefined : task.artifacts?.find((a) => a.artifactId === chunk.artifactId);
  const before = existing === undefined ? 0 : artifactSize(existing);
  const added = partsSize(chunk.parts) + jsonSize(chunk.metadata);
  const after = chunk.append === true ? before + added : added;
  if (after > limits.maxArtifactBytes)
    throw tooLarge('the artifact', after, limits.maxArtifactBytes, 'SERVICE_MAX_ARTIFACT_BYTES', 'maxArtifactBytes');
  // A chunk that is not appended replaces the artifact of the same id.
  assertTaskRoom(task, after, before, limits);
}

function assertTaskRoom(task: Task, added: number, replaced: number, limits: SizeLimits): void {
  if (limits.maxTaskBytes === Number.POSITIVE_INFINITY) return;
  const size = taskSize(task) - replaced + added;
  if (size > limits.maxTaskBytes) throw tooLarge('the task', size, limits.maxTaskBytes, 'SERVICE_MAX_TASK_BYTES', 'maxTaskBytes');
}
