/**
 * In-memory TaskStore. A stored task is a slot number: its JSON lives off the heap in a
 * TextArena and its state and status time in two number columns, so finished tasks, however many,
 * cost few bytes each and give the garbage collector nothing to walk or move (docs/benchmark.md,
 * "The memory store: packed against plain", measures it against a plain Map: map-store.ts, the
 * reference this store is held equal to).
 * Listing filters read the columns and never parse a task that is not on the page; counts per
 * state and id lists per context (built by the first listing by context) keep `tasks/list` from
 * walking the store for its `totalSize`.
 */
import type { Task, TaskState } from '../a2a/schemas.js';
import { TASK_STATES } from '../../machines/task.machine.js';
import { timeOf, withRoom } from './columns.js';
import { TaskPacker } from './task-packer.js';
import { packTask, unpackTask } from './task-text.js';
import { StringIndex } from './string-index.js';
import { TextArena } from './text-arena.js';
import { PushConfigMap } from './push-config-map.js';
import { PageBudget, listedText } from './list-page.js';
import type { MessageKey, StoredPushConfig, TaskListQuery, TaskPage, TaskStore } from './types.js';

/**
 * Characters of JSON from which a task is kept as its text rather than packed: past this, what a
 * list reads of it should not depend on the size of the parts it leaves out.
 */
const LARGE_TEXT = 64 * 1024;

const stateCode = new Map<TaskState, number>(TASK_STATES.map((s, i) => [s, i]));

/** Tasks in this process, finished ones packed as UTF-8 outside the JS heap; gone at exit. */
export class MemoryTaskStore implements TaskStore {
  readonly description = 'memory';
  readonly keepsTasksInProcess = true;
  /** Per slot, the task's id and context id: its text leaves them out. */
  private readonly idOf: string[] = [];
  private readonly contextOf: string[] = [];
  /** Task id -> its slot in the columns here (string-index.ts says why not a Map). */
  private readonly slots = new StringIndex((slot) => this.idOf[slot] as string);
  /** Per slot, the task's JSON as task-text.ts packs it. */
  private readonly texts = new TextArena();
  private readonly packer = new TaskPacker();
  /** Index into TASK_STATES. */
  private states: Uint8Array<ArrayBuffer> = new Uint8Array(1024);
  /** Status timestamp, ms since the epoch (what `statusTimestampAfter` compares). */
  private times: Float64Array<ArrayBuffer> = new Float64Array(1024);
  /** Task ids in ascending order (UUID v7 are created in order). */
  private readonly order: string[] = [];
  /** Tasks per state (for counts), by index into TASK_STATES. */
  private readonly stateCounts: number[] = TASK_STATES.map(() => 0);
  /**
   * Ids per context, ascending (a task never changes context). Most contexts hold one task, so
   * a lone id is kept as itself, not as an array (an array is a heap object per task). Built
   * from `contextOf` by the first listing by context, then kept up by every new task: until a
   * client lists by context, a write pays no look-up in a map as large as the store.
   */
  private byContext: Map<string, string | string[]> | undefined;
  /** Owner per slot and ids per owner, ascending: written only for tasks created with auth on. */
  private readonly ownerOf: (string | undefined)[] = [];
  private readonly byOwner = new Map<string, string[]>();
  /**
   * Idempotency records, by message id: the task when the message's scope is '' (no task, no
   * context, no auth: most first messages), else `[scope, task, scope, task, …]`. Keyed by the
   * message id as it came, not by scope and id joined: no key string is built and hashed per
   * look-up or write, and none is held per task.
   */
  private readonly messages = new Map<string, string | string[]>();
  private readonly pushConfigs = new PushConfigMap();
  /**
   * Tasks whose JSON text is LARGE_TEXT or longer, by slot, kept as the text itself (their slot in
   * the arena is empty): a list reads such a task's summary out of the text without decoding the
   * rest, where a packed text would have to be unpacked whole first.
   */
  private readonly large = new Map<number, string>();

  async getTask(id: string, owner?: string): Promise<Task | undefined> {
    const slot = this.slots.get(id);
    if (slot < 0 || (owner !== undefined && this.ownerOf[slot] !== owner)) return undefined;
    return this.parse(slot);
  }

  private parse(slot: number): Task {
    return JSON.parse(this.text(slot)) as Task;
  }

  private text(slot: number): string {
    return this.large.get(slot) ?? unpackTask(this.texts.get(slot), this.idOf[slot] as string, this.contextOf[slot] as string);
  }

