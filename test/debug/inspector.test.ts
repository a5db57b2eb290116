/**
 * The Stately inspector (`--inspect`): task actors' inspection events reach a WebSocket
 * receiver, the role `createInspectorServer` from `@statelyai/inspect/server` plays for a person.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { wireStateOf } from '../../machines/task.machine.js';
import { client, eventually, userMessage, type Json } from '../support/a2a.js';
import { spawnServer } from '../support/process.js';
import { startServer } from '../support/server.js';

/** A local receiver on 127.0.0.1 that keeps every event and notices when senders hang up. */
class Receiver {
  readonly events: Json[] = [];
  connections = 0;
  closed = 0;
  private constructor(readonly wss: WebSocketServer) {
    wss.on('connection', (ws) => {
      this.connections++;
      ws.on('message', (data) => this.events.push(JSON.parse(String(data))));
      ws.on('close', () => this.closed++);
    });
  }

  static async start(): Promise<Receiver> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(wss, 'listening');
    return new Receiver(wss);
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}`;
  }

  /** The events of the task actor whose context holds this task id. */
  eventsOf(taskId: string): Json[] {
    const sessions = new Set(
      this.events.filter((e) => e.type === '@xstate.actor' && e.snapshot?.context?.taskId === taskId).map((e) => e.sessionId),
    );
    return this.events.filter((e) => sessions.has(e.sessionId));
  }

  close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }
}

/** Waits until the receiver has seen the task machine reach `completed` for this task. */
function completedIn(receiver: Receiver, taskId: string): Promise<Json[]> {
  return eventually(() => {
    const events = receiver.eventsOf(taskId);
    return events.some((e) => e.type === '@xstate.snapshot' && e.snapshot?.value === 'completed') ? events : undefined;
  }, 10_000);
}

describe('the Stately inspector', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await Receiver.start();
  });
  afterEach(() => receiver.close());

  it('createServer({ inspect: true }) sends every task actor, event and snapshot to the receiver', async () => {
    const server = await startServer({ inspect: true, inspectUrl: receiver.url });
    try {
      const a2a = client(server.url, 'rest');
      const asked = await a2a.send({ message: userMessage('ask colour?') });
      expect(asked.result.status.state).toBe('input-required');
      const done = await a2a.send({ message: userMessage('blue', { taskId: asked.result.id }) });
      expect(done.result.status.state).toBe('completed');

      const events = await completedIn(receiver, asked.result.id);
      const actor = events.find((e) => e.type === '@xstate.actor' && JSON.parse(e.definition).id === 'task');
      expect(actor.name).toBe('task');
      // The definition travels with the actor, so the inspector can draw the machine.
      expect(JSON.parse(actor.definition).states).toHaveProperty('input-required');
      const sent = events.filter((e) => e.type === '@xstate.event').map((e) => e.event.type);
      expect(sent).toEqual(expect.arrayContaining(['START', 'REQUEST_INPUT', 'FOLLOW_UP', 'COMPLETE']));
      const runs = events.filter((e) => e.type === '@xstate.actor' && JSON.parse(e.definition).id === 'taskRun');
      const ofRun = (e: Json): boolean => runs.some((r) => r.sessionId === e.sessionId);
      const states = events.filter((e) => e.type === '@xstate.snapshot' && !ofRun(e)).map((e) => wireStateOf(e.snapshot.value));
      expect(states).toEqual(expect.arrayContaining(['submitted', 'working', 'input-required', 'completed']));

      // Each turn's run in the runtime has a mirror actor of the task-run machine, fed the same transitions.
      expect(runs).toHaveLength(2);
      const runEvents = events.filter((e) => e.type === '@xstate.event' && ofRun(e));
      expect(runEvents.map((e) => e.event.type)).toEqual(expect.arrayContaining(['EXPOSE', 'END', 'STORED']));
      const runStates = events.filter((e) => e.type === '@xstate.snapshot' && ofRun(e)).map((e) => JSON.stringify(e.snapshot.value));
      expect(runStates).toEqual(expect.arrayContaining(['{"closed":"stored"}']));
    } finally {
      await server.stop();
    }
    // Closing the server closes its inspector connection.
    await eventually(() => (receiver.closed === receiver.connections ? true : undefined), 5_000);
  });

  it('a2actor serve --inspect --inspect-url connects the CLI server to the receiver', async () => {
    const proc = await spawnServer(['examples/scenario-agent.ts', '--store', 'memory', '--inspect', '--inspect-url', receiver.url]);
    try {
      const r = await client(proc.url, 'jsonrpc').send({ message: userMessage('echo inspected') });
      expect(r.result.status.state).toBe('completed');
      await completedIn(receiver, r.result.id);
    } finally {
      expect(await proc.kill('SIGTERM')).toBe(0);
    }
  });

  it('is off by default: no connection is made', async () => {
    const server = await startServer({ inspectUrl: receiver.url });
    try {
      const r = await client(server.url, 'rest').send({ message: userMessage('echo quiet') });
      expect(r.result.status.state).toBe('completed');
    } finally {
      await server.stop();
    }
    expect(receiver.connections).toBe(0);
  });
});
