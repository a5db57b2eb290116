/**
 * The request line (RFC 9112 §3) and the names of the headers after it, read for head.ts. Both
 * run on every request, so they are scanned by hand; test/unit/h1-parse.test.ts holds the scan
 * equal to the one regular expression the line must match.
 */

export interface RequestLine {
  method: string;
  /** The request-target as sent (origin-form, or `*`, or an absolute URL). */
  target: string;
  /** HTTP/1.1 (true) or HTTP/1.0. */
  http11: boolean;
}

/**
 * The methods of RFC 9110 §9 (CONNECT aside: nothing is tunnelled here) and PATCH (RFC 5789), as
 * node:http's parser knows them: a token that is no method (`helloGET`, the tail of a body read as
 * a request line) is refused, not routed.
 */
export const METHODS = ['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'TRACE', 'PATCH'] as const;

const SPACE = 32;
const SLASH = 47;
const STAR = 42;
const COLON = 58;

/** A target character: visible ASCII or any byte from 0x80 (RFC 9112 §3.2 takes them as sent). */
const isTargetChar = (c: number): boolean => (c > 32 && c < 127) || c > 127;
const isAlpha = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** A URI scheme's characters after its first (RFC 3986 §3.1). */
const isSchemeChar = (c: number): boolean => isAlpha(c) || (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;

/**
 * `METHOD SP target SP HTTP/1.x`, the first `end` characters of `text`; undefined when they are
 * anything else. The target is origin-form (`/…`), `*`, or absolute-form (`scheme://…`), as RFC
 * 9112 §3.2 allows outside CONNECT.
 */
export function requestLine(text: string, end: number): RequestLine | undefined {
  const methodEnd = text.indexOf(' ');
  if (methodEnd < 0 || methodEnd >= end) return undefined;
  const method = methodNamed(text, methodEnd);
  if (method === undefined) return undefined;
  const targetStart = methodEnd + 1;
  let targetEnd = targetStart;
  for (; targetEnd < end; targetEnd++) {
    const c = text.charCodeAt(targetEnd);
    if (c === SPACE) break;
    if (!isTargetChar(c)) return undefined;
  }
  if (targetEnd === end || !isTargetForm(text, targetStart, targetEnd)) return undefined;
  // What is left is exactly `HTTP/1.0` or `HTTP/1.1`.
  const versionStart = targetEnd + 1;
  if (end - versionStart !== 8 || !text.startsWith('HTTP/1.', versionStart)) return undefined;
  const minor = text.charCodeAt(end - 1);
  if (minor !== 48 && minor !== 49) return undefined;
  return { method, target: text.slice(targetStart, targetEnd), http11: minor === 49 };
}

/** The method the first `length` characters name (the constant itself), if they name one. */
function methodNamed(text: string, length: number): string | undefined {
  for (const method of METHODS) if (method.length === length && text.startsWith(method)) return method;
  return undefined;
}

/** Whether `text[start, end)` (target characters, at least one) is a target of a form we take. */
function isTargetForm(text: string, start: number, end: number): boolean {
  if (start === end) return false;
  const first = text.charCodeAt(start);
  if (first === SLASH) return true;
  if (first === STAR) return end - start === 1;
  if (!isAlpha(first)) return false;
  let i = start + 1;
  while (i < end && isSchemeChar(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === COLON && text.startsWith('//', i + 1) && i + 3 <= end;
}

/**
 * `name` (lower-case), or the string constant of the same text when it is a header the server
 * reads. A name read off the wire is a new string: stored as a key of a prototype-less object (a
 * dictionary), it is first looked up in V8's string table, which a constant skips. A switch, as
 * most cases fail on length alone; a Map would hash every name.
 */
export function knownName(name: string): string {
  switch (name) {
    case 'host':
      return 'host';
    case 'connection':
      return 'connection';
    case 'content-type':
      return 'content-type';
    case 'content-length':
      return 'content-length';
    case 'transfer-encoding':
      return 'transfer-encoding';
    case 'expect':
      return 'expect';
    case 'accept':
      return 'accept';
    case 'accept-encoding':
      return 'accept-encoding';
    case 'user-agent':
      return 'user-agent';
    case 'authorization':
      return 'authorization';
    case 'a2a-version':
      return 'a2a-version';
    case 'a2a-extensions':
      return 'a2a-extensions';
    case 'x-a2a-extensions':
      return 'x-a2a-extensions';
    case 'last-event-id':
      return 'last-event-id';
    case 'traceparent':
      return 'traceparent';
    case 'tracestate':
      return 'tracestate';
    case 'origin':
      return 'origin';
    case 'x-forwarded-host':
      return 'x-forwarded-host';
    case 'x-forwarded-proto':
      return 'x-forwarded-proto';
    case 'x-api-key':
      return 'x-api-key';
    default:
      return name;
  }
}
