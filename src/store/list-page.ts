/**
 * The rules every store follows to build one `tasks/list` page, so that all of them cut the same
 * page at the same task (test/store/contract.ts):
 * - an entry returns the task's summary, its history unless `historyLength` is 0 (the last N
 *   messages with N), and its artifacts unless `includeArtifacts` is false;
 * - an entry costs the characters of the stored JSON of what it returns, counting the whole
 *   stored history whenever any history is asked for (what the store reads for it);
 * - the page stops before its cost would pass `maxBytes`, except that a page always holds one
 *   task (the per-task size limit bounds it), and at `pageSize` tasks.
 */
import type { Task } from '../a2a/schemas.js';
import { partSizes, partText, summaryText, taskParts, type PartSizes } from './task-parts.js';
import type { TaskListQuery } from './types.js';

type ListView = Pick<TaskListQuery, 'historyLength' | 'includeArtifacts'>;

export function listCost(sizes: PartSizes, view: ListView): number {
  return (
    sizes.summaryBytes + (view.historyLength === 0 ? 0 : sizes.historyBytes) + (view.includeArtifacts === false ? 0 : sizes.artifactsBytes)
  );
}

/** Counts a page's tasks and cost as it is built, and says when the next task does not fit. */
export class PageBudget {
  private count = 0;
  private spent = 0;

  constructor(private readonly query: TaskListQuery) {}

  /** No further task fits, whatever its cost. */
  get full(): boolean {
    return this.count >= this.query.pageSize;
  }

  /** Whether a task costing `cost` still fits on the page; if so it is counted as taken. */
  take(cost: number): boolean {
    if (this.count >= this.query.pageSize) return false;
    const max = this.query.maxBytes;
    if (this.count > 0 && max !== undefined && this.spent + cost > max) return false;
    this.count++;
    this.spent += cost;
    return true;
  }
}

/** A task as a list entry, from its summary and the JSON texts of the parts the view asks for. */
export function listEntry(summary: Task, history: string | undefined | null, artifacts: string | undefined | null, view: ListView): Task {
  const task: Task = { ...summary };
  delete task.history;
  delete task.artifacts;
  if (view.historyLength !== 0 && history !== undefined && history !== null) {
    const messages = JSON.parse(history) as NonNullable<Task['history']>;
    task.history = view.historyLength === undefined ? messages : messages.slice(-view.historyLength);
  }
  if (view.includeArtifacts !== false && artifacts !== undefined && artifacts !== null)
    task.artifacts = JSON.parse(artifacts) as NonNullable<Task['artifacts']>;
  return task;
}

/** A stored task's JSON text, read for a list: its cost, and the entry it parses only on demand. */
export interface ListedText {
  cost: number;
  entry(): Task;
}

/** A task's JSON text as a list entry: only the parts the view returns are parsed. */
export function listedText(json: string, view: ListView): ListedText {
  const parts = taskParts(json);
  if (parts === undefined) {
    // Not JSON.stringify's compact form: read whole (never the runtime's own writes).
    const whole = JSON.parse(json) as Task;
    const text = (value: unknown): string | undefined => (value === undefined ? undefined : JSON.stringify(value));
    const sizes = { summaryBytes: json.length, historyBytes: 0, artifactsBytes: 0 };
    return { cost: listCost(sizes, view), entry: () => listEntry(whole, text(whole.history), text(whole.artifacts), view) };
  }
  return {
    cost: listCost(partSizes(json, parts), view),
    entry: () =>
      listEntry(
        JSON.parse(summaryText(json, parts)) as Task,
        view.historyLength === 0 ? undefined : partText(json, parts.history),
        view.includeArtifacts === false ? undefined : partText(json, parts.artifacts),
        view,
      ),
  };
}

/** What a store keeps beside a task for its lists: the summary's JSON text and each part's size. */
export interface StoredSummary extends PartSizes {
  summary: string;
}

/** The summary of a task being saved, from its JSON text (`json` is JSON.stringify(task)). */
export function storedSummary(task: Task, json: string): StoredSummary {
  const parts = taskParts(json);
  if (parts !== undefined) return { summary: summaryText(json, parts), ...partSizes(json, parts) };
  const summary = JSON.stringify({ ...task, history: undefined, artifacts: undefined });
  const size = (value: unknown): number => (value === undefined ? 0 : JSON.stringify(value).length);
  return { summary, summaryBytes: summary.length, historyBytes: size(task.history), artifactsBytes: size(task.artifacts) };
}
