/**
 * The test harness agent authors get: their agent served in-process on 127.0.0.1, and a small
 * client for send, follow-up, stream, get and cancel, with A2A errors thrown as A2ARequestError.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import scenarioAgent from '../../examples/scenario-agent.js';
import { A2ARequestError, defineAgent, testAgent, type AgentTestClient } from '../../src/index.js';

describe('testAgent', () => {
  let t: AgentTestClient;
  beforeAll(async () => {
    t = await testAgent(scenarioAgent);
  });
  afterAll(() => t.close());

  it('sends, follows up and reads a task', async () => {
    const asked = await t.send('ask which colour?');
    if (asked.kind !== 'task') throw new Error('expected a task');
    expect(asked.status.state).toBe('input-required');
    const answered = await t.send('blue', { taskId: asked.id });
    if (answered.kind !== 'task') throw new Error('expected a task');
    expect(answered.status.state).toBe('completed');
    expect(answered.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: 'got: blue' });
    expect((await t.get(asked.id, 1)).history).toHaveLength(1);
  });

  it('serves a handler that continues in the background: working after send and stream, ended by cancel or by itself', async () => {
    const sent = await t.send('background');
    if (sent.kind !== 'task') throw new Error('expected a task');
    expect(sent.status.state).toBe('working');
    expect(sent.artifacts?.map((a) => a.artifactId)).toEqual(['started']);
    expect((await t.get(sent.id)).status.state).toBe('working');
    expect((await t.cancel(sent.id)).status.state).toBe('canceled');

    const streamed = await t.stream('background 20');
    const last = streamed.at(-1);
    expect(last?.kind === 'status-update' && [last.status.state, last.final]).toEqual(['working', true]);
    const id = streamed[0]?.kind === 'task' ? streamed[0].id : '';
    await expect.poll(async () => (await t.get(id)).status.state).toBe('completed');
  });

  it('activates extensions and passes acceptedOutputModes', async () => {
    const uri = 'https://example.com/ext/x/v1';
    const agent = defineAgent({
      card: { name: 'E', description: 'Echoes what it was asked for.', version: '1', skills: [] },
      capabilities: { streaming: true, extensions: [{ uri, required: true }] },
      handler: (ctx) => ctx.reply(`${ctx.extensions.join(',')} ${ctx.acceptedOutputModes.join(',')}`),
    });
    const e = await testAgent(agent);
    try {
      const reply = await e.send('hi', { extensions: [uri], configuration: { acceptedOutputModes: ['text/plain'] } });
      expect(reply.kind === 'message' && reply.parts[0]).toEqual({ kind: 'text', text: `${uri} text/plain` });
      const streamed = await e.stream('hi', { extensions: [uri] });
      expect(streamed[0]?.kind).toBe('message');
      await expect(e.send('hi')).rejects.toMatchObject({ code: -32008 });
    } finally {
      await e.close();
    }
  });

  it('gives a direct reply as a Message', async () => {
    const reply = await t.send('direct hello');
    expect(reply.kind).toBe('message');
  });

  it('streams a turn to its final event', async () => {
    const events = await t.stream('stream 3');
    expect(events[0]?.kind).toBe('task');
    expect(events.filter((e) => e.kind === 'artifact-update')).toHaveLength(3);
    const last = events.at(-1);
    expect(last?.kind === 'status-update' && last.final && last.status.state).toBe('completed');
  });

  it('cancels a running task', async () => {
    const running = await t.send('slow 5000', { blocking: false });
    if (running.kind !== 'task') throw new Error('expected a task');
    expect((await t.cancel(running.id)).status.state).toBe('canceled');
  });

  it('throws A2A errors with their code', async () => {
    const error = await t.get('no-such-task').catch((err: unknown) => err);
    expect(error).toBeInstanceOf(A2ARequestError);
    expect((error as A2ARequestError).code).toBe(-32001);
  });

  it('serves any agent, with settings of its own', async () => {
    const quiet = await testAgent(
      defineAgent({
        card: { name: 'Tiny', description: 'answers', version: '1', skills: [] },
        handler: async (ctx) => ctx.complete(`hi ${ctx.text}`),
      }),
      { maxJsonDepth: 8 },
    );
    try {
      const task = await quiet.send('there');
      expect(task.kind === 'task' && task.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: 'hi there' });
      expect(quiet.server.settings.maxJsonDepth).toBe(8);
    } finally {
      await quiet.close();
    }
  });
});
