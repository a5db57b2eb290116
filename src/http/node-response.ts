/**
 * A node:http response with uWS's calling convention (status line, chained headers, write →
 * boolean), written the cheap way node offers: the status and headers are gathered in one flat
 * array and go out in one `writeHead(status, reason, array)` with the first bytes, where
 * `setHeader` per header filled a map that `end` then walked again. Hand-tuned: the plain
 * version it must stay equal to on the wire is node-response-plain.ts
 * (test/unit/node-response.test.ts holds the two equal).
 */
import type { ServerResponse } from 'node:http';
import type { WireResponse } from './wire.js';

/**
 * Answers without a body, for which node writes no Content-Length of its own: those to a HEAD
 * request and those whose status has none (RFC 9110 §8.6).
 */
const bodiless = (res: ServerResponse, status: number): boolean =>
  status === 204 || status === 304 || (status >= 100 && status < 200) || res.req.method === 'HEAD';

export class NodeWireResponse implements WireResponse {
  private status = 200;
  private reason = 'OK';
  /** Header names and values, alternating, until they are written. */
  private head: string[] = [];
  /** Index in `head` of the Content-Length name written by the caller; -1: none. */
  private lengthAt = -1;
  private abortHandler: (() => void) | undefined;
  private writableHandler: ((offset: number) => boolean) | undefined;
  private closeAfter = false;

  constructor(private readonly res: ServerResponse) {
    res.on('close', this.closed);
  }

  /** 'close' without a finished answer: the client went away (or the socket broke). */
  private readonly closed = (): void => {
    if (this.res.writableFinished) return;
    this.abortHandler?.();
  };

  cork(fn: () => void): void {
    // node corks the socket itself for the rest of the turn once a response writes.
    fn();
  }

  writeStatus(line: string): this {
    this.status = Number.parseInt(line, 10);
    this.reason = line.slice(line.indexOf(' ') + 1);
    return this;
  }

  writeHeader(name: string, value: string): this {
    if (this.res.headersSent) return this;
    if (name.length === 14 && name.toLowerCase() === 'content-length') this.lengthAt = this.head.length;
    this.head.push(name, value);
    return this;
  }

  write(chunk: string): boolean {
    this.writeHead();
    return this.res.write(chunk);
  }

  end(body?: string | Buffer, closeConnection = false): void {
    this.prepareClose(closeConnection);
    if (!this.res.headersSent) {
      // The length node would have worked out itself had the headers waited for `end`.
      if (this.lengthAt < 0 && !bodiless(this.res, this.status))
        this.writeHeader('Content-Length', String(body === undefined ? 0 : Buffer.byteLength(body)));
      this.writeHead();
    }
    this.res.end(body);
  }

  endWithoutBody(reportedContentLength?: number, closeConnection = false): void {
    this.prepareClose(closeConnection);
    if (!this.res.headersSent) {
      if (reportedContentLength !== undefined) this.setLength(String(reportedContentLength));
      else if (this.lengthAt < 0 && !bodiless(this.res, this.status)) this.writeHeader('Content-Length', '0');
      this.writeHead();
    }
    this.res.end();
  }

  onWritable(handler: (offset: number) => boolean): void {
    // Registered only by a stream that was pushed back: most answers never need it.
    if (!this.writableHandler) this.res.on('drain', () => this.writableHandler?.(0));
    this.writableHandler = handler;
  }

  onAborted(handler: () => void): void {
    // The exchange registers one handler per response; a second would replace it, so chain.
    const before = this.abortHandler;
    this.abortHandler = before ? () => (before(), handler()) : handler;
  }

  close(): void {
    this.res.destroy();
  }

  /** The status and the gathered headers, once, before the first bytes. */
  private writeHead(): void {
    if (this.res.headersSent) return;
    this.res.writeHead(this.status, this.reason, this.head);
  }

  /** Content-Length, in place of one the caller wrote (as `setHeader` replaces). */
  private setLength(value: string): void {
    if (this.lengthAt >= 0) this.head[this.lengthAt + 1] = value;
    else this.writeHeader('Content-Length', value);
  }

  /** Closing after the answer: say so, and drop the socket once it is out (no more is read). */
  private prepareClose(close: boolean): void {
    if (!close || this.closeAfter) return;
    this.closeAfter = true;
    if (!this.res.headersSent) this.writeHeader('Connection', 'close');
    this.res.once('finish', () => this.res.socket?.destroy());
  }
}
