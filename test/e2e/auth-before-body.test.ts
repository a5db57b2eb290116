/**
 * Credentials before the body, and no caller's large bodies starving the others (issue 32,
 * items 2 and 7a), on both front ends: a request that needs a caller is authenticated from its
 * headers and refused before its body is read; large bodies are read and parsed a budget at a
 * time (SERVICE_BODY_BUDGET_BYTES, SERVICE_BODY_QUEUE); a repeated Authorization or API-key
 * header is refused. The load tests run the server in a process of its own, so that what they
 * time is the server, not this test's own loop.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyAuth, bearerAuth, defineAgent } from '../../src/index.js';
import scenario from '../../examples/scenario-agent.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { rawExchange, rawSequence } from '../support/raw-http.js';
import { startServer, TEST_FRONT_END, type TestServer } from '../support/server.js';

const FRONT_ENDS: readonly ('uws' | 'node' | 'node-http')[] = TEST_FRONT_END ? [TEST_FRONT_END] : ['uws', 'node'];

/** Bearer tokens checked asynchronously, as a JWT with a JWKS is. */
const asyncBearerAgent = defineAgent({
  ...scenario,
  auth: bearerAuth({
    verify: async (token) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return token === 'alice-token' ? { id: 'alice' } : undefined;
    },
  }),
});

const apiKeyAgent = defineAgent({ ...scenario, auth: apiKeyAuth({ keys: { 'alice-key': 'alice' } }) });

const BIG_BODY_BYTES = 9_900_000;

const sendBody = (text: string, id = 1): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'message/send',
    params: { message: { kind: 'message', role: 'user', messageId: `m-${id}-${Math.random()}`, parts: [{ kind: 'text', text }] } },
  });

/** Request head and body as raw HTTP/1.1 text. */
const rawPost = (path: string, headers: Record<string, string>, body: string, length = Buffer.byteLength(body)): string =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
  Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('') +
  `Content-Length: ${length}\r\n\r\n${body}`;

/** Sends a request and resolves with its first whole answer (head and Content-Length body) or what came in `waitMs`. */
function oneAnswer(baseUrl: string, request: string, waitMs = 3000): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(text);
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text.slice(0, end));
      if (end >= 0 && length && text.length - end - 4 >= Number(length[1])) finish();
    });
    socket.on('close', finish);
    socket.on('error', reject);
  });
}

const statusOf = (text: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);

