/** task-parts.ts finds a task's history and artifacts in its JSON text, whatever their strings hold. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partSizes, partText, summaryText, taskParts } from '../../src/store/task-parts.js';

const text = fc.string({ unit: 'binary', maxLength: 40 });
const part = fc.record({ kind: fc.constant('text'), text });
const message = fc.record({
  kind: fc.constant('message'),
  role: fc.constant('user'),
  parts: fc.array(part, { maxLength: 3 }),
  messageId: text,
});
const artifact = fc.record({ artifactId: text, parts: fc.array(part, { maxLength: 3 }) });
const task = fc.record(
  {
    kind: fc.constant('task'),
    id: text,
    contextId: text,
    status: fc.record({ state: fc.constant('completed'), timestamp: text, note: fc.jsonValue({ maxDepth: 3 }) }),
    history: fc.array(message, { maxLength: 3 }),
    artifacts: fc.array(artifact, { maxLength: 3 }),
    metadata: fc.dictionary(text, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 }),
  },
  { requiredKeys: ['kind', 'id', 'contextId', 'status'] },
);

describe('task parts', () => {
  it('cuts any task text into its summary, history and artifacts, exactly', () => {
    fc.assert(
      fc.property(task, fc.shuffledSubarray(['kind', 'id', 'contextId', 'status', 'history', 'artifacts', 'metadata']), (t, order) => {
        // Keys in any order: the stores never rely on where history and artifacts sit.
        const record = t as Record<string, unknown>;
        const shaped = Object.fromEntries(order.filter((k) => k in record).map((k) => [k, record[k]]));
        const json = JSON.stringify(shaped);
        const parts = taskParts(json);
        expect(parts).toBeDefined();
        if (!parts) return;
        const { history, artifacts, ...summary } = JSON.parse(json) as Record<string, unknown>;
        expect(JSON.parse(summaryText(json, parts))).toEqual(summary);
        const historyText = partText(json, parts.history);
        const artifactsText = partText(json, parts.artifacts);
        expect(historyText === undefined ? undefined : JSON.parse(historyText)).toEqual(history);
        expect(artifactsText === undefined ? undefined : JSON.parse(artifactsText)).toEqual(artifacts);
        const sizes = partSizes(json, parts);
        expect(sizes.summaryBytes).toBe(summaryText(json, parts).length);
        expect(sizes.historyBytes + sizes.artifactsBytes).toBe((historyText ?? '').length + (artifactsText ?? '').length);
      }),
      { seed: 32, numRuns: 500 },
    );
  });

  it('leaves text that is not a compact JSON object to the caller', () => {
    for (const json of ['[1]', '{ "history": [] }', '{"a":1', '"x"', '{"a":1}x']) expect(taskParts(json)).toBeUndefined();
    expect(taskParts('{}')).toEqual({ history: undefined, artifacts: undefined, members: 0 });
  });
});
