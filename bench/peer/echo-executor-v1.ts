/**
 * The v1.0 peer's echo agent on @a2a-js/sdk 1.3.0 (installed as `a2a-sdk-v1`): the behaviour of
 * bench/peer/echo-executor.ts, in the 1.3.0 SDK's types. It publishes what our runtime emits for
 * one task (submitted task, `working`, one artifact, final `completed`), so both servers store and
 * stream the same task; `ask <q>` pauses a new task in `input-required` with <q> as its question,
 * as ours does. v1.0 status updates carry no `final` flag: the terminal state ends the stream.
 */
import { Role, TaskState, type Message, type Part, type Task, type TaskStatusUpdateEvent } from 'a2a-sdk-v1';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-v1/server';

const textOf = (message: Message): string =>
  message.parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('\n');

const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' });

const statusUpdate = (taskId: string, contextId: string, state: TaskState, message?: Message): TaskStatusUpdateEvent => ({
  taskId,
  contextId,
  status: { state, message, timestamp: new Date().toISOString() },
  metadata: undefined,
});

export class EchoExecutorV1 implements AgentExecutor {
  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = request;
    // The 1.3.0 handler wants a task (or a message) first on every turn, a follow-up's too.
    const task: Task = request.task ?? {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [userMessage],
      metadata: undefined,
    };
    bus.publish(AgentEvent.task(task));
    bus.publish(AgentEvent.statusUpdate(statusUpdate(taskId, contextId, TaskState.TASK_STATE_WORKING)));
    const text = textOf(userMessage);
    // `ask <q>` on a new task pauses it; its follow-up is echoed like any message.
    if (!request.task && text.startsWith('ask')) {
      const question: Message = {
        messageId: crypto.randomUUID(),
        contextId,
        taskId,
        role: Role.ROLE_AGENT,
        parts: [textPart(text.slice(4) || 'What next?')],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      bus.publish(AgentEvent.statusUpdate(statusUpdate(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, question)));
      bus.finished();
      return;
    }
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: { artifactId: 'echo', name: 'echo', description: '', parts: [textPart(text)], metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(AgentEvent.statusUpdate(statusUpdate(taskId, contextId, TaskState.TASK_STATE_COMPLETED)));
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    // The echo finishes synchronously, so a cancel can only meet a task that already ended;
    // answering it the SDK's way keeps the executor complete.
    bus.publish(AgentEvent.statusUpdate(statusUpdate(taskId, '', TaskState.TASK_STATE_CANCELED)));
    bus.finished();
  }
}
