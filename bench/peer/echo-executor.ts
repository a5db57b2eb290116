/**
 * The peer's echo agent on @a2a-js/sdk 0.3.14: the same behaviour as bench/agents/echo-agent.ts.
 * It publishes what our runtime emits for one task (submitted task, `working`, one artifact,
 * final `completed`), so both servers store and stream the same task.
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
    const artifact: TaskArtifactUpdateEvent = {
      kind: 'artifact-update',
      taskId,
      contextId,
      artifact: { artifactId: 'echo', name: 'echo', parts: [{ kind: 'text', text: textOf(userMessage) }] },
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