/** A 9.9 MB JSON body of about a million small objects: what costs the most to parse per byte. */
function costlyBody(): Buffer {
  const pad = `[${Array(Math.floor(BIG_BODY_BYTES / 8) - 4)
    .fill('{"a":1}')
    .join(',')}]`;
  return Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"no-such-task","pad":${pad}}}`);
}

describe.each(FRONT_ENDS)('credentials before the body on %s', (frontEnd) => {
  let bearer: TestServer;
  let asyncBearer: TestServer;
  let apiKey: TestServer;
  beforeAll(async () => {
    const common = { frontEnd, storeKind: 'memory' as const };
    [bearer, asyncBearer, apiKey] = await Promise.all([
      startServer({ ...common, agent: (await import('../../examples/auth-agent.js')).default }),
      startServer({ ...common, agent: asyncBearerAgent }),
      startServer({ ...common, agent: apiKeyAgent }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([bearer?.stop(), asyncBearer?.stop(), apiKey?.stop()]);
  });

  it('a request without valid credentials gets its 401 before it sends its body, and the connection is closed', async () => {
    for (const server of [bearer, asyncBearer]) {
      for (const [path, auth] of [
        ['/', {}],
        ['/v1/message:send', { Authorization: 'Bearer eve-token' }],
        ['/message:send', {}],
      ] as const) {
        // Only the head: a server that waits for the 9.9 MB it was promised never answers.
        const { text, closed } = await rawExchange(server.url, rawPost(path, auth, '', BIG_BODY_BYTES), 3000);
        expect(statusOf(text), `${path} on ${server.url}`).toBe(401);
        expect(text).toMatch(/WWW-Authenticate: Bearer/i);
        expect(closed).toBe(true);
      }
    }
  });

  it('a small body with a wrong token is a 401 that keeps the connection for the next request', async () => {
    const wrong = rawPost('/', { Authorization: 'Bearer eve-token' }, sendBody('whoami'));
    const right = rawPost('/', { Authorization: 'Bearer alice-token' }, sendBody('hello'));
    for (const server of [bearer, asyncBearer]) {
      const { text } = await rawSequence(server.url, [wrong, right]);
      const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
      expect(statuses).toEqual([401, 200]);
    }
  });

  it('with an asynchronous authenticator, a valid caller body sent in pieces after the head is read whole', async () => {
    const body = sendBody('x'.repeat(300_000));
    const head = rawPost('/', { Authorization: 'Bearer alice-token' }, '', Buffer.byteLength(body));
    const { hostname, port } = new URL(asyncBearer.url);
    const text = await new Promise<string>((resolve, reject) => {
      let got = '';
      const socket = net.connect(Number(port), hostname, () => {
        socket.write(head);
        // The rest comes while the token is still being checked, and after.
        socket.write(body.slice(0, 1000));
        setTimeout(() => socket.write(body.slice(1000, 150_000)), 5);
        setTimeout(() => socket.write(body.slice(150_000)), 60);
      });
      socket.on('data', (d: Buffer) => {
        got += d.toString('latin1');
        if (/\r\n\r\n[\s\S]*"result"/.test(got) || /"error"/.test(got)) {
          socket.destroy();
          resolve(got);
        }
      });
      socket.on('error', reject);
      setTimeout(() => {
        socket.destroy();
        resolve(got);
      }, 5000);
    });
    expect(statusOf(text)).toBe(200);
    expect(text).toContain('"result"');
  });

  it('a repeated Authorization or API-key header is a 400 naming it, whatever the route', async () => {
    const twoTokens = (method: string, path: string, extra = '') =>
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice-token\r\nAuthorization: Bearer bob-token\r\n${extra}\r\n`;
    for (const request of [
      twoTokens('GET', '/v1/tasks'),
      twoTokens('GET', '/tasks', 'A2A-Version: 1.0\r\n'),
      rawPost('/', { Authorization: 'Bearer alice-token', authorization: 'Bearer alice-token' }, sendBody('whoami')),
    ]) {
      const text = await oneAnswer(bearer.url, request);
      expect(statusOf(text), request.split('\r\n')[0]).toBe(400);
      expect(text).toContain('more than one Authorization header');
    }
    const twoKeys = rawPost('/', { 'X-API-Key': 'alice-key', 'x-api-key': 'alice-key' }, sendBody('whoami'));
    const text = await oneAnswer(apiKey.url, twoKeys);
    expect(statusOf(text)).toBe(400);
    expect(text).toContain('more than one X-API-Key header');
    expect(text).toContain('-32600');
    // One of each is served.
    const one = await oneAnswer(apiKey.url, rawPost('/', { 'X-API-Key': 'alice-key' }, sendBody('whoami')));
    expect(one).toContain('"result"');
  });
});

/** Percentile of some latencies, in ms. */
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

