/**
 * examples/tool-agent.ts on a real server, calling a real HTTP tool (node:http on 127.0.0.1) that
 * answers by the question it gets: `slow …` never answers, `broken …` fails with 500, anything
 * else is answered. The tool records whether each request was answered or aborted by the caller.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolAgent } from '../../../examples/tool-agent.js';
import { client, eventually, userMessage, type A2AClient } from '../../support/a2a.js';
import { startServer, type TestServer } from '../../support/server.js';
import { openSse } from '../../support/sse.js';

interface ToolCall {
  question: string;
  /** The caller closed the connection before the tool answered. */
  aborted: boolean;
}

async function startTool(): Promise<{ url: string; calls: ToolCall[]; close(): Promise<void> }> {
  const calls: ToolCall[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const call: ToolCall = { question: (JSON.parse(raw) as { question: string }).question, aborted: false };
      calls.push(call);
      res.on('close', () => {
        if (!res.writableFinished) call.aborted = true;
      });
      if (call.question.startsWith('slow')) return; // holds the request until the caller gives up
      res.setHeader('content-type', 'application/json');
      if (call.question.startsWith('broken')) return void res.writeHead(500).end(JSON.stringify({ error: 'the index is offline' }));
      res.end(JSON.stringify({ answer: `the tool says: ${call.question}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/lookup`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('tool agent', () => {
  let tool: Awaited<ReturnType<typeof startTool>>;
  let server: TestServer;
  let a2a: A2AClient;
  beforeAll(async () => {
    tool = await startTool();
    server = await startServer({ agent: createToolAgent({ toolUrl: tool.url }) });
    a2a = client(server.url, 'jsonrpc');
  });
  afterAll(async () => {
    await server.stop();
    await tool.close();
  });

  it('completes with the tool answer, after saying that it is calling the tool', async () => {
    const stream = await openSse(`${server.url}/`, {
      body: { jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: userMessage('capital of France') } },
    });
    const events = (await stream.events).map((e) => e.data.result);
    const statuses = events.filter((e) => e.kind === 'status-update');
    expect(statuses.map((e) => e.status.message?.parts[0]?.text)).toContain('calling tool…');
    const last = statuses.at(-1);
    expect(last.final && last.status.state).toBe('completed');
    const task = (await a2a.get(events[0].id)).result;
    expect(task.artifacts[0].parts).toEqual([{ kind: 'text', text: 'the tool says: capital of France' }]);
    expect(tool.calls.find((c) => c.question === 'capital of France')?.aborted).toBe(false);
  });

  it('a cancel while the tool is slow ends the task canceled and aborts the tool request', async () => {
    const started = (await a2a.send({ message: userMessage('slow lookup'), configuration: { blocking: false } })).result;
    const call = await eventually(() => tool.calls.find((c) => c.question === 'slow lookup'));
    const waiting = (await a2a.get(started.id)).result;
    expect(waiting.status.state).toBe('working');
    expect(waiting.status.message.parts[0].text).toBe('calling tool…');
    expect(call.aborted).toBe(false);

    const canceled = await a2a.cancel(started.id);
    expect(canceled.result.status.state).toBe('canceled');
    // The fetch was aborted: the tool sees its caller hang up, and can stop its own work.
    await eventually(() => call.aborted || undefined, 2000);
  });

  it('a tool error fails the task with the tool status and reason', async () => {
    const failed = (await a2a.send({ message: userMessage('broken lookup') })).result;
    expect(failed.status.state).toBe('failed');
    expect(failed.status.message.parts[0].text).toBe('The tool failed (HTTP 500): the index is offline');
  });

  it('a tool slower than the timeout fails the task saying so, and the request is aborted', async () => {
    const impatient = await startServer({ agent: createToolAgent({ toolUrl: tool.url, timeoutMs: 200 }) });
    try {
      const failed = (await client(impatient.url, 'rest').send({ message: userMessage('slow and timed out') })).result;
      expect(failed.status.state).toBe('failed');
      expect(failed.status.message.parts[0].text).toBe('The tool did not answer within 200 ms.');
      const call = tool.calls.find((c) => c.question === 'slow and timed out');
      await eventually(() => call?.aborted || undefined, 2000);
    } finally {
      await impatient.stop();
    }
  });

  it('a tool that cannot be reached fails the task naming the network error, not the address', async () => {
    // A port that was free a moment ago: nothing listens there now.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = await startServer({ agent: createToolAgent({ toolUrl: `http://127.0.0.1:${port}/lookup` }) });
    try {
      const failed = (await client(unreachable.url, 'jsonrpc').send({ message: userMessage('anyone there?') })).result;
      expect(failed.status.state).toBe('failed');
      expect(failed.status.message.parts[0].text).toBe('The tool could not be reached (ECONNREFUSED).');
    } finally {
      await unreachable.stop();
    }
  });
});
