/**
 * The v1.0 peer: a server built the way @a2a-js/sdk 1.3.0 documents (installed as `a2a-sdk-v1`),
 * in its native v1.0 mode (no v0.3 compatibility layer), on express with its in-memory task
 * store, serving the same echo agent as ours and as the 0.3.14 peer. JSON-RPC at `POST /` (where
 * ours serves it), the HTTP+JSON routes at the root (the v1.0 spec's paths, `/message:send`), the
 * card at the well-known path.
 */
import type { AddressInfo } from 'node:net';
import { DefaultRequestHandler, InMemoryTaskStore } from 'a2a-sdk-v1/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from 'a2a-sdk-v1/server/express';
import express from 'express';
import { echoCardV1 } from '../peer/echo-card-v1.js';
import { EchoExecutorV1 } from '../peer/echo-executor-v1.js';
import { serve } from './child.js';

await serve(async () => {
  const app = express();
  const listening = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    listening.once('listening', resolve);
    listening.once('error', reject);
  });
  const { port } = listening.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  const card = echoCardV1([
    { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
    { url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
  ]);
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutorV1());
  const userBuilder = UserBuilder.noAuthentication;
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
  // JSON-RPC on POST / only: its router refuses any content type but application/json on every
  // path it sees, which would turn away REST's application/a2a+json if it saw the REST routes.
  app.post('/', jsonRpcHandler({ requestHandler, userBuilder }));
  app.use(restHandler({ requestHandler, userBuilder }));

  return {
    url,
    description: '@a2a-js/sdk 1.3.0 (native v1.0) on express, InMemoryTaskStore',
    close: () =>
      new Promise<void>((resolve) => {
        listening.close(() => resolve());
        listening.closeAllConnections();
      }),
  };
});