describe.each(FRONT_ENDS)('large bodies do not starve other callers on %s', (frontEnd) => {
  let proc: ServerProcess;
  let agent: http.Agent;
  const big = costlyBody();
  const small = Buffer.from(sendBody('whoami', 2));

  beforeAll(async () => {
    proc = await spawnServer(['examples/auth-agent.ts', '--store', 'memory'], { SERVICE_FRONT_END: frontEnd });
    agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  });
  afterAll(async () => {
    agent?.destroy();
    await proc?.kill();
  });

  /** POSTs a body to `/`; resolves with the status and time taken (status 0: the server hung up). */
  const post = (body: Buffer, token: string | undefined): Promise<{ status: number; ms: number }> =>
    new Promise((resolve) => {
      const started = performance.now();
      const { port } = new URL(proc.url);
      const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': body.length };
      if (token) headers.authorization = `Bearer ${token}`;
      const req = http.request({ host: '127.0.0.1', port, path: '/', method: 'POST', headers, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      });
      req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
      req.end(body);
    });

  /**
   * Two clients post `big` in a loop (bounded in count and time) while alice sends small
   * messages; returns alice's latencies and what the loopers got.
   */
  async function underLoad(token: string | undefined): Promise<{ victim: number[]; statuses: number[] }> {
    for (let i = 0; i < 5; i++) await post(small, 'alice-token');
    const until = performance.now() + 4000;
    const statuses: number[] = [];
    const loop = async (): Promise<void> => {
      for (let n = 0; n < 400 && performance.now() < until; n++) statuses.push((await post(big, token)).status);
    };
    const loops = [loop(), loop()];
    await new Promise((resolve) => setTimeout(resolve, 200));
    const victim: number[] = [];
    for (let n = 0; n < 200 && performance.now() < until; n++) {
      const answer = await post(small, 'alice-token');
      expect(answer.status).toBe(200);
      victim.push(answer.ms);
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    await Promise.all(loops);
    return { victim, statuses };
  }

  it('two clients looping unauthenticated 9.9 MB bodies leave another caller p99 under 250 ms', async () => {
    const { victim, statuses } = await underLoad(undefined);
    // Refused unread: a 401, or a hang-up while the client was still sending.
    expect(statuses.every((s) => s === 401 || s === 0)).toBe(true);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    // The node front end once read each refused body on for a second, and this p99 then failed
    // one run in four there (267 ms); since it drops them past 1 MiB it reads 9-22 ms.
    expect(percentile(victim, 99)).toBeLessThan(250);
  }, 20_000);

  it('two authenticated callers looping 9.9 MB bodies leave another caller median under 60 ms, and are served', async () => {
    const { victim, statuses } = await underLoad('bob-token');
    // Bob's bodies are parsed and answered (the task does not exist: a JSON-RPC error, HTTP 200).
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(percentile(victim, 50)).toBeLessThan(60);
  }, 20_000);
});

describe('the body budget refuses with 503 and Retry-After what would hold it up', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      agent: (await import('../../examples/auth-agent.js')).default,
      bodyBudgetBytes: 64 * 1024,
      bodyQueue: 0,
      bodyReadTimeout: 1,
      ...(TEST_FRONT_END ? { frontEnd: TEST_FRONT_END } : {}),
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('while one large body is read, another caller gets 503 for its own, and small requests pass', async () => {
    const first = sendBody('a'.repeat(200_000));
    const { hostname, port } = new URL(server.url);
    // Alice's body, half sent: it holds the budget.
    const socket = net.connect(Number(port), hostname);
    let aliceAnswer = '';
    socket.on('data', (d: Buffer) => {
      aliceAnswer += d.toString('latin1');
    });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(rawPost('/', { Authorization: 'Bearer alice-token' }, '', Buffer.byteLength(first)) + first.slice(0, 100_000));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const second = sendBody('b'.repeat(200_000));
    const refused = await oneAnswer(server.url, rawPost('/', { Authorization: 'Bearer bob-token' }, second));
    expect(statusOf(refused)).toBe(503);
    expect(refused).toMatch(/Retry-After: 1/i);
    expect(refused).toContain('SERVICE_BODY_QUEUE');
    // The scrape shows alice's body holding the budget.
    const scrape = await (await fetch(`${server.url}/metrics`)).text();
    expect(Number(/^a2actor_http_body_bytes_in_flight (\d+)$/m.exec(scrape)?.[1])).toBeGreaterThan(0);
    expect(scrape).toMatch(/^a2actor_http_bodies_waiting 0$/m);

    const smallOne = await oneAnswer(server.url, rawPost('/', { Authorization: 'Bearer bob-token' }, sendBody('whoami')));
    expect(smallOne).toContain('you are bob');

    socket.write(first.slice(100_000));
    for (let i = 0; i < 100 && !aliceAnswer.includes('"result"'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    expect(statusOf(aliceAnswer)).toBe(200);
    expect(aliceAnswer).toContain('"result"');
  });

  it('a large body trickled in loses its place after SERVICE_BODY_READ_TIMEOUT, and the next one is served', async () => {
    const body = sendBody('c'.repeat(200_000));
    const { hostname, port } = new URL(server.url);
    const socket = net.connect(Number(port), hostname);
    let answer = '';
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
    });
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(rawPost('/', { Authorization: 'Bearer alice-token' }, '', Buffer.byteLength(body)) + body.slice(0, 1000));
    const trickle = setInterval(() => socket.write(' '), 200);
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000))]);
    clearInterval(trickle);
    socket.destroy();
    expect(statusOf(answer)).toBe(503);
    expect(answer).toContain('SERVICE_BODY_READ_TIMEOUT');
    const next = await oneAnswer(server.url, rawPost('/', { Authorization: 'Bearer bob-token' }, sendBody('d'.repeat(200_000))));
    expect(statusOf(next)).toBe(200);
    expect(next).toContain('"result"');
  });
});
