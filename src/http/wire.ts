/** The two small interfaces every front end adapts its sockets to (uWS has these shapes already). */
import type { A2AError } from '../a2a/errors.js';

/** What an answer is written through (uWS's HttpResponse has exactly this shape). */
export interface WireResponse {
  cork(fn: () => void): unknown;
  writeStatus(line: string): WireResponse;
  writeHeader(name: string, value: string): WireResponse;
  /** False once the transport holds bytes it could not send yet (they are still sent). */
  write(chunk: string): boolean;
  end(body?: string | Buffer, closeConnection?: boolean): unknown;
  /** Without a length: no Content-Length at all (a 204). */
  endWithoutBody(reportedContentLength?: number, closeConnection?: boolean): unknown;
  /** Called when bytes held back have been (partly) sent. */
  onWritable(handler: (offset: number) => boolean): unknown;
  onAborted(handler: () => void): unknown;
  /** Drops the connection at once. */
  close(): unknown;
}

/** A request as the front end read it (headers lower-cased, no prototype). */
export interface WireRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  /** How many Content-Length headers the request had (a repeat is refused). */
  contentLengths: number;
  /** Lower-cased names of the headers sent more than once (undefined: none was). */
  repeatedHeaders?: string[] | undefined;
  /**
   * Collects the body; past `max` bytes calls `over` instead (and reads no more). `over` gets
   * the error when the body cannot be had for another reason (a host app read it: parsed-body.ts).
   */
  readBody(max: number, done: (body: Buffer) => void, over: (why?: A2AError) => void): void;
  /**
   * Reads no more of the body until `readBody` is called (a check of the headers is still
   * under way). What already arrived with the headers is kept for `readBody`; nothing else is.
   * Called at once in the request handler, before any other turn of the loop.
   */
  holdBody(): void;
  /** Where the server is mounted in a host app (`/a2a`): part of every URL in the card. */
  mountPath?: string;
  /** The peer's IP address (read on demand: only a trusted-proxies check needs it). */
  remoteAddress(): string;
  /** node:http only: the IP address the connection came in on (a mounted handler's host check). */
  localAddress?(): string;
}
