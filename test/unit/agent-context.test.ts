/** The handler's context works the way authors write handlers, destructured included. */
import { describe, expect, it } from 'vitest';
import { createServer, defineAgent } from '../../src/index.js';

describe('agent context', () => {
  it('methods and fields work when destructured', async () => {
    const agent = defineAgent({
      card: { name: 'D', description: 'destructures', version: '1', skills: [] },
      async handler({ text, status, complete, taskId, contextId, history }) {
        status('working on it');
        complete(`${text}|${taskId.length > 0}|${contextId.length > 0}|${history.length}`);
      },
    });
    const server = await createServer({ agent, port: 0, store: 'memory', logLevel: 'silent', env: {} });
    try {
      const res = await fetch(`${server.url}/v1/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: { role: 'user', messageId: 'd1', parts: [{ kind: 'text', text: 'hi' }] } }),
      });
      const task = (await res.json()) as { status: { state: string }; artifacts: { parts: { text: string }[] }[] };
      expect(task.status.state).toBe('completed');
      expect(task.artifacts[0]?.parts[0]?.text).toBe('hi|true|true|1');
    } finally {
      await server.close();
    }
  });
});

describe('status timestamps', () => {
  it('strictly increase within a task, even for transitions in the same millisecond', async () => {
    const agent = defineAgent({
      card: { name: 'T', description: 'many statuses', version: '1', skills: [] },
      handler({ status, complete }) {
        for (let i = 0; i < 20; i++) status(`step ${i}`);
        complete('done');
      },
    });
    const server = await createServer({ agent, port: 0, store: 'memory', logLevel: 'silent', env: {} });
    try {
      const res = await fetch(`${server.url}/v1/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: { role: 'user', messageId: 't1', parts: [{ kind: 'text', text: 'go' }] } }),
      });
      const task = (await res.json()) as { metadata: { stateTransitions: { timestamp: string }[] }; status: { timestamp: string } };
      const times = task.metadata.stateTransitions.map((t) => Date.parse(t.timestamp));
      for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1] as number);
    } finally {
      await server.close();
    }
  });
});
