/**
 * Spec error row "503, task manager not initialized": a service that has not finished start-up
 * (or has been closed) refuses work through both transports with 503, never a 500.
 */
import { describe, expect, it } from 'vitest';
import scenarioAgent from '../../examples/scenario-agent.js';
import { silentLogger } from '../../src/log.js';
import { createOperations } from '../../src/protocol/operations.js';
import { createRouter, type ProtocolRequest } from '../../src/protocol/router.js';
import { PushConfigs } from '../../src/push/configs.js';
import { MemoryEventLog } from '../../src/runtime/event-log.js';
import { TaskService } from '../../src/runtime/task-service.js';
import { MemoryTaskStore } from '../../src/store/memory.js';

const settings = { blockingTimeout: 5, cancelForceTimeout: 1, cancelGrace: 1, progressFlushInterval: 0.25, storeRetryWindow: 1 };

function stack() {
  const store = new MemoryTaskStore();
  const service = new TaskService({ agent: scenarioAgent, store, events: new MemoryEventLog(10, 0), settings, logger: silentLogger });
  const ops = createOperations({
    service,
    push: new PushConfigs(store),
    card: {
      agent: scenarioAgent,
      capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: true },
      preferredTransport: 'JSONRPC',
    },
  });
  return { service, route: createRouter(ops, silentLogger).route };
}

const request = (method: string, path: string, body?: unknown): ProtocolRequest => ({
  method,
  path,
  query: '',
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
  baseUrl: 'http://127.0.0.1:1',
});

const send = { message: { role: 'user', kind: 'message', messageId: 'm1', parts: [{ kind: 'text', text: 'echo x' }] } };

describe('a task manager that is not initialized', () => {
  it.each([
    ['before init', async () => stack()],
    [
      'after close',
      async () => {
        const s = stack();
        await s.service.init();
        await s.service.close();
        return s;
      },
    ],
  ])('%s answers 503 on REST and JSON-RPC (HTTP 503, code -32603)', async (_when, make) => {
    const { route } = await make();
    const rest = await route(request('POST', '/v1/message:send', send));
    expect(rest).toMatchObject({ kind: 'json', status: 503 });
    if (rest.kind === 'json')
      expect(JSON.parse(rest.body)).toMatchObject({ code: -32603, message: expect.stringMatching(/not initialized/) });
    const rpc = await route(request('POST', '/', { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }));
    expect(rpc).toMatchObject({ kind: 'json', status: 503 });
    if (rpc.kind === 'json') expect(JSON.parse(rpc.body)).toMatchObject({ id: 1, error: { code: -32603 } });
    const health = await route(request('GET', '/v1/health'));
    expect(health).toMatchObject({ status: 503 });
  });

  it('serves once init has run', async () => {
    const { service, route } = stack();
    await service.init();
    const rest = await route(request('POST', '/v1/message:send', send));
    expect(rest).toMatchObject({ kind: 'json', status: 200 });
    await service.close();
  });
});
