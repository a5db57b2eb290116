/**
 * The floor the design sets under every task: the XState actor of machines/task.machine.ts
 * taken through one bench echo task's lifecycle (create, start, START, ARTIFACT, COMPLETE,
 * stop) with the runtime's actions as no-ops, and nothing else: no HTTP, no store, no events.
 * Every task of ours pays at least this, whatever the rest of the server costs.
 *
 * `task-actor.js <tasks> <maxSeconds> [supervised|root]`: the actor as the server makes it, a child
 * of one long-lived supervisor (src/runtime/task-supervisor.ts, the default), or as a root actor
 * with an actor system of its own (what the server did before). Then a warm-up of a fifth of the tasks, then the measured
 * tasks in five rounds (stopping early at maxSeconds); prints one JSON line with the median
 * and the lowest round, and exits. This machine is shared and a single round can read half as
 * fast again as the next; the median is the figure, the lowest round the floor at its best.
 * Forked by bench/lib/actor-floor.ts from the same tsc build our server runs.
 */
import { createActor } from 'xstate';
import { defineRuntimeTaskMachine } from '../../src/runtime/live-task.js';
import { TaskSupervisor } from '../../src/runtime/task-supervisor.js';
import { applyPretenuring } from '../../src/heap-tuning.js';

const tasks = Number(process.argv[2] ?? '20000');
const maxMs = Number(process.argv[3] ?? '10') * 1000;
const variant = process.argv[4] ?? 'supervised';
if (!Number.isInteger(tasks) || tasks <= 0 || !(maxMs > 0) || (variant !== 'supervised' && variant !== 'root')) {
  process.stderr.write('usage: task-actor <tasks> <maxSeconds> [supervised|root]\n');
  process.exit(2);
}

// As createServer does (its default `pretenuring: 'off'`), so this is what a served task pays;
// BENCH_PRETENURING=v8 measures with V8's own pretenuring.
applyPretenuring(process.env.BENCH_PRETENURING === 'v8' ? 'v8' : 'off');

const machine = defineRuntimeTaskMachine().provide({
  actions: { stateEntered: () => {}, statusUpdated: () => {}, artifactAdded: () => {}, startAgentTurn: () => {}, abortAgent: () => {} },
});

const supervisor = new TaskSupervisor();

/** One echo task's actor, start to end; returns its final state so the loop cannot be skipped. */
function lifecycle(taskId: string): unknown {
  const input = { taskId };
  const actor = variant === 'root' ? createActor(machine, { input }) : supervisor.spawn(machine, { input });
  actor.start();
  actor.send({ type: 'START' });
  actor.send({ type: 'ARTIFACT' });
  actor.send({ type: 'COMPLETE' });
  const value = actor.getSnapshot().value;
  if (variant === 'root') actor.stop();
  else supervisor.stop(actor);
  return value;
}

function run(count: number, deadline: number): number {
  let done = 0;
  while (done < count && (done % 256 !== 0 || performance.now() < deadline)) {
    if (lifecycle(`t${done}`) !== 'completed') throw new Error('the task machine did not reach completed');
    done++;
  }
  return done;
}

const ROUNDS = 5;
const perRound = Math.ceil(tasks / ROUNDS);
run(perRound, performance.now() + maxMs / (ROUNDS + 1));
const deadline = performance.now() + maxMs;
let measured = 0;
const rounds: number[] = [];
while (rounds.length < ROUNDS && performance.now() < deadline) {
  const cpu = process.cpuUsage();
  const done = run(perRound, deadline);
  const used = process.cpuUsage(cpu);
  measured += done;
  rounds.push((used.user + used.system) / done);
}
rounds.sort((a, b) => a - b);
const median = rounds[Math.floor(rounds.length / 2)] ?? Number.NaN;
process.stdout.write(
  `${JSON.stringify({ variant, tasks: measured, rounds: rounds.length, cpuMicrosPerTask: median, lowestCpuMicrosPerTask: rounds[0] })}\n`,
);
