/**
 * The last line of defence for a task's final write. Client JSON is depth-checked at the edge
 * and agent JSON when the agent hands it over (agent-context.ts), but if a task still cannot be
 * serialized (a value that slipped past both), it is stored failed with what can be kept,
 * rather than lost or taking the process down with a RangeError.
 */
import { errorFields, type Logger } from '../log.js';
import type { Task } from '../a2a/schemas.js';
import { agentMessage } from './task-views.js';

const UNSTORABLE = "The task's result could not be stored, so it was marked failed";

const serializes = (value: unknown): boolean => {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
};

/**
 * `JSON.stringify(task)`; when that throws, the task is changed in place to `failed`, keeping
 * the history entries, artifacts and metadata keys that do serialize, and the reason is logged.
 */
export function serializeOrFail(task: Task, logger: Logger): string {
  try {
    return JSON.stringify(task);
  } catch (err) {
    logger.error('runtime.task_unserializable', { taskId: task.id, state: task.status.state, ...errorFields(err) });
  }
  const message = agentMessage(UNSTORABLE, task.id, task.contextId);
  const timestamp = task.status.timestamp;
  task.status = { state: 'failed', timestamp, message };
  task.history = [...(task.history ?? []).filter(serializes), message];
  if (task.artifacts) task.artifacts = task.artifacts.filter(serializes);
  // fromEntries defines each key as data, so a key named `__proto__` stays a key.
  const metadata: Record<string, unknown> = Object.fromEntries(Object.entries(task.metadata ?? {}).filter(([, v]) => serializes(v)));
  // The turn's last transition is the one this failure replaces: nobody has been told of it yet.
  const transitions = metadata.stateTransitions;
  if (Array.isArray(transitions) && transitions.length > 0) {
    transitions[transitions.length - 1] = { state: 'failed', timestamp };
  }
  task.metadata = metadata;
  return JSON.stringify(task);
}
