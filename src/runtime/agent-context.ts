/**
 * The object an agent handler receives for one turn. Each method turns into one machine event;
 * the machine decides whether it is accepted (after a cancel, or once the task has ended, calls
 * are ignored).
 */
import type { AgentContext, ArtifactChunk, Content } from '../agent.js';
import type { TaskMachineEventType } from '../../machines/task.machine.js';
import type { Message } from '../protocol/schemas.js';
import type { LiveTask } from './live-task.js';
import { agentMessage, newId, partsOf, textOf } from './task-views.js';

export interface AgentContextDriver {
  /** Sends `type` to the task's actor if it accepts it, running `effect` (the data) first. */
  agentEvent(live: LiveTask, type: TaskMachineEventType, effect?: () => void): boolean;
  /** Applies an artifact chunk and publishes its event; a chunk without an id gets `defaultId()`. */
  addArtifact(live: LiveTask, chunk: ArtifactChunk, defaultId: () => string): void;
  /** A direct reply: replaces a first-turn task with a Message, or completes it. */
  reply(live: LiveTask, message: Message): void;
}

export function createAgentContext(live: LiveTask, driver: AgentContextDriver): AgentContext {
  const { task } = live;
  const message = live.turnMessage;
  const say = (content: Content) => agentMessage(content, task.id, task.contextId);
  const withMessage = (type: TaskMachineEventType, content: Content) => {
    const msg = say(content);
    driver.agentEvent(live, type, () => {
      live.pendingMessage = msg;
    });
  };

  return {
    message,
    text: textOf(message),
    taskId: task.id,
    contextId: task.contextId,
    history: task.history ?? [],
    artifacts: task.artifacts ?? [],
    get signal() {
      return live.signal;
    },
    status(content) {
      const msg = content === undefined ? undefined : say(content);
      driver.agentEvent(live, 'STATUS', () => {
        live.pendingMessage = msg;
      });
    },
    artifact(chunk) {
      driver.agentEvent(live, 'ARTIFACT', () => driver.addArtifact(live, chunk, newId));
    },
    complete(content) {
      driver.agentEvent(live, 'COMPLETE', () => {
        if (content !== undefined) {
          driver.addArtifact(live, { artifactId: 'final-answer', parts: partsOf(content), lastChunk: true }, newId);
        }
      });
    },
    fail: (reason) => withMessage('FAIL', reason),
    reject: (reason) => withMessage('REJECT', reason),
    requestInput: (question) => withMessage('REQUEST_INPUT', question),
    requestAuth: (details) => withMessage('REQUEST_AUTH', details),
    reply(content) {
      driver.reply(live, say(content));
    },
  };
}
