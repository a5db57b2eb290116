/**
 * The fuzz suite's oracle for which protocol version a request must be served in, written from
 * README "Protocol versions" rather than from the router:
 *
 * - `A2A-Version: 1.x` is v1.0 and `0.3`/`0.3.x` is v0.3, whatever the method or path;
 * - without the header (or with an empty one), v1.0's JSON-RPC method names and v1.0's REST
 *   routes, at the root or after one `/{tenant}` segment, are v1.0; everything else, `/v1/…`
 *   among it, is v0.3;
 * - any other header is -32009, in the shape the request would have had without it.
 */
import type { Json } from '../support/a2a.js';
import { V1_RPC_METHODS } from '../support/a2a-v1.js';

export type Version = '0.3' | '1.0';

/** A version, and whether it is only the shape of a refusal of the header. */
export interface Served {
  version: Version;
  unsupportedHeader: boolean;
}

/** The methods v1.0 serves over JSON-RPC; the singular list name is served too (the spec's prose uses it). */
export const V1_METHODS: ReadonlySet<string> = new Set([...V1_RPC_METHODS, 'ListTaskPushNotificationConfig']);
export const V03_METHODS: ReadonlySet<string> = new Set([
  'message/send',
  'message/stream',
  'message/sendStream',
  'tasks/get',
  'tasks/list',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
]);
export const STREAMING_METHODS: Readonly<Record<Version, ReadonlySet<string>>> = {
  '0.3': new Set(['message/stream', 'message/sendStream', 'tasks/resubscribe']),
  '1.0': new Set(['SendStreamingMessage', 'SubscribeToTask']),
};
export const METHODS: Readonly<Record<Version, ReadonlySet<string>>> = { '0.3': V03_METHODS, '1.0': V1_METHODS };

/** What `A2A-Version` asks for: a version we speak, none, or one we do not. */
function asked(header: string | undefined): Version | 'none' | 'unsupported' {
  if (header === undefined || header.trim() === '') return 'none';
  const m = /^\s*(\d+)\.(\d+)(?:\.\d+)?\s*$/.exec(header);
  if (m?.[1] === '1') return '1.0';
  if (m?.[1] === '0' && m[2] === '3') return '0.3';
  return 'unsupported';
}

function served(header: string | undefined, withoutHeader: () => Version): Served {
  const a = asked(header);
  if (a === '1.0' || a === '0.3') return { version: a, unsupportedHeader: false };
  return { version: withoutHeader(), unsupportedHeader: a === 'unsupported' };
}

/** The method a JSON-RPC body names, when the body is JSON and names one. */
export function methodOf(body: string): unknown {
  try {
    return (JSON.parse(body) as Json)?.method;
  } catch {
    return undefined;
  }
}

/**
 * README "Security notes": a body nesting deeper than `SERVICE_MAX_JSON_DEPTH` (64, the test
 * server's) + 16 levels is refused before it is parsed, so what it names is never read.
 */
const UNREAD_BEYOND_LEVELS = 64 + 16;

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings aside). */
export function nestingOf(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') deepest = Math.max(deepest, ++depth);
    else if (c === '}' || c === ']') depth--;
  }
  return deepest;
}

/** The version a JSON-RPC request (`POST /`) must be served in. */
export const rpcVersion = (body: string, header: string | undefined): Served =>
  served(header, () => {
    const method = nestingOf(body) > UNREAD_BEYOND_LEVELS ? undefined : methodOf(body);
    return typeof method === 'string' && V1_METHODS.has(method) ? '1.0' : '0.3';
  });

/** v1.0's REST routes (`a2a.proto`'s HTTP bindings). `{id}` is one segment without `:`; `{id}:verb` a custom verb on it. */
const V1_ROUTES: readonly (readonly [string, readonly string[]])[] = [
  ['POST', ['message:send']],
  ['POST', ['message:stream']],
  ['GET', ['tasks']],
  ['GET', ['tasks', '{id}']],
  ['POST', ['tasks', '{id}:cancel']],
  ['GET', ['tasks', '{id}:subscribe']],
  ['POST', ['tasks', '{id}:subscribe']],
  ['POST', ['tasks', '{id}', 'pushNotificationConfigs']],
  ['GET', ['tasks', '{id}', 'pushNotificationConfigs']],
  ['GET', ['tasks', '{id}', 'pushNotificationConfigs', '{configId}']],
  ['DELETE', ['tasks', '{id}', 'pushNotificationConfigs', '{configId}']],
  ['GET', ['extendedAgentCard']],
];

function segmentMatches(pattern: string, segment: string): boolean {
  if (pattern === '{configId}') return segment !== '';
  if (!pattern.startsWith('{id}')) return pattern === segment;
  const verb = pattern.slice('{id}'.length);
  if (!segment.endsWith(verb)) return false;
  const id = segment.slice(0, segment.length - verb.length);
  return id !== '' && !id.includes(':');
}

const matches = (pattern: readonly string[], segments: readonly string[]): boolean =>
  pattern.length === segments.length && pattern.every((p, i) => segmentMatches(p, segments[i] as string));

/** The decoded segments of a path, or undefined when it is not valid percent-encoding. */
function segmentsOf(pathname: string): string[] | undefined {
  try {
    return pathname.slice(1).split('/').map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

/**
 * Whether a path is one of v1.0's REST routes, at the root or after one non-empty `/{tenant}`;
 * `method` undefined: with any method.
 */
export function isV1Route(pathname: string, method?: string): boolean {
  const segments = segmentsOf(pathname);
  if (!segments) return false;
  const candidates = segments.length >= 2 && segments[0] !== '' ? [segments, segments.slice(1)] : [segments];
  return V1_ROUTES.some(([m, pattern]) => (method === undefined || m === method) && candidates.some((s) => matches(pattern, s)));
}

/** The discovery card's paths, answered whatever the header says (a base URL with a trailing slash asks for `//…`). */
export const isCardPath = (pathname: string): boolean =>
  /^\/+(?:\.well-known\/agent-card\.json|\.well-known\/agent\.json)$/.test(pathname) || pathname === '/';

/** The version a REST request must be served in (not the JSON-RPC endpoint, not the discovery card). */
export const restVersion = (pathname: string, header: string | undefined): Served =>
  served(header, () => (!pathname.startsWith('/v1/') && isV1Route(pathname) ? '1.0' : '0.3'));
