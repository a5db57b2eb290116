/**
 * A task's turn (from the message that starts it to the state that ends it: paused or final) as
 * an INTERNAL span, child of the request that started it, with each state entered as a span
 * event. The turn's span context stays with what the turn hands on (the task copies given to
 * push delivery), so a webhook sent later still joins the task's trace.
 *
 * Turn records are kept in WeakMaps keyed by the runtime's own objects (the live task, a task
 * copy): nothing here outlives them, and the runtime carries no tracing fields.
 */
import { context, SpanKind, trace, type Span } from '@opentelemetry/api';
import type { Logger } from './logger.js';
import { currentScope, runInScope, type Scope } from './scope.js';
import { tracer, type TraceLink } from './tracing.js';

interface TurnTrace {
  span: Span;
  link: TraceLink;
  traceId: string;
}

const turns = new WeakMap<object, TurnTrace>();
const links = new WeakMap<object, TraceLink>();

/**
 * A turn of `taskId` starts (its actor is about to start), in the request that starts it: the
 * request learns its task, and the turn's span starts as the request span's child.
 */
export function traceTurnStart(owner: object, taskId: string, contextId: string): void {
  const scope = currentScope();
  if (scope) {
    scope.taskId ??= taskId;
    scope.contextId ??= contextId;
  }
  const parent = scope?.span ? trace.setSpan(context.active(), scope.span) : context.active();
  const span = tracer.startSpan('a2a.turn', { kind: SpanKind.INTERNAL }, parent);
  if (!span.isRecording()) return;
  span.setAttributes({ 'a2a.task_id': taskId, 'a2a.context_id': contextId });
  turns.set(owner, { span, link: trace.setSpan(parent, span), traceId: span.spanContext().traceId });
}

/**
 * Runs the turn's handler inside the turn: spans it starts are the turn's children, and its log
 * lines carry the task. Without a recording span or debug logging it just runs.
 */
export function withTurn<T>(owner: object, taskId: string, contextId: string, logger: Logger, fn: () => T): T {
  const turn = turns.get(owner);
  if (!turn && logger.level !== 'debug') return fn();
  const scope: Scope = { taskId, contextId, traceId: turn?.traceId, span: turn?.span };
  return runInScope(scope, turn ? () => context.with(turn.link, fn) : fn);
}

/** A state entered: a span event on the turn, and a debug line. */
export function turnTransition(owner: object, taskId: string, contextId: string, from: string, to: string, logger: Logger): void {
  // A new task's actor enters `submitted`, where its record already stands: no transition.
  if (from === to) return;
  const turn = turns.get(owner);
  turn?.span.addEvent('a2a.state', { state: to, 'state.from': from });
  if (logger.level === 'debug') {
    logger.debug('task.transition', { taskId, contextId, from, to, ...(turn ? { traceId: turn.traceId } : {}) });
  }
}

/** The turn is over (its task paused, ended, or replaced by a direct reply). */
export function traceTurnEnd(owner: object, state: string): void {
  const turn = turns.get(owner);
  if (!turn) return;
  turns.delete(owner);
  turn.span.setAttribute('a2a.task.state', state);
  turn.span.end();
}

/** `copy` (a task snapshot handed to push delivery) belongs to `owner`'s turn. */
export function carryTrace(copy: object, owner: object): void {
  const turn = turns.get(owner);
  if (turn) links.set(copy, turn.link);
}

/** The trace a task snapshot belongs to, if its turn was traced. */
export const traceOf = (copy: object): TraceLink | undefined => links.get(copy);
