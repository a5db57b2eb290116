/**
 * The memory store's write of a finished task, alone: the idempotency look-up and `saveTask` of
 * W1-shaped echo tasks (a fresh UUID message id, the JSON handed over, as the runtime's final
 * write does), and its parts (packing, the arena write) for A/B of one change. CPU per task from process.cpuUsage over many tasks, five
 * rounds, median printed; run it twice, or under callgrind for instruction counts.
 *
 * `node --import tsx bench/micro/task-store-write.ts [tasks per round] [part]`, part one of
 * `save` (default), `packer` (task-packer.ts, the store's path), `pack` (the reference packer),
 * `arena`, `none` (builds the inputs only: under callgrind, subtract its count from a part's).
 */
import { newId } from '../../src/a2a/ids.js';
import type { Task } from '../../src/a2a/schemas.js';
import { MemoryTaskStore } from '../../src/store/memory.js';
import { TaskPacker } from '../../src/store/task-packer.js';
import { packTask } from '../../src/store/task-text.js';
import { TextArena } from '../../src/store/text-arena.js';

const perRound = Number(process.argv[2] ?? '50000');
const part = process.argv[3] ?? 'save';

/** A finished W1 echo task, as the runtime builds it. */
function echoTask(now: number): Task {
  const id = newId();
  const contextId = newId();
  const at = (ms: number) => new Date(ms).toISOString();
  const text = 'hello from the bench';
  return {
    kind: 'task',
    id,
    contextId,
    status: { state: 'completed', timestamp: at(now + 2) },
    history: [{ kind: 'message', role: 'user', parts: [{ kind: 'text', text }], messageId: newId(), taskId: id, contextId }],
    metadata: {
      stateTransitions: [
        { state: 'submitted', timestamp: at(now) },
        { state: 'working', timestamp: at(now + 1) },
        { state: 'completed', timestamp: at(now + 2) },
      ],
      _eventSeq: 3,
    },
    artifacts: [{ artifactId: 'echo', parts: [{ kind: 'text', text }], name: 'echo' }],
  } as Task;
}

const store = new MemoryTaskStore();
const arena = new TextArena();
const packer = new TaskPacker();
const packed = Buffer.alloc(4096);
let slot = 0;
let sink = 0;

/** One round: builds the inputs first (not measured), then times `perRound` writes. */
async function round(): Promise<number> {
  const now = Date.now();
  const tasks = Array.from({ length: perRound }, () => echoTask(now));
  const jsons = tasks.map((t) => JSON.stringify(t));
  const start = process.cpuUsage();
  for (let i = 0; i < perRound; i++) {
    const task = tasks[i] as Task;
    const json = jsons[i] as string;
    if (part === 'none') sink += json.length;
    else if (part === 'packer') sink += packer.pack(json, task.id, task.contextId, packed, 0);
    else if (part === 'pack') sink += packTask(json, task.id, task.contextId).length;
    else if (part === 'arena') arena.set(slot++, json);
    else {
      // As the runtime does for a new message: the idempotency look-up, then the final write.
      const messageId = (task.history?.[0]?.messageId ?? '') as string;
      if ((await store.findTaskIdByMessage('', messageId)) !== undefined) throw new Error('message seen twice');
      await store.saveTask(task, { scope: '', messageId }, json);
    }
  }
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / perRound;
}

await round(); // warm-up: JIT
const rounds: number[] = [];
for (let r = 0; r < 5; r++) rounds.push(await round());
rounds.sort((a, b) => a - b);
process.stdout.write(
  `${part}: ${(rounds[2] as number).toFixed(0)} ns/task (median of 5 rounds of ${perRound}; lowest ${(rounds[0] as number).toFixed(0)})${sink < 0 ? '!' : ''}\n`,
);
