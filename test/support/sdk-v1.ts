/** Helpers for tests that drive @a2a-js/sdk 1.3.0 (installed as `a2a-sdk-v1`) in its v0.3 compatibility mode. */
import { randomUUID } from 'node:crypto';
import { Role, type Message, type SendMessageRequest, type Task } from 'a2a-sdk-v1';

/** A user text message in the 1.x client's own (proto) shape. */
export const v1Message = (text: string, extra: Partial<Message> = {}): Message => ({
  messageId: randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...extra,
});

/** A SendMessageRequest for `message`; `returnImmediately` is 1.x's name for a non-blocking send. */
export const v1Send = (message: Message, returnImmediately = false): SendMessageRequest => ({
  tenant: '',
  message,
  configuration: { acceptedOutputModes: [], historyLength: undefined, taskPushNotificationConfig: undefined, returnImmediately },
  metadata: undefined,
});

export const isV1Task = (r: Task | Message): r is Task => 'status' in r && 'id' in r;
