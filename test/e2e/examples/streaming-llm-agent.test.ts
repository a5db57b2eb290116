/**
 * examples/streaming-llm-agent.ts served for real on 127.0.0.1 (through `testAgent`, as an agent
 * author would test it): tokens stream as chunks of one artifact, a cancel stops the generation
 * and ends the task `canceled`, and a plain send gets the assembled artifact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFor, createStreamingLlmAgent } from '../../../examples/streaming-llm-agent.js';
import { testAgent, type AgentTestClient, type StreamEvent, type Task } from '../../../src/index.js';
import { userMessage, type Json } from '../../support/a2a.js';
import { openSse, type SseEvent } from '../../support/sse.js';

const textOf = (parts: Json[]): string => parts.map((p) => p.text as string).join('');
const chunksOf = (events: StreamEvent[]) => events.filter((e) => e.kind === 'artifact-update');

describe('streaming LLM agent', () => {
  let fast: AgentTestClient;
  beforeAll(async () => {
    fast = await testAgent(createStreamingLlmAgent({ tokenDelayMs: 2 }));
  });
  afterAll(() => fast.close());

  it('message/stream delivers the tokens in order as chunks of one artifact, the last one marked lastChunk', async () => {
    const events = await fast.stream('tell me a story');
    expect(events[0]?.kind).toBe('task');
    const chunks = chunksOf(events);
    const expected = answerFor('tell me a story');
    expect(chunks.length).toBe(expected.match(/\s*\S+/g)?.length);
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.map((c) => c.artifact.artifactId)).toEqual(chunks.map(() => 'answer'));
    expect(chunks.map((c) => c.append ?? false)).toEqual(chunks.map((_, i) => i > 0));
    expect(chunks.map((c) => c.lastChunk ?? false)).toEqual(chunks.map((_, i) => i === chunks.length - 1));
    expect(chunks.map((c) => textOf(c.artifact.parts)).join('')).toBe(expected);
    const last = events.at(-1);
    expect(last?.kind === 'status-update' && last.final && last.status.state).toBe('completed');
  });

  it('a non-streaming send returns the completed task with the whole answer as one artifact', async () => {
    const task = (await fast.send('hello')) as Task;
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('completed');
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts?.[0]?.artifactId).toBe('answer');
    expect(textOf(task.artifacts?.[0]?.parts ?? [])).toBe(answerFor('hello'));
  });

  it('an empty prompt asks for one instead of streaming', async () => {
    const task = (await fast.send('   ')) as Task;
    expect(task.status.state).toBe('input-required');
    expect(task.artifacts ?? []).toEqual([]);
  });

  it('a cancel mid-stream stops the tokens at once and ends the task canceled', async () => {
    // Slow enough that the rest of the answer (~45 tokens) takes about 2 s, far longer than the
    // cancel's grace: a handler that ignored ctx.signal would still be `working` when the cancel
    // answers, and its stream would go on to `completed`.
    const slow = await testAgent(createStreamingLlmAgent({ tokenDelayMs: 50 }), { cancelGrace: 0.5 });
    try {
      let taskId: string | undefined;
      let chunksAtCancel = -1;
      const seen: SseEvent[] = [];
      let canceled: Promise<Task> | undefined;
      const stream = await openSse(`${slow.url}/`, {
        body: { jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: userMessage('a long answer please') } },
        onEvent: (event) => {
          seen.push(event);
          const result = event.data.result;
          if (result.kind === 'task') taskId = result.id;
          const chunks = seen.filter((e) => e.data.result.kind === 'artifact-update').length;
          if (chunks === 3 && !canceled && taskId) {
            chunksAtCancel = chunks;
            canceled = slow.cancel(taskId);
          }
        },
      });
      const started = Date.now();
      const events = (await stream.events).map((e) => e.data.result as StreamEvent);
      expect(canceled).toBeDefined();
      const answer = await canceled!;
      expect(answer.status.state).toBe('canceled');
      expect(Date.now() - started).toBeLessThan(1500);

      // The stream ends with the canceled status. Only tokens already on their way while the
      // cancel request travelled follow the third chunk (one per 50 ms; a little slack for a busy
      // machine), far from the ~45 of the whole answer; what arrived is a prefix of the answer.
      const last = events.at(-1);
      expect(last?.kind === 'status-update' && last.final && last.status.state).toBe('canceled');
      const chunks = chunksOf(events);
      expect(chunks.length).toBeGreaterThanOrEqual(chunksAtCancel);
      expect(chunks.length).toBeLessThanOrEqual(chunksAtCancel + 3);
      const streamed = chunks.map((c) => textOf(c.artifact.parts)).join('');
      expect(answerFor('a long answer please').startsWith(streamed)).toBe(true);

      // Nothing was added after the cancel: the stored artifact is what the stream showed, and
      // stays so (a few token delays later).
      await new Promise((r) => setTimeout(r, 200));
      const stored = await slow.get(taskId!);
      expect(stored.status.state).toBe('canceled');
      expect(textOf(stored.artifacts?.[0]?.parts ?? [])).toBe(streamed);
    } finally {
      await slow.close();
    }
  });
});
