/**
 * One turn of a task at the runtime's seam (src/runtime/turn-effects.ts with the provided
 * machine of task-actors.ts), over the real memory store and event log, without a server: what
 * the handler's calls become in the task, the event log, the store and for transition
 * listeners, and in which order.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentDefinition, AgentHandler } from '../../src/agent.js';
import type { Message, StreamEvent, Task } from '../../src/a2a/schemas.js';
import { silentLogger } from '../../src/log.js';
import { LocalCoordinator } from '../../src/runtime/coordinator.js';
import { MemoryEventLog } from '../../src/runtime/event-log.js';
import { LiveTask } from '../../src/runtime/live-task.js';
import { LiveTasks } from '../../src/runtime/live-tasks.js';
import { taskActorStarter } from '../../src/runtime/task-actors.js';
import { createOwnership } from '../../src/runtime/task-ownership.js';
import { TaskWriter } from '../../src/runtime/task-writes.js';
import { TurnEffects } from '../../src/runtime/turn-effects.js';
import { MemoryTaskStore } from '../../src/store/memory.js';

const writers: TaskWriter[] = [];
afterEach(() => {
  for (const w of writers.splice(0)) w.close();
});

/** Runs one first turn of `handler` and returns what it left behind. */
async function oneTurn(handler: AgentHandler) {
  const store = new MemoryTaskStore();
  const events = new MemoryEventLog(100, 60_000);
  const live = new LiveTasks();
  const writer = new TaskWriter(store, silentLogger, { progressFlushInterval: 0.02, storeRetryWindow: 1 });
  writers.push(writer);
  const ownership = createOwnership({
    coordinator: new LocalCoordinator(),
    store,
    logger: silentLogger,
    settings: { cancelGrace: 1, cancelForceTimeout: 5 },
    leaseTtl: 15,
    isLive: (id) => live.has(id),
  });
  const pushed: string[] = [];
  const agent: AgentDefinition = { card: { name: 'T', description: 'T', version: '1', skills: [] }, handler };
  const effects = new TurnEffects({
    agent,
    live,
    events,
    writer,
    ownership,
    logger: silentLogger,
    transitionListeners: new Set([{ notify: (task: Task) => void pushed.push(task.status.state) }]),
  });
  const start = taskActorStarter({ effects, live, events, cancelForceTimeout: 5 });

  const message: Message = {
    kind: 'message',
    role: 'user',
    messageId: 'm1',
    parts: [{ kind: 'text', text: 'go' }],
    taskId: 't1',
    contextId: 'c1',
  };
  const task: Task = {
    kind: 'task',
    id: 't1',
    contextId: 'c1',
    status: { state: 'submitted', timestamp: new Date().toISOString() },
    history: [message],
    metadata: { stateTransitions: [] },
  };
  const logged: { seq: number; event: StreamEvent }[] = [];
  events.subscribe('t1', (entry) => void logged.push(entry));
  const liveTask = new LiveTask(task, message, { firstTurn: true, mode: 'progress' });
  live.add(liveTask);
  start(liveTask);
  liveTask.actor.send({ type: 'START' });
  const outcome = await liveTask.waitTurnEnd();
  await liveTask.settled;
  return { outcome, task, logged, pushed, stored: await store.getTask('t1'), live, liveTask };
}

const kinds = (logged: { event: StreamEvent }[]) =>
  logged.map(({ event }) => (event.kind === 'status-update' ? `status:${event.status.state}${event.final ? ':final' : ''}` : event.kind));

describe('one turn', () => {
  it('status, artifact and completion become the task, its events in order, and one final write made before the final event', async () => {
    const { outcome, logged, pushed, stored, live, liveTask } = await oneTurn((ctx) => {
      ctx.status('thinking');
      ctx.artifact({ artifactId: 'a1', parts: [{ kind: 'text', text: 'part 1' }] });
      ctx.complete('done');
    });
    expect(outcome).toEqual({ kind: 'task' });
    expect(kinds(logged)).toEqual(['status:working', 'status:working', 'artifact-update', 'artifact-update', 'status:completed:final']);
    const thinking = logged[1]?.event;
    expect(thinking?.kind === 'status-update' && thinking.status.message?.parts[0]).toEqual({ kind: 'text', text: 'thinking' });
    // The stored task is the final one, and names the final event's number.
    expect(stored?.status.state).toBe('completed');
    expect(stored?.artifacts?.map((a) => a.artifactId)).toEqual(['a1', 'final-answer']);
    expect(stored?.metadata?._eventSeq).toBe(logged.at(-1)?.seq);
    expect((stored?.metadata?.stateTransitions as { state: string }[]).map((t) => t.state)).toEqual(['submitted', 'working', 'completed']);
    expect(pushed).toEqual(['working', 'working', 'completed']);
    // The task left memory and its actor stopped.
    expect(live.size).toBe(0);
    expect(live.runningActors).toBe(0);
    expect(liveTask.run.status).toBe('closed.stored');
  });

  it('a direct reply on the first turn leaves no task: nothing stored, no events kept, nothing pushed', async () => {
    const { outcome, stored, pushed, logged } = await oneTurn((ctx) => ctx.reply('hello'));
    expect(outcome.kind).toBe('message');
    if (outcome.kind === 'message') expect(outcome.message.parts).toEqual([{ kind: 'text', text: 'hello' }]);
    expect(stored).toBeUndefined();
    expect(pushed).toEqual([]);
    expect(kinds(logged)).toEqual(['status:working']);
  });

  it('a handler that throws fails the task with a message for the client; a call after the end is ignored', async () => {
    let late: (() => void) | undefined;
    const { stored, logged } = await oneTurn((ctx) => {
      late = () => ctx.complete('too late');
      throw new Error('boom');
    });
    expect(stored?.status.state).toBe('failed');
    expect(stored?.status.message?.parts[0]).toEqual({ kind: 'text', text: 'The agent failed while handling this task.' });
    expect(kinds(logged).at(-1)).toBe('status:failed:final');
    late?.();
    expect(kinds(logged).at(-1)).toBe('status:failed:final');
  });

  it('asking for input pauses the task with the question as its status message', async () => {
    const { stored, outcome } = await oneTurn((ctx) => ctx.requestInput('which colour?'));
    expect(outcome).toEqual({ kind: 'task' });
    expect(stored?.status.state).toBe('input-required');
    expect(stored?.status.message?.parts[0]).toEqual({ kind: 'text', text: 'which colour?' });
    expect(stored?.history?.at(-1)?.parts[0]).toEqual({ kind: 'text', text: 'which colour?' });
  });
});
