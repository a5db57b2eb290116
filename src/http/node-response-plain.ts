/**
 * The plain node:http response with uWS's calling convention: every header through `setHeader`,
 * node working out the rest at `end`. Not served: it is the reference the hand-tuned
 * node-response.ts is held equal to on the wire (test/unit/node-response.test.ts).
 */
import type { ServerResponse } from 'node:http';
import type { WireResponse } from './wire.js';

export class PlainNodeWireResponse implements WireResponse {
  private abortHandlers: (() => void)[] = [];
  private writableHandler: ((offset: number) => boolean) | undefined;
  private closeAfter = false;

  constructor(private readonly res: ServerResponse) {
    // 'close' without a finished answer: the client went away (or the socket broke).
    res.once('close', () => {
      if (res.writableFinished) return;
      for (const handler of this.abortHandlers) handler();
    });
    res.on('drain', () => this.writableHandler?.(0));
  }

  cork(fn: () => void): void {
    fn();
  }

  writeStatus(line: string): this {
    this.res.statusCode = Number.parseInt(line, 10);
    this.res.statusMessage = line.slice(line.indexOf(' ') + 1);
    return this;
  }

  writeHeader(name: string, value: string): this {
    if (!this.res.headersSent) this.res.setHeader(name, value);
    return this;
  }

  write(chunk: string): boolean {
    return this.res.write(chunk);
  }

  end(body?: string | Buffer, closeConnection = false): void {
    this.prepareClose(closeConnection);
    this.res.end(body);
  }

  endWithoutBody(reportedContentLength?: number, closeConnection = false): void {
    this.prepareClose(closeConnection);
    if (reportedContentLength !== undefined && !this.res.headersSent) this.res.setHeader('Content-Length', String(reportedContentLength));
    this.res.end();
  }

  onWritable(handler: (offset: number) => boolean): void {
    this.writableHandler = handler;
  }

  onAborted(handler: () => void): void {
    this.abortHandlers.push(handler);
  }

  close(): void {
    this.res.destroy();
  }

  /** Closing after the answer: say so, and drop the socket once it is out (no more is read). */
  private prepareClose(close: boolean): void {
    if (!close || this.closeAfter) return;
    this.closeAfter = true;
    if (!this.res.headersSent) this.res.setHeader('Connection', 'close');
    this.res.once('finish', () => this.res.socket?.destroy());
  }
}
