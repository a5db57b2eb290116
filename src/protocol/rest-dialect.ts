/**
 * The shapes REST answers in (SERVICE_REST_DIALECT). `a2a`, the default, is the spec's: bare
 * A2A objects (wire reference §3.1), each value passed through as it is. `proto` is the
 * proto-JSON of the v0.3 `a2a.proto` (rest-proto.ts), which the official SDK's REST transport
 * reads. Only the REST layer picks one; operations and the runtime never see a dialect.
 */
import type { AgentCard } from '../agent.js';
import type { ListTasksResult, Message, StreamEvent, Task, TaskPushNotificationConfig } from '../a2a/schemas.js';
import { objectOf, type JsonText } from './json-text.js';
import { isObject } from './params.js';
import {
  protoCard,
  protoPushConfig,
  protoPushConfigList,
  protoSendResponse,
  protoStreamResponse,
  protoTask,
  protoTaskList,
} from './rest-proto.js';

export type RestDialectName = 'a2a' | 'proto';

export interface RestDialect {
  sendResult(r: Task | Message | JsonText<Task>): unknown;
  task(t: Task): unknown;
  tasks(r: ListTasksResult): unknown;
  pushConfig(c: TaskPushNotificationConfig): unknown;
  pushConfigs(list: TaskPushNotificationConfig[]): unknown;
  card(c: AgentCard): unknown;
  /** One SSE event's `data:` JSON; `json`: the event's own JSON text when already made. */
  frame(e: StreamEvent, json: string | undefined): string;
  /** A `message:send`/`message:stream` body (already A2A JSON) with this dialect's defaults applied. */
  sendDefaults(body: unknown): unknown;
}

const same = <T>(v: T): T => v;

const A2A: RestDialect = {
  sendResult: same,
  task: same,
  tasks: same,
  pushConfig: same,
  pushConfigs: same,
  card: same,
  frame: (e, json) => json ?? JSON.stringify(e),
  sendDefaults: same,
};

/**
 * Proto3 JSON leaves a false bool out, so a proto client's non-blocking send arrives without
 * `blocking`: in this dialect an omitted `blocking` is false (the spec's default is true).
 */
function nonBlockingByDefault(body: unknown): unknown {
  if (!isObject(body)) return body;
  const conf = body.configuration;
  if (conf === undefined || conf === null) return { ...body, configuration: { blocking: false } };
  if (isObject(conf) && conf.blocking === undefined) return { ...body, configuration: { ...conf, blocking: false } };
  return body;
}

const PROTO: RestDialect = {
  // A finished task may come as its stored JSON text: proto needs the object to rename it, the
  // task it was made from when that came along (parsing the text back cost a send microseconds).
  sendResult: (r) => protoSendResponse(objectOf<Task | Message>(r)),
  task: protoTask,
  tasks: protoTaskList,
  pushConfig: protoPushConfig,
  pushConfigs: protoPushConfigList,
  card: protoCard,
  frame: (e) => JSON.stringify(protoStreamResponse(e)),
  sendDefaults: nonBlockingByDefault,
};

export const REST_DIALECTS: Readonly<Record<RestDialectName, RestDialect>> = { a2a: A2A, proto: PROTO };