  async saveTask(task: Task, messageKey?: MessageKey, json?: string, owner?: string): Promise<void> {
    const state = task.status.state;
    const code = stateCode.get(state);
    if (code === undefined) throw new Error(`not a task state: ${String(state)}`);
    if (messageKey) this.rememberMessage(messageKey, task.id);
    const text = json ?? JSON.stringify(task);
    // An id above every stored one (the usual new task: ids are time ordered) is not stored: no
    // look-up in a map as large as the store.
    const newest = this.order[this.order.length - 1];
    const aboveAll = newest === undefined || newest < task.id;
    let slot = aboveAll ? -1 : this.slots.get(task.id);
    if (slot < 0) {
      slot = this.idOf.length;
      this.idOf.push(task.id);
      this.slots.add(task.id, slot);
      this.contextOf.push(task.contextId);
      this.makeRoom(slot);
      insertOrdered(this.order, task.id);
      if (this.byContext) addToContext(this.byContext, task.contextId, task.id);
      if (owner !== undefined) {
        // A column, not a map as large as the store: under auth every task has an owner, so
        // this is an append. Slots before it that have none are filled in first, so that the
        // array never has a gap (V8 would keep a sparse one as a dictionary).
        while (this.ownerOf.length < slot) this.ownerOf.push(undefined);
        this.ownerOf[slot] = owner;
        const owned = this.byOwner.get(owner);
        if (owned) insertOrdered(owned, task.id);
        else this.byOwner.set(owner, [task.id]);
      }
    } else {
      (this.stateCounts[this.states[slot] as number] as number)--;
    }
    // A task never changes context: the slot's context id is the one it was created with.
    const contextId = this.contextOf[slot] as string;
    if (text.length >= LARGE_TEXT) {
      this.texts.clear(slot);
      this.large.set(slot, text);
    } else {
      if (this.large.size > 0) this.large.delete(slot);
      this.pack(slot, text, task.id, contextId);
    }
    (this.stateCounts[code] as number)++;
    this.states[slot] = code;
    this.times[slot] = timeOf(task.status.timestamp);
  }

  private pack(slot: number, text: string, taskId: string, contextId: string): void {
    // The runtime's own task shapes take the fast packer; it leaves any other text to the reference.
    const chunk = this.texts.beginWrite(slot, text.length);
    const packed = this.packer.pack(text, taskId, contextId, chunk, this.texts.freeOffset);
    if (packed >= 0) this.texts.commit(slot, packed);
    else this.texts.set(slot, packTask(text, taskId, contextId));
  }

  private makeRoom(slot: number): void {
    this.states = withRoom(this.states, slot, (size) => new Uint8Array(size));
    this.times = withRoom(this.times, slot, (size) => new Float64Array(size));
  }

  private idsOfContext(contextId: string): readonly string[] {
    this.byContext ??= this.indexContexts();
    const ids = this.byContext.get(contextId);
    return ids === undefined ? [] : typeof ids === 'string' ? [ids] : ids;
  }

  /** `byContext` from the stored tasks: one walk of the slots, in the order they were written. */
  private indexContexts(): Map<string, string | string[]> {
    const byContext = new Map<string, string | string[]>();
    for (let slot = 0; slot < this.idOf.length; slot++) addToContext(byContext, this.contextOf[slot] as string, this.idOf[slot] as string);
    return byContext;
  }

  /** One page of tasks, newest first. */
  async listTasks(query: TaskListQuery): Promise<TaskPage> {
    const after = query.statusTimestampAfter === undefined ? undefined : Date.parse(query.statusTimestampAfter);
    const wanted = query.status === undefined ? undefined : stateCode.get(query.status);
    const owner = query.owner;
    const matches = (slot: number): boolean =>
      (query.status === undefined || this.states[slot] === wanted) &&
      (after === undefined || (this.times[slot] as number) >= after) &&
      (owner === undefined || this.ownerOf[slot] === owner);
    // Walk the context's ids when filtering by context, else the owner's, else all; all ascending.
    const source =
      query.contextId !== undefined
        ? this.idsOfContext(query.contextId)
        : owner !== undefined
          ? (this.byOwner.get(owner) ?? [])
          : this.order;

    const tasks: Task[] = [];
    const budget = new PageBudget(query);
    let lastId: string | undefined;
    const start = query.afterId === undefined ? source.length - 1 : lowerBound(source, query.afterId) - 1;
    for (let i = start; i >= 0; i--) {
      const slot = this.slots.get(source[i] as string);
      if (!matches(slot)) continue;
      if (budget.full) {
        lastId = tasks[tasks.length - 1]?.id;
        break;
      }
      // A packed text is unpacked whole, but it is short; a large one is read in parts (list-page.ts).
      const listed = listedText(this.text(slot), query);
      if (!budget.take(listed.cost)) {
        lastId = tasks[tasks.length - 1]?.id;
        break;
      }
      tasks.push(listed.entry());
    }
    return { tasks, totalSize: this.total(query, source, matches), ...(lastId !== undefined ? { lastId } : {}) };
  }

