/**
 * Admitting an A2A request, the same for every transport and version: with auth on, the caller
 * is authenticated (401, or the authenticator's 503); once the request names its operation, the
 * caller is authorized for it (403) and every extension the operation requires must be among
 * those the request activated (-32008). Each transport renders a refusal in its own shape.
 *
 * Authentication is a step of its own because the refusals keep the spec's order: who the caller
 * is comes before whether the request is well formed (a JSON-RPC envelope, a REST route's 404),
 * and that comes before what the caller may do.
 */
import type { IncomingRequest } from '../agent.js';
import type { AuthGate } from '../auth/gate.js';
import type { Caller, Operation } from '../auth/types.js';
import type { Logger } from '../log.js';
import { isA2AError, type A2AError } from '../a2a/errors.js';
import { withActivatedExtensions } from './extensions.js';
import type { Operations } from './operations.js';
import { toA2AError, type Reply } from './reply.js';

/** What admission reads of a request once the router has authenticated it. */
export interface Admittee {
  request: IncomingRequest;
  /** The authenticated caller (auth on), else undefined. */
  caller: Caller | undefined;
  /** The extensions the request activated (X-A2A-Extensions). */
  extensions: readonly string[];
}

export interface Admission {
  /**
   * With auth on, the caller of a request or the 401/503 it is answered with (at once when the
   * gate answers at once); only the headers are read. Auth off: undefined.
   */
  authenticate(incoming: IncomingRequest): Caller | A2AError | Promise<Caller | A2AError> | undefined;
  /**
   * With auth on: `then` with the authenticated caller, or `refuse` with the 401/503; at once
   * when the gate answers at once. With auth off: `then` with no caller.
   */
  withCaller(
    incoming: IncomingRequest,
    refuse: (err: A2AError) => Reply,
    then: (caller: Caller | undefined) => Reply | Promise<Reply>,
  ): Reply | Promise<Reply>;
  /** The declared extensions the request's headers activate. */
  activate(headers: Readonly<Record<string, string>>): readonly string[];
  /**
   * Admits `who` to `operation`: authorized, then every required extension activated. Throws the
   * refusal when there is nothing to wait for (call it inside `promiseOf` or an async function),
   * else the promise of the authorization and the check after it; undefined when admitted at once.
   */
  admit(operation: Operation, who: Admittee): Promise<void> | undefined;
  /** The reply named with the activated extensions; the handler's own promise when there are none. */
  named(reply: Promise<Reply>, extensions: readonly string[], headers: Readonly<Record<string, string>>): Promise<Reply>;
}

export function createAdmission(ops: Operations, logger: Logger, gate?: AuthGate): Admission {
  /** The caller of a request, or the 401/503 it is answered with. */
  const authenticate = (gate: AuthGate, incoming: IncomingRequest): Caller | A2AError | Promise<Caller | A2AError> => {
    const refused = (err: unknown) => toA2AError(err, logger, 'authenticate');
    try {
      const caller = gate.authenticate(incoming);
      return caller instanceof Promise ? caller.catch(refused) : caller;
    } catch (err) {
      return refused(err);
    }
  };

  return {
    authenticate: (incoming) => (gate ? authenticate(gate, incoming) : undefined),

    withCaller(incoming, refuse, then) {
      if (!gate) return then(undefined);
      const auth = authenticate(gate, incoming);
      const go = (answer: Caller | A2AError) => (isA2AError(answer) ? refuse(answer) : then(answer));
      return auth instanceof Promise ? auth.then(go) : go(auth);
    },

    activate: (headers) => ops.activateExtensions(headers),

    admit(operation, who) {
      const authorized = gate && who.caller ? gate.authorize(who.caller, operation, who.request) : undefined;
      if (authorized) return authorized.then(() => ops.requireExtensions(operation, who.extensions));
      ops.requireExtensions(operation, who.extensions);
      return undefined;
    },

    named: (reply, extensions, headers) =>
      extensions.length === 0 ? reply : reply.then((r) => withActivatedExtensions(r, extensions, headers)),
  };
}
