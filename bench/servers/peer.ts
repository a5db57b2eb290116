/**
 * The peer: a server built the way @a2a-js/sdk 0.3.14 documents, on express with its in-memory
 * task store, serving the same echo agent as ours. JSON-RPC at `POST /`, its HTTP+JSON routes
 * under `/v1`, the card at the well-known path.
 */
import type { AddressInfo } from 'node:net';
import type { AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';
import { EchoExecutor } from '../peer/echo-executor.js';
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

  const card: AgentCard = {
    name: 'Bench Echo Agent',
    description: 'Answers every message with one artifact holding its text.',
    version: '1.0.0',
    protocolVersion: '0.3.0',
    url,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url, transport: 'JSONRPC' },
      { url, transport: 'HTTP+JSON' },
    ],
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes the text it receives', tags: ['echo'] }],
  };
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
  const userBuilder = UserBuilder.noAuthentication;
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/', jsonRpcHandler({ requestHandler, userBuilder }));
  app.use('/', restHandler({ requestHandler, userBuilder }));

  return {
    url,
    description: '@a2a-js/sdk 0.3.14 on express, InMemoryTaskStore',
    close: () =>
      new Promise<void>((resolve) => {
        listening.close(() => resolve());
        listening.closeAllConnections();
      }),
  };
});
