/**
 * Taking in a request's body, the same on every front end: who is calling is settled from the
 * headers first (the router's `admitHead`), so a refused request's body is never buffered; then
 * a large body waits for its place in the body budget (body-budget.ts), arrives within its time,
 * and is handed on whole.
 */
import { performance } from 'node:perf_hooks';
import { A2AError, a2aError, ERRORS } from '../a2a/errors.js';
import type { HeadVerdict, RequestHead } from '../protocol/router.js';
import {
  ANONYMOUS,
  BodyBudget,
  IDLE_BODY_BUDGET,
  NO_PLACE,
  SMALL_BODY_BYTES,
  type BodyBudgetLimits,
  type BodyBudgetStats,
} from './body-budget.js';
import type { WireRequest } from './wire.js';

export interface BodyIntakeOptions {
  maxBodyBytes: number;
  /** How much large-body reading and parsing runs at once; absent: no limit. */
  bodyBudget?: BodyBudgetLimits | undefined;
  /** Asked before a body is read (see ExchangeOptions). */
  admitHead?: ((head: RequestHead) => HeadVerdict | Promise<HeadVerdict> | undefined) | undefined;
}

/** One request with a body, as the exchange hands it over. */
export interface BodyRequest {
  readonly wire: WireRequest;
  readonly head: RequestHead;
  /** Whether the client has gone or been answered already: nothing more is read then. */
  settled(): boolean;
  /** Routes the request with its body (empty when unread) and what its headers decided. */
  dispatch(body: Buffer, verdict: HeadVerdict | undefined, close?: boolean): void;
  /** Answers an error found here and closes the connection. */
  refuse(err: A2AError): void;
  /** What failed unexpectedly (an authenticator's promise). */
  failed(err: unknown): void;
}

const EMPTY_BODY = Buffer.alloc(0);

export const tooLarge = (max: number): A2AError => a2aError('payloadTooLarge', `the limit is ${max} bytes`);

const bodyLate = (readTimeoutMs: number): A2AError =>
  new A2AError(
    ERRORS.unavailable,
    `a large request body must arrive within ${readTimeoutMs / 1000} s of its turn (SERVICE_BODY_READ_TIMEOUT)`,
    undefined,
    { 'Retry-After': '1' },
  );

const budgetFull = (maxWaiting: number): A2AError =>
  new A2AError(ERRORS.unavailable, `${maxWaiting} large request bodies are already waiting (SERVICE_BODY_QUEUE); retry later`, undefined, {
    'Retry-After': '1',
  });

export function createBodyIntake(opts: BodyIntakeOptions) {
  const { maxBodyBytes, bodyBudget: limits } = opts;
  const budget = limits ? new BodyBudget(limits) : undefined;

  /** Reads the body and hands it on; `leave` gives back its place in the budget, if it has one. */
  const readNow = (request: BodyRequest, verdict: HeadVerdict | undefined, leave: () => void): void => {
    if (request.settled()) return;
    if (leave === NO_PLACE || !limits) {
      request.wire.readBody(
        maxBodyBytes,
        (body) => request.dispatch(body, verdict),
        (why) => request.refuse(why ?? tooLarge(maxBodyBytes)),
      );
      return;
    }
    // A body holding a place must arrive in time: one trickled in would hold it for ever.
    const late = setTimeout(() => {
      leave();
      request.refuse(bodyLate(limits.readTimeoutMs));
    }, limits.readTimeoutMs).unref();
    const over = (why?: A2AError): void => {
      clearTimeout(late);
      leave();
      request.refuse(why ?? tooLarge(maxBodyBytes));
    };
    const done = (body: Buffer): void => {
      clearTimeout(late);
      if (request.settled()) {
        leave();
        return;
      }
      const parsing = performance.now();
      request.dispatch(body, verdict);
      // Parsed and handed on (the router parses before its first await). Parsing held the
      // loop; the next large body waits as long again, so large bodies never hold it more
      // than half the time and the requests queued behind this one are served first.
      const spent = performance.now() - parsing;
      if (spent < 1) leave();
      else setTimeout(leave, spent).unref();
    };
    request.wire.readBody(maxBodyBytes, done, over);
  };

  /** After the headers' verdict: the refusal, or the body read now or on its turn. */
  const afterVerdict = (
    request: BodyRequest,
    verdict: HeadVerdict | undefined,
    held: boolean,
    placed: (leave: () => void) => void,
  ): void => {
    const { wire, head } = request;
    const chunked = head.headers['transfer-encoding'] !== undefined;
    const declared = Number(head.headers['content-length'] ?? '0');
    // Refused from the headers: answered (through the router, so it is observed like any
    // refusal) with the body unread, and the connection closed rather than read to its end.
    // A small body is read instead (it only names the request in the answer and the metrics),
    // so the connection stays usable and the client, still sending, is not cut off.
    if (verdict?.refusal) {
      if (!chunked && declared <= SMALL_BODY_BYTES) {
        wire.readBody(
          SMALL_BODY_BYTES,
          (body) => request.dispatch(body, verdict),
          () => request.dispatch(EMPTY_BODY, verdict, true),
        );
      } else request.dispatch(EMPTY_BODY, verdict, true);
      return;
    }
    // A chunked body's size is known only once read: it waits as the largest would.
    const bytes = chunked ? maxBodyBytes : declared;
    if (!budget || bytes <= SMALL_BODY_BYTES) {
      readNow(request, verdict, NO_PLACE);
      return;
    }
    let started = false;
    const leave = budget.join(
      bytes,
      verdict?.caller?.principal.id ?? ANONYMOUS,
      (place) => {
        started = true;
        readNow(request, verdict, place);
      },
      () => request.refuse(budgetFull(limits?.maxWaiting ?? 0)),
    );
    placed(leave);
    // Waiting for its turn: the socket is not read meanwhile.
    if (!started && !held && !request.settled()) wire.holdBody();
  };

  return {
    /**
     * Takes in one request's body. Returns what to call when the client goes away: the body's
     * place in the budget (held or waited for) is given back.
     */
    take(request: BodyRequest): () => void {
      let leave: () => void = NO_PLACE;
      const placed = (given: () => void): void => {
        leave = given;
      };
      const gone = (): void => leave();
      // Who is calling is settled from the headers before a byte of the body is buffered.
      const verdict = opts.admitHead?.(request.head);
      if (!(verdict instanceof Promise)) {
        afterVerdict(request, verdict, false, placed);
        return gone;
      }
      request.wire.holdBody();
      verdict.then((settled) => {
        if (!request.settled()) afterVerdict(request, settled, true, placed);
      }, request.failed);
      return gone;
    },
    /** Large bodies waiting for the budget, and their bytes in flight (none without a budget). */
    stats: (): BodyBudgetStats => budget?.stats() ?? IDLE_BODY_BUDGET,
  };
}
