/**
 * A2A v1.0 over gRPC (`lf.a2a.v1.A2AService`): the RPCs are the v1.0 JSON-RPC methods by the
 * same names, with the same proto-JSON params and results, so the gRPC service runs the JSON-RPC
 * binding's methods; only the framing differs.
 */
import type { GrpcBinding } from '../grpc-binding.js';
import type { Operations } from '../operations.js';
import { V1_RPC } from './jsonrpc.js';
import { v1StreamResponse } from './wire-out.js';

export function v1GrpcBinding(ops: Operations): GrpcBinding {
  const { unary, streaming } = V1_RPC.methods(ops);
  return { unary, streaming, event: v1StreamResponse };
}

/** The task a v1.0 request names (for logs and spans), if any. */
export function v1TaskIdOf(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { id, taskId } = raw as { id?: unknown; taskId?: unknown };
  const value = typeof taskId === 'string' && taskId !== '' ? taskId : id;
  return typeof value === 'string' && value !== '' ? value : undefined;
}
