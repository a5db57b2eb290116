/**
 * The peer's echo agent on @a2a-js/sdk 0.3.14: the same behaviour as bench/agents/echo-agent.ts.
 * It publishes what our runtime emits for one task (submitted task, `working`, one artifact,
 * final `completed`), so both servers store and stream the same task; `ask <q>` pauses a new task in
 * `input-required` with <q> as its question, as ours does (W9).
 */
import type { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';

const textOf = (message: Message): string => message.parts.flatMap((part) => (part.kind === 'text' ? [part.text] : [])).join('\n');

const statusUpdate = (
  taskId: string,
  contextId: string,
  state: TaskStatusUpdateEvent['status']['state'],
  final: boolean,
): TaskStatusUpdateEvent => ({
  kind: 'status-update',
  taskId,
  contextId,
  status: { state, timestamp: new Date().toISOString() },
  final,
});

export class EchoExecutor implements AgentExecutor {
  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = request;
    if (!request.task) {
      const task: Task = {
        kind: 'task',
        id: taskId,
        contextId,
        status: { state: 'submitted', timestamp: new Date().toISOString() },
        history: [userMessage],
      };
      bus.publish(task);
    }
    bus.publish(statusUpdate(taskId, contextId, 'working', false));
    const text = textOf(userMessage);
    // `ask <q>` on a new task pauses it (W9); its follow-up is echoed like any message.
    if (!request.task && text.startsWith('ask')) {
      const question: Message = {
        kind: 'message',
        role: 'agent',
        messageId: crypto.randomUUID(),
        taskId,
        contextId,
        parts: [{ kind: 'text', text: text.slice(4) || 'What next?' }],
      };
      bus.publish({
        ...statusUpdate(taskId, contextId, 'input-required', true),
        status: { state: 'input-required', message: question, timestamp: new Date().toISOString() },
      });
      bus.finished();
      return;
    }
    const artifact: TaskArtifactUpdateEvent = {
      kind: 'artifact-update',
      taskId,
      contextId,
      artifact: { artifactId: 'echo', name: 'echo', parts: [{ kind: 'text', text }] },
      lastChunk: true,
    };
    bus.publish(artifact);
    bus.publish(statusUpdate(taskId, contextId, 'completed', true));
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    // The echo finishes synchronously, so a cancel can only meet a task that already ended;
    // answering it the SDK's way keeps the executor complete.
    bus.publish(statusUpdate(taskId, '', 'canceled', true));
    bus.finished();
  }
}
