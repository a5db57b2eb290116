/** Helpers for tests that drive the @a2a-js/sdk 0.3.14 client against our server. */
import { randomUUID } from 'node:crypto';
import type { Message, Task } from '@a2a-js/sdk';

/** A user message in the SDK's own type. */
export const sdkMessage = (text: string, extra: Partial<Message> = {}): Message => ({
  kind: 'message',
  role: 'user',
  messageId: randomUUID(),
  parts: [{ kind: 'text', text }],
  ...extra,
});

export const isSdkTask = (r: Task | Message): r is Task => r.kind === 'task';
