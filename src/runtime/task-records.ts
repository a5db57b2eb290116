/** Changes to a stored task's record made outside a running turn (recovery, orphan cancel). */
import type { Task, TaskState } from '../a2a/schemas.js';
import { nextStatusTimestamp } from './status-clock.js';
import { agentMessage } from './task-views.js';

export type Transition = { state: TaskState; timestamp: string };

/** The task's transition timeline (`metadata.stateTransitions`), created if missing. */
export function transitionsOf(task: Task): Transition[] {
  const metadata = (task.metadata ??= {});
  const existing = metadata.stateTransitions;
  if (Array.isArray(existing)) return existing as Transition[];
  const fresh: Transition[] = [];
  metadata.stateTransitions = fresh;
  return fresh;
}

/** Ends the task `failed` with an agent message giving the reason. */
export function markFailed(task: Task, reason: string): void {
  const timestamp = nextStatusTimestamp(task);
  const message = agentMessage(reason, task.id, task.contextId);
  task.status = { state: 'failed', timestamp, message };
  task.history = [...(task.history ?? []), message];
  transitionsOf(task).push({ state: 'failed', timestamp });
}

/** Ends the task `canceled`. */
export function markCanceled(task: Task): void {
  const timestamp = nextStatusTimestamp(task);
  task.status = { state: 'canceled', timestamp };
  transitionsOf(task).push({ state: 'canceled', timestamp });
}
