/**
 * With replicas, a task's lease is held exactly while another replica could act on the task
 * (src/runtime/task-ownership.ts): a new task takes it before it is first stored unfinished, and
 * one that is first stored finished (or replaced by a direct reply) never needs one. A
 * recording coordinator stands in for Redis; the service and its stores are the real ones.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentDefinition, AgentHandler } from '../../src/agent.js';
import { ERRORS, isA2AError } from '../../src/a2a/errors.js';
import type { Message } from '../../src/a2a/schemas.js';
import { silentLogger } from '../../src/log.js';
import type { Coordinator } from '../../src/runtime/coordinator.js';
import { MemoryEventLog } from '../../src/runtime/event-log.js';
import { TaskService } from '../../src/runtime/task-service.js';
import { MemoryTaskStore } from '../../src/store/memory.js';
import { eventually } from '../support/a2a.js';

const settings = { blockingTimeout: 5, cancelForceTimeout: 1, cancelGrace: 1, progressFlushInterval: 0.02, storeRetryWindow: 1 };

/** A coordinator of one replica among others: every lease operation is recorded. */
class RecordingCoordinator implements Coordinator {
  readonly replicaId = 'r1';
  readonly description = 'recording';
  connected = true;
  readonly held = new Set<string>();
  readonly acquired: string[] = [];
  async acquire(taskId: string): Promise<boolean> {
    this.acquired.push(taskId);
    this.held.add(taskId);
    return true;
  }
  async release(taskId: string): Promise<void> {
    this.held.delete(taskId);
  }
  async isOwned(taskId: string): Promise<boolean> {
    return this.held.has(taskId);
  }
  async requestCancel(): Promise<void> {}
  onCancelRequest(): void {}
  async ping(): Promise<void> {}
  async close(): Promise<void> {}
}

const services: TaskService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

async function replica(handler: AgentHandler) {
  const store = new MemoryTaskStore();
  const coordinator = new RecordingCoordinator();
  const agent: AgentDefinition = { card: { name: 'T', description: 'T', version: '1', skills: [] }, handler };
  const service = new TaskService({ agent, store, events: new MemoryEventLog(10, 60_000), settings, logger: silentLogger, coordinator });
  services.push(service);
  await service.init();
  return { service, store, coordinator };
}

const message = (text: string): Message => ({
  kind: 'message',
  role: 'user',
  messageId: crypto.randomUUID(),
  parts: [{ kind: 'text', text }],
});

describe('task leases with replicas', () => {
  it('a blocking send whose task is first stored finished takes no lease', async () => {
    const { service, store, coordinator } = await replica((ctx) => {
      ctx.artifact({ parts: [{ kind: 'text', text: ctx.text }] });
      ctx.complete();
    });
    const sent = await service.sendMessage({ message: message('hi') });
    expect(sent.kind === 'task' && sent.task.status.state).toBe('completed');
    const id = sent.kind === 'task' ? sent.task.id : '';
    expect((await store.getTask(id))?.status.state).toBe('completed');
    expect(coordinator.acquired).toEqual([]);
  });

  it('a task stored while it runs is held here from before that write until its turn ends', async () => {
    let finish = () => {};
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const { service, store, coordinator } = await replica(async (ctx) => {
      await gate;
      ctx.complete();
    });
    const sent = await service.sendMessage({ message: message('hi'), configuration: { blocking: false } });
    const id = sent.kind === 'task' ? sent.task.id : '';
    // The sweep of another replica fails an unfinished stored task that nobody holds.
    expect((await store.getTask(id))?.status.state).toMatch(/submitted|working/);
    expect(coordinator.acquired).toEqual([id]);
    expect(coordinator.held.has(id)).toBe(true);
    finish();
    await eventually(() => (coordinator.held.has(id) ? undefined : true), 2000, 10);
    expect((await store.getTask(id))?.status.state).toBe('completed');
  });

  it('a task first stored paused is held until its turn has ended, so the follow-up can take it', async () => {
    const { service, coordinator } = await replica((ctx) => ctx.requestInput('where?'));
    const sent = await service.sendMessage({ message: message('hi') });
    const id = sent.kind === 'task' ? sent.task.id : '';
    expect(sent.kind === 'task' && sent.task.status.state).toBe('input-required');
    expect(coordinator.acquired).toEqual([id]);
    await eventually(() => (coordinator.held.has(id) ? undefined : true), 2000, 10);
  });

  it('a direct reply leaves no lease behind', async () => {
    const { service, coordinator } = await replica((ctx) => ctx.reply('just a message'));
    const sent = await service.sendMessage({ message: message('hi') });
    expect(sent.kind).toBe('message');
    expect(coordinator.acquired).toEqual([]);
    expect(coordinator.held.size).toBe(0);
  });

  it('a new task is refused with 503 while the coordination backend is disconnected', async () => {
    const { service, coordinator } = await replica((ctx) => ctx.complete());
    coordinator.connected = false;
    const refused = await service.sendMessage({ message: message('hi') }).catch((err: unknown) => err);
    expect(isA2AError(refused) && refused.entry === ERRORS.unavailable).toBe(true);
  });
});
