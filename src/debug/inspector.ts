/**
 * The Stately inspector (`--inspect`): every task actor's inspection events go over a WebSocket
 * to a receiver, typically `createInspectorServer` from `@statelyai/inspect/server`, which relays
 * them to the inspector UI in a browser. This module is only ever loaded by a dynamic import
 * when inspection is on, so a server without it pays nothing, not even the module load.
 *
 * Why not the library's `createWebSocketInspector`: its adapter retries a failed connection every
 * 5 s forever and `stop()` does not end that loop, so a server whose receiver is not running
 * could never shut down cleanly. We keep the library's event conversion (`createInspector`) and
 * own the socket: a bounded buffer while disconnected, an unref'd retry timer, and a `stop()`
 * that ends everything.
 */
import type { StatelyInspectionEvent } from '@statelyai/inspect';
import type { InspectionEvent, Observer } from 'xstate';
import { loadBackend } from '../load-backend.js';
import type { Logger } from '../log.js';

export interface TaskInspector {
  /** Pass to `createActor(..., { inspect })`. */
  readonly inspect: Observer<InspectionEvent>;
  /** Closes the socket and stops reconnecting; later events are dropped. */
  stop(): void;
}

const RETRY_MS = 2_000;
/** Events kept while no receiver is connected; the oldest go first (a debugging aid, not a log). */
const MAX_PENDING_EVENTS = 1_000;

export async function connectInspector(url: string, logger: Logger): Promise<TaskInspector> {
  // Optional peers: only `--inspect` needs them.
  const install = ['@statelyai/inspect', 'ws'];
  const [{ createInspector }, { WebSocket }] = await Promise.all([
    loadBackend(() => import('@statelyai/inspect'), install, '--inspect'),
    loadBackend(() => import('ws'), install, '--inspect'),
  ]);
  let socket: InstanceType<typeof WebSocket> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  // One warning per outage, not one per retry.
  let warned = false;
  const pending: string[] = [];

  const connect = (): void => {
    const ws = new WebSocket(url);
    socket = ws;
    ws.on('open', () => {
      warned = false;
      logger.info('inspector.connected', { url });
      for (const text of pending.splice(0)) ws.send(text);
    });
    ws.on('error', (err: Error) => {
      if (warned) return;
      warned = true;
      logger.warn('inspector.unreachable', { url, error: err.message });
    });
    ws.on('close', () => {
      if (socket === ws) socket = undefined;
      if (stopped) return;
      // unref: a missing receiver must never keep the process alive.
      retry = setTimeout(connect, RETRY_MS);
      retry.unref();
    });
  };

  const adapter = {
    start: connect,
    stop(): void {
      stopped = true;
      clearTimeout(retry);
      pending.length = 0;
      if (socket?.readyState === WebSocket.OPEN) socket.close();
      else socket?.terminate();
    },
    send(event: StatelyInspectionEvent): void {
      if (stopped) return;
      let text: string;
      try {
        text = JSON.stringify(event);
      } catch (err) {
        // A snapshot that cannot be serialised is skipped; inspection must never break a task.
        logger.debug('inspector.unserialisable_event', { type: event.type, error: err instanceof Error ? err.message : String(err) });
        return;
      }
      if (socket?.readyState === WebSocket.OPEN) {
        socket.send(text);
        return;
      }
      pending.push(text);
      if (pending.length > MAX_PENDING_EVENTS) pending.shift();
    },
  };

  const inspector = createInspector(adapter);
  inspector.start();
  return { inspect: inspector.inspect, stop: () => inspector.stop() };
}
