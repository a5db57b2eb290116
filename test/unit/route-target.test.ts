/**
 * The router matches a request before it runs anything: what the request is (transport,
 * operation, task, version) is known from the target alone, which is what metrics, spans and
 * logs are named from, and nothing is answered until the target is dispatched.
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

function router() {
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
  return { service, router: createRouter(ops, silentLogger) };
}

const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): ProtocolRequest => ({
  method,
  path,
  query: '',
  headers: { 'content-type': 'application/json', ...headers },
  body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
  baseUrl: 'http://127.0.0.1:1',
});

const rpc = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });

describe('the router names a request before it answers it', () => {
  it.each([
    ['a v0.3 JSON-RPC get', request('POST', '/', rpc('tasks/get', { id: 't-1' })), 'jsonrpc', 'jsonrpc', 'tasks/get', 't-1', '0.3'],
    ['a v1.0 JSON-RPC get', request('POST', '/', rpc('GetTask', { id: 't-2' })), 'jsonrpc', 'jsonrpc', 'GetTask', 't-2', '1.0'],
    ['an unknown JSON-RPC method', request('POST', '/', rpc('tasks/nope', {})), 'jsonrpc', 'jsonrpc', 'unknown', undefined, '0.3'],
    ['a v0.3 REST get', request('GET', '/v1/tasks/t-3'), 'rest', 'rest', 'tasks/get', 't-3', '0.3'],
    ['a v1.0 REST cancel', request('POST', '/tasks/t-4:cancel'), 'v1-rest', 'rest', 'CancelTask', 't-4', '1.0'],
    ['the discovery card', request('GET', '/.well-known/agent-card.json'), 'card', 'card', 'agent/card', undefined, '0.3'],
    [
      'a version we do not speak',
      request('GET', '/v1/tasks/t-5', undefined, { 'a2a-version': '9.9' }),
      'refused',
      'rest',
      'tasks/get',
      't-5',
      '0.3',
    ],
    [
      'a body that is not JSON',
      request('POST', '/', undefined, { 'content-type': 'text/plain' }),
      'refused',
      'jsonrpc',
      'unknown',
      undefined,
      '0.3',
    ],
  ])('%s', (_what, req, kind, transport, operation, taskId, version) => {
    const target = router().router.resolve(req);
    expect(target).toMatchObject({ kind, transport, operation, taskId, version });
  });

  it('answers nothing until the target is dispatched, then answers as route does', async () => {
    const { service, router: r } = router();
    await service.init();
    const target = r.resolve(request('POST', '/', rpc('tasks/get', { id: 'missing' })));
    const reply = await r.dispatch(target);
    expect(reply).toMatchObject({ kind: 'json', refused: { code: -32001 } });
    expect(await r.route(request('POST', '/', rpc('tasks/get', { id: 'missing' })))).toEqual(reply);
    await service.close();
  });
});
