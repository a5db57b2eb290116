/**
 * Feeds of task events for streaming clients, independent of the wire: `message:stream` (the
 * task snapshot, then every event of the turn until the final one) and `subscribe` (the current
 * task or a `Last-Event-ID` replay, then live events until the final one). The HTTP layer
 * writes them as SSE.
 *
 * No gap, no duplicate: a snapshot carries the number of the newest event it reflects
 * (`_eventSeq`) and is taken in the same synchronous block as the log read that follows it, so
 * every event is either in the snapshot or after it in the log; FeedRun does the rest.
 */
import { a2aError } from '../a2a/errors.js';
import type { MessageSendParams, Task } from '../a2a/schemas.js';
import { isInterruptedState, isTerminalState } from '../../machines/task.machine.js';
import { eventSeqOf } from './event-log.js';
import { FeedRun, type FeedSink } from './feed-run.js';
import type { LiveTask } from './live-task.js';
import type { TaskService } from './task-service.js';
import type { Caller } from '../auth/types.js';
import { taskView } from './task-views.js';

export type { FeedSink };

export interface TaskFeed {
  /** The task this feed streams (for log lines). */
  readonly taskId: string;
  /** Starts delivering to `sink`. */
  start(sink: FeedSink): void;
  /**
   * Releases the feed's subscription, once: the client is gone, the stream is over, or the feed
   * will never be started (the client left before the stream opened).
   */
  cancel(): void;
}

const noop = (): void => {};
const isTerminal = (task: Task): boolean => isTerminalState(task.status.state);
/** A turn is over once its task is terminal or waits for the client. */
const endsTurn = (task: Task): boolean => isTerminal(task) || isInterruptedState(task.status.state);
/** Re-reads of a stored task that raced a new turn, before settling for what is there. */
const MAX_SNAPSHOT_ATTEMPTS = 3;

