/**
 * examples/form-agent.ts served for real on 127.0.0.1 through `testAgent`: a multi-turn form that
 * waits in input-required with a data part naming the missing fields, takes answers as text or
 * data, refuses a bad email and asks again, and completes with the form as a data artifact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import formAgent from '../../../examples/form-agent.js';
import { testAgent, type AgentTestClient, type Part, type Task } from '../../../src/index.js';

describe('form agent', () => {
  let t: AgentTestClient;
  beforeAll(async () => {
    t = await testAgent(formAgent);
  });
  afterAll(() => t.close());

  const send = async (content: string | Part[], taskId?: string): Promise<Task> => {
    const answer = await t.send(content, taskId ? { taskId } : {});
    if (answer.kind !== 'task') throw new Error(`expected a task, got ${JSON.stringify(answer)}`);
    return answer;
  };
  /** The question's two parts: the text for people, the data for programs. */
  const questionOf = (task: Task) => {
    const [text, data] = task.status.message?.parts ?? [];
    if (text?.kind !== 'text' || data?.kind !== 'data') throw new Error(`not a question: ${JSON.stringify(task.status)}`);
    return { text: text.text, data: data.data };
  };

  it('asks for each missing field, takes a text answer, refuses a bad email, and completes with the form as data', async () => {
    const first = await send('sign me up');
    expect(first.status.state).toBe('input-required');
    expect(questionOf(first)).toEqual({ text: 'What is your name?', data: { needed: ['name', 'email'], filled: {}, invalid: {} } });
    const id = first.id;

    const named = await send('Ada Lovelace', id);
    expect(named.id).toBe(id);
    expect(named.status.state).toBe('input-required');
    expect(questionOf(named).data).toEqual({ needed: ['email'], filled: { name: 'Ada Lovelace' }, invalid: {} });
    // Between turns the task rests in input-required, as anyone polling it sees.
    expect((await t.get(id)).status.state).toBe('input-required');

    const bad = await send('ada-at-example', id);
    expect(bad.status.state).toBe('input-required');
    const again = questionOf(bad);
    expect(again.text).toMatch(/^The email "ada-at-example" was refused: .*email address\. What is your email address\?$/);
    expect(again.data).toEqual({
      needed: ['email'],
      filled: { name: 'Ada Lovelace' },
      invalid: { email: { value: 'ada-at-example', problem: 'that does not look like an email address' } },
    });

    const done = await send([{ kind: 'data', data: { email: 'ada@example.com' } }], id);
    expect(done.id).toBe(id);
    expect(done.status.state).toBe('completed');
    expect(done.artifacts).toEqual([
      { artifactId: 'form', name: 'signup-form', parts: [{ kind: 'data', data: { name: 'Ada Lovelace', email: 'ada@example.com' } }] },
    ]);
    const states = (done.metadata?.stateTransitions as { state: string }[] | undefined)?.map((s) => s.state);
    expect(states).toEqual([
      'submitted',
      'working',
      'input-required',
      'working',
      'input-required',
      'working',
      'input-required',
      'working',
      'completed',
    ]);
  });

  it('takes every field at once, as named lines of text on the first message', async () => {
    const done = await send('name: Grace Hopper\nEmail: grace@example.com');
    expect(done.status.state).toBe('completed');
    expect(done.artifacts?.[0]?.parts).toEqual([{ kind: 'data', data: { name: 'Grace Hopper', email: 'grace@example.com' } }]);
  });

  it('keeps the valid fields of a data part and asks again only for the refused one', async () => {
    const first = await send([{ kind: 'data', data: { name: 'Alan Turing', email: 'alan@' } }]);
    expect(first.status.state).toBe('input-required');
    expect(questionOf(first).data).toMatchObject({
      needed: ['email'],
      filled: { name: 'Alan Turing' },
      invalid: { email: { value: 'alan@' } },
    });
    // A bare text answers the field that was just asked for.
    const done = await send('alan@example.org', first.id);
    expect(done.status.state).toBe('completed');
    expect(done.artifacts?.[0]?.parts).toEqual([{ kind: 'data', data: { name: 'Alan Turing', email: 'alan@example.org' } }]);
  });
});
