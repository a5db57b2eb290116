/**
 * The gRPC peer: @a2a-js/sdk 1.3.0's own gRPC server (installed as `a2a-sdk-v1`), built as its
 * documentation shows (`grpcService` on an @grpc/grpc-js server), with its in-memory task store
 * and the same echo agent as the other peers. It prints its gRPC target on stdout.
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { DefaultRequestHandler, InMemoryTaskStore } from 'a2a-sdk-v1/server';
import { A2AService, grpcService, UserBuilder } from 'a2a-sdk-v1/server/grpc';
import { echoCardV1 } from '../peer/echo-card-v1.js';
import { EchoExecutorV1 } from '../peer/echo-executor-v1.js';
import { announce } from './grpc-child.js';

const server = new Server();
const port = await new Promise<number>((resolve, reject) =>
  server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
);
const target = `127.0.0.1:${port}`;
const card = echoCardV1([{ url: target, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' }]);
const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutorV1());
server.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
announce(target, () => server.forceShutdown());