/** A `Last-Event-ID` we issued: a non-negative integer. Anything else is ignored. */
function parseEventId(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (!text || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * The task as it stands, then live events: from the live record when a turn runs (snapshot,
 * number and subscription in one synchronous block), else from the store. A stored task
 * reflects the end of its last turn; if a newer turn raced the read, read again. `endsAt`
 * says which stored states end the feed at once.
 */
async function attachCurrent(service: TaskService, taskId: string, run: FeedRun, endsAt: (task: Task) => boolean): Promise<void> {
  const events = service.events;
  for (let attempt = 1; ; attempt++) {
    const live = service.liveTask(taskId);
    if (live) {
      const seq = eventSeqOf(live.task);
      run.batch(() => {
        run.snapshot(taskView(live.task), seq, false);
        if (!run.stopped) run.follow(seq, events.since(taskId, seq) ?? []);
      });
      return;
    }
    const stored = await service.getTask(taskId);
    if (run.stopped) return;
    if (service.liveTask(taskId) && attempt < MAX_SNAPSHOT_ATTEMPTS) continue;
    const seq = eventSeqOf(stored);
    const replay = events.since(taskId, seq);
    // No replay and a log ahead of the stored task: a turn ran and ended while we read.
    if (!replay && events.lastSeq(taskId) > seq && attempt < MAX_SNAPSHOT_ATTEMPTS) continue;
    run.batch(() => {
      run.snapshot(stored, seq, endsAt(stored));
      // A log behind the snapshot (dropped, or a restart) has nothing to add: follow from it.
      if (!run.stopped) run.follow(seq, replay ?? []);
    });
    return;
  }
}

/** `message:stream`: accepts the message, then streams its turn. */
export async function openTurnFeed(
  service: TaskService,
  params: MessageSendParams,
  caller?: Caller,
  extensions?: readonly string[],
): Promise<TaskFeed> {
  const started = await service.startTurn(params, 'stream', caller, extensions);
  if (started.kind === 'existing') {
    // The same messageId again: show the task it produced, following its turn if it still runs.
    return openResubscribe(service, started.task.id, undefined, { repeat: true, owner: caller?.principal.id });
  }
  return new TurnFeed(service, started.live);
}

/**
 * The feed of one `message:stream` turn. A class rather than a record of closures: every
 * stream makes one, and its methods are shared.
 */
class TurnFeed implements TaskFeed {
  readonly taskId: string;
  private readonly run: FeedRun;
  /** The task as the client's message found it: the turn's events follow it. */
  private readonly initial: Task;

  constructor(
    private readonly service: TaskService,
    private readonly live: LiveTask,
  ) {
    this.taskId = live.id;
    this.initial = live.initialSnapshot ?? taskView(live.task);
    this.run = new FeedRun(service.events, live.id);
    // Hold the log until the client attaches: with no listener, a turn that ends before then
    // could have its events dropped (retention 0) and the stream would wait for nothing.
    this.run.hold();
  }

  start(sink: FeedSink): void {
    this.run.start(sink);
    void this.attach();
  }

  cancel(): void {
    this.run.stop();
  }

  /** Every way out of here follows the log or stops the run, which releases its hold. */
  private async attach(): Promise<void> {
    const { service, live, run, initial } = this;
    try {
      const outcome = await live.run.waitExposed();
      if (run.stopped) return;
      if (outcome.kind === 'message') {
        run.message(outcome.message);
        return;
      }
      // The first event gives the client the task id: other replicas must find it by then.
      await service.ensureVisible(live);
      if (run.stopped) return;
      const seq = eventSeqOf(initial);
      const replay = service.events.since(live.id, seq);
      if (replay) {
        // The snapshot and the events the turn made meanwhile: one write.
        run.batch(() => {
          run.snapshot(initial, seq, false);
          if (!run.stopped) run.follow(seq, replay);
        });
      } else {
        // The ring overflowed before the client attached (or replay is off): start from the
        // task as it stands, which holds everything the missing events carried.
        await attachCurrent(service, live.id, run, endsTurn);
      }
    } catch (err) {
      run.fail(err);
    }
  }
}

/**
 * `tasks/{id}:subscribe`: the current task then live events until the final one, or with
 * `Last-Event-ID` every event after that id the log still holds, then live events (the
 * snapshot first when it no longer holds them all). A task in a terminal state is refused
 * unless the client resumes a stream and missed some of the task's last events. `repeat`: a
 * message:stream sent again, which shows its task in any state and ends where a turn ends.
 */
export async function openResubscribe(
  service: TaskService,
  taskId: string,
  lastEventId: string | undefined,
  opts: { repeat?: boolean; owner?: string | undefined } = {},
): Promise<TaskFeed> {
  const events = service.events;
  // With replicas, the task may run elsewhere: bring its events here first (a no-op otherwise).
  const release = (await events.prepare?.(taskId)) ?? noop;
  let task: Task;
  try {
    // With auth on, another principal's task is unknown here too (before any event is sent).
    task = await service.getTask(taskId, 0, opts.owner);
  } catch (err) {
    release();
    throw err;
  }
  const resumeFrom = parseEventId(lastEventId);
  // A client resuming a stream it lost may still be owed the end of a finished task: the
  // missed events if the log holds them, else the final snapshot.
  const owed = resumeFrom !== undefined && resumeFrom < eventSeqOf(task);
  if (isTerminal(task) && !opts.repeat && !owed) {
    release();
    throw a2aError('subscribeTerminal', `task is ${task.status.state}`);
  }
  const run = new FeedRun(events, taskId);
  let released = false;
  const cancel = (): void => {
    run.stop();
    if (released) return;
    released = true;
    release();
  };
  return {
    taskId,
    start(sink) {
      run.start(sink);
      let replay = resumeFrom === undefined ? undefined : events.since(taskId, resumeFrom);
      // A log behind the task's own number (dropped, or a restart) has nothing newer: a client
      // that saw all the task held waits for what comes next, without a snapshot.
      if (!replay && resumeFrom === eventSeqOf(task) && events.lastSeq(taskId) <= resumeFrom) replay = [];
      // An empty replay is trusted only from a client that saw everything the task held when
      // we checked: it was not terminal then, and it cannot end without a newer event.
      if (resumeFrom !== undefined) service.metrics.replayServed(replay && (replay.length > 0 || !owed) ? 'log' : 'snapshot');
      if (replay && (replay.length > 0 || !owed)) run.batch(() => run.follow(resumeFrom ?? 0, replay));
      else attachCurrent(service, taskId, run, opts.repeat ? endsTurn : isTerminal).catch((err: unknown) => run.fail(err));
    },
    cancel,
  };
}
