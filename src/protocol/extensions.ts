/**
 * Extensions (wire reference §4.3): the agent declares them in its card; a request activates
 * some with the `X-A2A-Extensions` header (A2A 1.0 names it `A2A-Extensions`: both are read);
 * URIs the agent does not declare are ignored; the answer names the activated ones in the same
 * header; an A2A operation that leaves out a `required` one is refused (-32008).
 */
import type { AgentExtension } from '../agent.js';
import type { Operation } from '../auth/types.js';
import { a2aError } from '../a2a/errors.js';
import { NO_STRINGS } from '../a2a/empty.js';
import type { Reply } from './reply.js';

export const EXTENSIONS_HEADER = 'X-A2A-Extensions';
/** A2A 1.0's name for the same header. */
const EXTENSIONS_HEADER_V1 = 'A2A-Extensions';

/**
 * Operations a required extension does not gate: the extended card is discovery (like the
 * public card and health, which never get here), and a client reads it to learn what to activate.
 */
const UNGATED: ReadonlySet<Operation> = new Set<Operation>(['agent/getAuthenticatedExtendedCard']);

/**
 * Refuses, at start-up, declarations the card could not honour: a URI must be non-blank, without
 * whitespace or commas (it travels in a comma-separated header), and appear once.
 */
export function checkExtensions(declared: readonly AgentExtension[] | undefined): void {
  const seen = new Set<string>();
  for (const ext of declared ?? []) {
    const uri: unknown = ext.uri;
    if (typeof uri !== 'string' || uri === '' || /[\s,]/.test(uri)) {
      throw new Error(`capabilities.extensions: ${JSON.stringify(uri)} is not a usable extension URI (non-blank, no spaces or commas)`);
    }
    if (seen.has(uri)) throw new Error(`capabilities.extensions: ${uri} is declared twice`);
    seen.add(uri);
  }
}

/** The card's `capabilities.extensions`: `required` always a boolean, optional fields only when set. */
export const cardExtensions = (declared: readonly AgentExtension[]): AgentExtension[] =>
  declared.map((ext) => ({
    uri: ext.uri,
    ...(ext.description !== undefined ? { description: ext.description } : {}),
    required: ext.required === true,
    ...(ext.params !== undefined ? { params: ext.params } : {}),
  }));

export interface ExtensionPolicy {
  /** The declared extensions a request activates, in the order it names them; each once. */
  activate(headers: Readonly<Record<string, string>>): readonly string[];
  /** Throws -32008 when `operation` needs a required extension that `activated` lacks. */
  require(operation: Operation, activated: readonly string[]): void;
}

export function createExtensionPolicy(declared: readonly AgentExtension[] | undefined): ExtensionPolicy {
  const known = new Set((declared ?? []).map((ext) => ext.uri));
  const required = (declared ?? []).filter((ext) => ext.required === true).map((ext) => ext.uri);

  return {
    activate(headers) {
      // The common case (nothing declared, or no header) allocates nothing.
      if (known.size === 0) return NO_STRINGS;
      const legacy = headers['x-a2a-extensions'];
      const current = headers['a2a-extensions'];
      if (legacy === undefined && current === undefined) return NO_STRINGS;
      const raw = legacy === undefined ? (current as string) : current === undefined ? legacy : `${legacy},${current}`;
      const activated: string[] = [];
      for (const item of raw.split(',')) {
        const uri = item.trim();
        if (known.has(uri) && !activated.includes(uri)) activated.push(uri);
      }
      return activated.length === 0 ? NO_STRINGS : activated;
    },

    require(operation, activated) {
      if (required.length === 0 || UNGATED.has(operation)) return;
      const missing = required.filter((uri) => !activated.includes(uri));
      if (missing.length === 0) return;
      throw a2aError(
        'extensionRequired',
        `this agent requires the extension${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: activate ${missing.length > 1 ? 'them' : 'it'} with the ${EXTENSIONS_HEADER} header`,
        { requiredExtensions: missing },
      );
    },
  };
}

/**
 * The reply with the activated extensions named in `X-A2A-Extensions` (and under A2A 1.0's name
 * too when the request used it). Unchanged, and not copied, when none were activated.
 */
export function withActivatedExtensions(reply: Reply, activated: readonly string[], headers: Readonly<Record<string, string>>): Reply {
  if (activated.length === 0) return reply;
  const value = activated.join(', ');
  const added: Record<string, string> = { ...reply.headers, [EXTENSIONS_HEADER]: value };
  if (headers['a2a-extensions'] !== undefined) added[EXTENSIONS_HEADER_V1] = value;
  return { ...reply, headers: added };
}
