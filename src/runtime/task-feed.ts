/**
 * Feeds of task events for streaming clients, independent of the wire: `message:stream` (the
 * task snapshot, then every event of the turn until the final one) and `subscribe` (the current
 * task or a `Last-Event-ID` replay, then live events). The HTTP layer writes them as SSE.
 */
import { a2aError } from '../protocol/errors.js';
import type { MessageSendParams, StreamEvent, Task } from '../protocol/schemas.js';
import { isTerminalState } from '../../machines/task.machine.js';
import type { LoggedEvent, TaskEventLog } from './event-log.js';
import type { TaskService } from './task-service.js';
import { taskView } from './task-views.js';

export interface FeedSink {
  /** One event; `seq` becomes the SSE `id:` (absent for a direct reply). */
  event(event: StreamEvent, seq: number | undefined): void;
  /** The feed is over: the final event was delivered. */
  end(): void;
}

export interface TaskFeed {
  /** Starts delivering; returns the function that releases the subscription (client gone). */
  start(sink: FeedSink): () => void;
}

const isFinal = (event: StreamEvent): boolean => event.kind === 'status-update' && event.final;
const endsFeed = (task: Task): boolean => isTerminalState(task.status.state);

/** Replays what the log holds after `afterSeq`, then follows live events until a final one. */
function follow(events: TaskEventLog, taskId: string, afterSeq: number, sink: FeedSink): () => void {
  let done = false;
  let unsubscribe = (): void => {};
  let lastSeq = afterSeq;
  const deliver = (entry: LoggedEvent): void => {
    if (done || entry.seq <= lastSeq) return;
    lastSeq = entry.seq;
    sink.event(entry.event, entry.seq);
    if (isFinal(entry.event)) {
      done = true;
      unsubscribe();
      sink.end();
    }
  };
  // Replay and subscription happen in one synchronous block: no event can fall between them,
  // and `entry.seq <= lastSeq` drops any event seen twice.
  for (const entry of events.since(taskId, afterSeq) ?? []) deliver(entry);
  if (done) return () => {};
  unsubscribe = events.subscribe(taskId, deliver);
  return () => {
    done = true;
    unsubscribe();
  };
}

/** `message:stream`: accepts the message, then streams its turn. */
export async function openTurnFeed(service: TaskService, params: MessageSendParams): Promise<TaskFeed> {
  const started = await service.startTurn(params, 'stream');
  if (started.kind === 'existing') {
    // The same messageId again: show the task it produced, following it if it still runs.
    return openResubscribe(service, started.task.id, undefined, { allowTerminal: true });
  }
  const { live } = started;
  const initial = live.initialSnapshot ?? taskView(live.task);
  const firstSeq = live.firstTurn ? 0 : service.events.lastSeq(live.id);
  return {
    start(sink) {
      let stopped = false;
      let stop = (): void => {};
      void live.waitExposed().then((outcome) => {
        if (stopped) return;
        if (outcome.kind === 'message') {
          sink.event(outcome.message, undefined);
          sink.end();
          return;
        }
        sink.event(live.firstTurn ? initial : taskView(live.task), firstSeq);
        stop = follow(service.events, live.id, firstSeq, sink);
      });
      return () => {
        stopped = true;
        stop();
      };
    },
  };
}

/**
 * `tasks/{id}:subscribe`: the current task then live events, or with `Last-Event-ID` every event
 * after that id the log still holds (the snapshot first when it no longer holds them all).
 */
export async function openResubscribe(
  service: TaskService,
  taskId: string,
  lastEventId: string | undefined,
  opts: { allowTerminal?: boolean } = {},
): Promise<TaskFeed> {
  const fetched = await service.getTask(taskId);
  const fetchedSeq = service.events.lastSeq(taskId);
  const resumeFrom = lastEventId !== undefined && /^\d+$/.test(lastEventId.trim()) ? Number(lastEventId) : undefined;
  const replayable = resumeFrom !== undefined && service.events.since(taskId, resumeFrom) !== undefined;
  if (endsFeed(fetched) && !opts.allowTerminal && !replayable) {
    throw a2aError('subscribeTerminal', `task is ${fetched.status.state}`);
  }
  return {
    start(sink) {
      const events = service.events;
      if (resumeFrom !== undefined && events.since(taskId, resumeFrom) !== undefined) {
        return follow(events, taskId, resumeFrom, sink);
      }
      const live = service.liveTask(taskId);
      const snapshot = live ? taskView(live.task) : fetched;
      const seq = live ? events.lastSeq(taskId) : fetchedSeq;
      sink.event(snapshot, seq);
      if (endsFeed(snapshot)) {
        sink.end();
        return () => {};
      }
      return follow(events, taskId, seq, sink);
    },
  };
}
