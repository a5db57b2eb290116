/**
 * What a log line or a span needs to know about the work it belongs to: the task, its context,
 * the trace and the span that records it. Kept in an AsyncLocalStorage, but only for requests
 * and turns that are observed (log level debug, or a span that records): on Node 20 the first
 * `run` turns promise hooks on for the whole process, a cost the untraced info-level hot path
 * must not pay. Unobserved work has no scope, and its log lines carry what the call site passes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Span } from '@opentelemetry/api';

/** What an A2A request turned out to be: the protocol layer's match of it carries these. */
export interface RequestFacts {
  /** `card` for the discovery card, which belongs to no transport; `grpc` for the gRPC listener. */
  transport: 'jsonrpc' | 'rest' | 'card' | 'grpc';
  /** The A2A operation (`message/send`, `tasks/get`, `health`), `unknown` for anything else: never client text. */
  operation: string;
  /** The task the request names, when it names one. */
  taskId?: string | undefined;
}

export interface Scope extends Partial<RequestFacts> {
  taskId?: string | undefined;
  contextId?: string | undefined;
  traceId?: string | undefined;
  /** The recording span this work belongs to (a request's or a turn's); parent of what it starts. */
  span?: Span | undefined;
}

const storage = new AsyncLocalStorage<Scope>();

export const currentScope = (): Scope | undefined => storage.getStore();

export const runInScope = <T>(scope: Scope, fn: () => T): T => storage.run(scope, fn);
