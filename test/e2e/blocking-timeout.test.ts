/**
 * A blocking message/send waits at most SERVICE_BLOCKING_TIMEOUT (spec "Request flow" 3, and the
 * limits table: "waits until completion or timeout"). When the handler outlasts it, the caller
 * gets the task as it stands, still running; the task is already in the store (so a poll finds
 * it) and runs on to its end. Over both transports and both stores, on a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, eventually, TRANSPORTS, userMessage, type A2AClient, type Json } from '../support/a2a.js';
import { startServer, STORE_KINDS, type TestServer } from '../support/server.js';

/** Far longer than the wait below, so the reply cannot have waited for the end. */
const HANDLER_MS = 1500;

describe.each(STORE_KINDS)('blocking send past its timeout, %s store', (storeKind) => {
  let server: TestServer;
  beforeAll(async () => {
    // Through the environment, as an operator sets it.
    server = await startServer({ storeKind, env: { SERVICE_BLOCKING_TIMEOUT: '0.3' } });
  });
  afterAll(() => server.stop());

  describe.each(TRANSPORTS)('over %s', (transport) => {
    let a2a: A2AClient;
    beforeAll(() => {
      a2a = client(server.url, transport);
    });

    it('returns the task still working, already stored, and the task runs on to completion', async () => {
      const sent = await a2a.send({ message: userMessage(`slow ${HANDLER_MS}`) });
      expect(sent.status).toBe(200);
      expect(sent.result.kind).toBe('task');
      expect(sent.result.status.state).toBe('working');
      const id: string = sent.result.id;

      // The id was handed out, so the task is in the store: a poll right away finds it running.
      const polled = await a2a.get(id);
      expect(polled.status).toBe(200);
      expect(polled.result.id).toBe(id);
      expect(['working', 'completed']).toContain(polled.result.status.state);

      const done = await eventually(async () => {
        const r = await a2a.get(id);
        return r.result.status.state === 'completed' ? r.result : undefined;
      }, 10_000);
      expect(done.artifacts.flatMap((a: Json) => a.parts.map((p: Json) => p.text))).toEqual([`slept ${HANDLER_MS} ms`]);
      expect(done.metadata.stateTransitions.map((t: Json) => t.state)).toEqual(['submitted', 'working', 'completed']);
    });

    it('a handler that ends within the timeout is still answered with its final state', async () => {
      const sent = await a2a.send({ message: userMessage('slow 50') });
      expect(sent.status).toBe(200);
      expect(sent.result.status.state).toBe('completed');
    });
  });
});
