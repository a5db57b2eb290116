/**
 * Raw HTTP/1.1 over a socket, for what `fetch` cannot send or hides: HEAD bodies, repeated
 * headers, malformed framing, several requests on one connection.
 */
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawExchange {
  /** Every byte the server sent, as text. */
  text: string;
  /** The server closed the connection (rather than our wait running out). */
  closed: boolean;
}

/**
 * Sends `request` as it is and collects what comes back until the server closes or `waitMs` passes.
 * `localAddress`: the client's own address (any 127/8 address is loopback on Linux), to be a
 * peer other than 127.0.0.1.
 */
export function rawExchange(baseUrl: string, request: string | Buffer, waitMs = 1000, localAddress?: string): Promise<RawExchange> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = net.connect({ port: Number(port), host: hostname, ...(localAddress ? { localAddress } : {}) }, () =>
      socket.write(request),
    );
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, waitMs);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });
}

/**
 * Sends each request on one keep-alive connection once the server has gone quiet after the
 * previous one (uWS drops a connection that pipelines a request behind an unanswered one).
 */
export function rawSequence(baseUrl: string, requests: string[], quietMs = 150): Promise<RawExchange> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let text = '';
    let next = 0;
    let quiet: NodeJS.Timeout | undefined;
    const socket = net.connect(Number(port), hostname);
    const sendNext = (): void => {
      if (next < requests.length) {
        socket.write(requests[next++] as string);
        quiet = setTimeout(sendNext, quietMs * 4);
      } else {
        socket.destroy();
        resolve({ text, closed: false });
      }
    };
    socket.on('connect', sendNext);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      clearTimeout(quiet);
      quiet = setTimeout(sendNext, quietMs);
    });
    socket.on('error', (err) => {
      clearTimeout(quiet);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(quiet);
      resolve({ text, closed: true });
    });
  });
}

/**
 * Splits raw response text into responses, reading each body by its Content-Length (or none for
 * HEAD answers and 204s, as `noBody` says): what a keep-alive client does, so a body sent where
 * none belongs shows up as garbage at the start of the next response.
 */
export function parseResponses(
  text: string,
  noBody: (index: number, status: number, headers: Record<string, string>) => boolean = () => false,
): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`incomplete response head: ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const m = /^HTTP\/1\.1 (\d{3})/.exec(statusLine);
    if (!m) throw new Error(`not a status line: ${JSON.stringify(statusLine.slice(0, 200))}`);
    const status = Number(m[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.slice(end + 4);
    const length = noBody(out.length, status, headers) ? 0 : Number(headers['content-length'] ?? '0');
    out.push({ status, headers, body: rest.slice(0, length) });
    rest = rest.slice(length);
  }
  return out;
}

/** One request's text: a request line, headers (in order, repeats allowed) and a body. */
export function rawRequest(method: string, path: string, headers: [string, string][] = [], body = ''): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...headers.map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
