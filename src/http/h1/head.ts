/**
 * An HTTP/1.1 request head (RFC 9112 §2–§7), read strictly: lines end in CRLF, header names are
 * tokens, no line folding, no control characters in values, one Content-Length of digits, a
 * Transfer-Encoding of `chunked` alone and never beside a Content-Length, a Host on HTTP/1.1.
 * Anything else is refused: where two parsers could read one message two ways, a request can
 * hide inside another's body (§6.3, §11.2), so there is no lenient reading to fall back on.
 */

import { asciiDigits } from '../../a2a/ascii-digits.js';
import { HeaderSet } from '../header-set.js';
import { knownName, requestLine } from './request-line.js';

/** A request line and its headers, as the connection frames the body by them. */
export interface RequestHead {
  method: string;
  /** The request-target as sent (origin-form, or `*`, or an absolute URL). */
  target: string;
  /** HTTP/1.1 (true) or HTTP/1.0. */
  http11: boolean;
  /** Lower-cased names, the last value of a repeated header (as uWS reads them); nothing inherited. */
  headers: Record<string, string>;
  /** Lower-cased names of headers sent more than once (undefined: none was). */
  repeated: string[] | undefined;
  /** The declared body length; 0 when there is neither Content-Length nor Transfer-Encoding. */
  contentLength: number;
  chunked: boolean;
  /** The connection may carry another request after this one's answer. */
  keepAlive: boolean;
  /** `Expect: 100-continue`: the client waits for a 100 before it sends the body. */
  expectContinue: boolean;
}

/** Why a head was refused, in words for the error body. */
export interface HeadRefusal {
  refused: string;
  /** The method and target, when the request line could be read (the error's shape follows them). */
  method: string;
  target: string;
}

/** Headers per request; uWS refuses past a similar count. */
export const MAX_HEADERS = 100;

/** Characters of a token (RFC 9110 §5.6.2), by char code below 128. */
const TOKEN_CHARS = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TOKEN_CHARS[c.charCodeAt(0)] = 1;
/** Content-Length's most digits: the longest a double holds exactly. */
const MAX_LENGTH_DIGITS = 15;

const isOws = (c: number): boolean => c === 32 || c === 9;

/** Whether a comma-separated header value lists `token` (case-insensitive). */
function lists(value: string | undefined, token: string): boolean {
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (lower === token) return true;
  if (!lower.includes(token)) return false;
  for (const part of lower.split(',')) {
    let start = 0;
    let end = part.length;
    while (start < end && isOws(part.charCodeAt(start))) start++;
    while (end > start && isOws(part.charCodeAt(end - 1))) end--;
    if (part.slice(start, end) === token) return true;
  }
  return false;
}

/** Whether `text` holds a tab between `from` and `to`. */
function tabIn(text: string, from: number, to: number): boolean {
  const at = text.indexOf('\t', from);
  return at >= 0 && at < to;
}

/**
 * Reads a head: `text` is its bytes as latin1, from the request line up to (not including) the
 * blank line's CRLF CRLF. It is scanned a character at a time (no split, no regular expression):
 * this runs once per request. `requestLine` (request-line.ts) reads the first line.
 */
export function parseHead(text: string): RequestHead | HeadRefusal {
  let lineEnd = text.indexOf('\r\n');
  const line = requestLine(text, lineEnd < 0 ? text.length : lineEnd);
  if (line === undefined) {
    const [method = '', target = ''] = (lineEnd < 0 ? text : text.slice(0, lineEnd)).split(' ');
    return { refused: 'the request line is not METHOD target HTTP/1.x', method, target };
  }
  const { method, target, http11 } = line;
  const refuse = (refused: string): HeadRefusal => ({ refused, method, target });

  const headers = new HeaderSet();
  let repeated: string[] | undefined;
  let contentLengths = 0;
  let count = 0;
  while (lineEnd >= 0) {
    const from = lineEnd + 2;
    lineEnd = text.indexOf('\r\n', from);
    const to = lineEnd < 0 ? text.length : lineEnd;
    if (++count > MAX_HEADERS) return refuse(`more than ${MAX_HEADERS} headers`);
    if (to === from) return refuse('an empty header line');
    // The name: token characters up to the colon. Whitespace before the colon, a folded line,
    // a bare CR or LF: all refused (RFC 9112 §5.1–§5.2).
    let colon = from;
    let upper = false;
    for (; colon < to; colon++) {
      const c = text.charCodeAt(colon);
      if (c === 58) break;
      if (c > 127 || TOKEN_CHARS[c] === 0) return refuse('a header name that is not a token');
      if (c >= 65 && c <= 90) upper = true;
    }
    if (colon === from || colon === to) return refuse('a header line without a name and a colon');
    let start = colon + 1;
    let end = to;
    while (start < end && isOws(text.charCodeAt(start))) start++;
    while (end > start && isOws(text.charCodeAt(end - 1))) end--;
    for (let i = start; i < end; i++) {
      // Control characters other than HT are not field content (RFC 9110 §5.5).
      const c = text.charCodeAt(i);
      if (c < 32 ? c !== 9 : c === 127) return refuse('a control character in a header value');
    }
    const sent = text.slice(from, colon);
    const name = knownName(upper ? sent.toLowerCase() : sent);
    if (name === 'content-length') contentLengths++;
    // The framing headers are read as node:http's parser reads them, which takes no tab around
    // them: a message either parser would frame differently is refused.
    if ((name === 'content-length' || name === 'transfer-encoding') && tabIn(text, colon, to)) return refuse(`a tab in ${name}`);
    if (headers[name] !== undefined) (repeated ??= []).push(name);
    headers[name] = text.slice(start, end);
  }

  const declared = headers['content-length'];
  const encoding = headers['transfer-encoding'];
  if (contentLengths > 1) return refuse('more than one Content-Length header');
  // Digits only (no sign, space or exponent), read once: -1 when it is not such a number.
  const contentLength =
    declared === undefined
      ? 0
      : declared.length > 0 && declared.length <= MAX_LENGTH_DIGITS
        ? asciiDigits(declared, 0, declared.length)
        : -1;
  if (contentLength < 0) return refuse('Content-Length is not a number');
  if (encoding !== undefined) {
    if (declared !== undefined) return refuse('Content-Length together with Transfer-Encoding');
    if (!http11) return refuse('Transfer-Encoding in an HTTP/1.0 request');
    // Only chunked is decoded here; any other coding would leave the body's end unknown.
    if (encoding.toLowerCase() !== 'chunked' || repeated?.includes('transfer-encoding'))
      return refuse('a Transfer-Encoding other than chunked');
  }
  if (http11 && headers.host === undefined) return refuse('no Host header');
  const connection = headers.connection;
  return {
    method,
    target,
    http11,
    headers,
    repeated,
    contentLength,
    chunked: encoding !== undefined,
    // HTTP/1.0 keep-alive is not offered: such a connection closes after its answer.
    keepAlive: http11 && !lists(connection, 'close'),
    expectContinue: lists(headers.expect, '100-continue'),
  };
}

export const isRefusal = (head: RequestHead | HeadRefusal): head is HeadRefusal => 'refused' in head;