  /** Matches before paging, from the indexes when they answer it, else by one walk. */
  private total(query: TaskListQuery, source: readonly string[], matches: (slot: number) => boolean): number {
    const unnarrowed = query.status === undefined && query.statusTimestampAfter === undefined;
    // `source` is a context's ids, else an owner's, else all: with no other filter, all of it matches.
    if (unnarrowed && (query.contextId === undefined || query.owner === undefined)) return source.length;
    const everyTask = query.contextId === undefined && query.owner === undefined;
    if (everyTask && query.status !== undefined && query.statusTimestampAfter === undefined)
      return this.stateCounts[stateCode.get(query.status) as number] ?? 0;
    if (everyTask) {
      // All tasks: the slots are the columns' indexes, no id lookups needed.
      let n = 0;
      for (let slot = 0; slot < this.idOf.length; slot++) if (matches(slot)) n++;
      return n;
    }
    let n = 0;
    for (const id of source) if (matches(this.slots.get(id))) n++;
    return n;
  }

  /** Start-up recovery only: one walk is fine. */
  async tasksInStates(states: readonly TaskState[]): Promise<Task[]> {
    const wanted = new Set(states.map((s) => stateCode.get(s)));
    const out: Task[] = [];
    for (let slot = 0; slot < this.idOf.length; slot++) if (wanted.has(this.states[slot])) out.push(this.parse(slot));
    return out;
  }

  async findTaskIdByMessage(scope: string, messageId: string): Promise<string | undefined> {
    return recordedTask(this.messages.get(messageId), scope);
  }

  private rememberMessage({ scope, messageId }: MessageKey, taskId: string): void {
    const known = this.messages.get(messageId);
    // The first task a message produced stays its answer (idempotency).
    if (recordedTask(known, scope) !== undefined) return;
    if (known === undefined) this.messages.set(messageId, scope === '' ? taskId : [scope, taskId]);
    // A lone task is the '' scope's, and this scope is another.
    else if (typeof known === 'string') this.messages.set(messageId, ['', known, scope, taskId]);
    else known.push(scope, taskId);
  }

  async savePushConfig(taskId: string, config: StoredPushConfig): Promise<void> {
    this.pushConfigs.save(taskId, config);
  }

  /** The task's push configs, in creation order. */
  async listPushConfigs(taskId: string): Promise<StoredPushConfig[]> {
    return this.pushConfigs.list(taskId);
  }

  /** Removes one push config; false when there was none. */
  async deletePushConfig(taskId: string, configId: string): Promise<boolean> {
    return this.pushConfigs.delete(taskId, configId);
  }

  /** Nothing to release. */
  async close(): Promise<void> {}
}

/** The task a message id's records hold for `scope` (see `messages`). */
function recordedTask(known: string | string[] | undefined, scope: string): string | undefined {
  if (known === undefined || typeof known === 'string') return scope === '' ? known : undefined;
  for (let i = 0; i < known.length; i += 2) if (known[i] === scope) return known[i + 1];
  return undefined;
}

/** Adds a new task's id to its context's ids (see `byContext`). */
function addToContext(byContext: Map<string, string | string[]>, contextId: string, id: string): void {
  const inContext = byContext.get(contextId);
  if (inContext === undefined) byContext.set(contextId, id);
  else if (typeof inContext === 'string') byContext.set(contextId, inContext < id ? [inContext, id] : [id, inContext]);
  else insertOrdered(inContext, id);
}

/** How far back from the end `insertOrdered` looks before it searches the whole array. */
const NEAR_END = 8;

/**
 * Inserts an id into an ascending array. Ids are time ordered and a task is written when its
 * turn ends, so a new id lands at the end or a few places before it (tasks that started earlier
 * and ended later): those places are looked at first, since each step of a search over the whole
 * array reads an id that is most likely out of the cache.
 */
function insertOrdered(ids: string[], id: string): void {
  let at = ids.length;
  const stop = Math.max(0, at - NEAR_END);
  while (at > stop && (ids[at - 1] as string) > id) at--;
  if (at === stop && at > 0 && (ids[at - 1] as string) > id) at = lowerBound(ids, id, at);
  if (at === ids.length) ids.push(id);
  else ids.splice(at, 0, id);
}

/** First index below `hi` whose id is >= `id` (`hi` if none). */
function lowerBound(ids: readonly string[], id: string, hi = ids.length): number {
  let lo = 0;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ids[mid] as string) < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
