/**
 * The task actor floor (bench/micro/task-actor.ts), measured in a process of its own from the
 * same tsc build as our server, after every server has stopped. The note under the table sets
 * it beside our W1 and the peer's: it is the part of a task that the design (an XState actor
 * per task) fixes, so the report says how much of the aim is left for everything else.
 */
import type { ServerBuild } from './build.js';
import { runBuiltMicro } from './micro-process.js';

export interface ActorFloor {
  /** Lifecycles measured (fewer than asked if the time cap came first). */
  tasks: number;
  /** Rounds they were measured in. */
  rounds: number;
  /** CPU (user + system) per lifecycle, microseconds: the median round. */
  cpuMicrosPerTask: number;
  /** The same, in the lowest round. */
  lowestCpuMicrosPerTask: number;
}

const SOURCE = 'bench/micro/task-actor.ts';
/** The child stops measuring by itself at its cap; this only guards against a hung process. */
const KILL_AFTER_MS = 60_000;

export async function measureActorFloor(build: ServerBuild, tasks: number, maxSeconds: number): Promise<ActorFloor> {
  const out = await runBuiltMicro(build, SOURCE, [String(tasks), String(maxSeconds)], KILL_AFTER_MS);
  const { tasks: measured, rounds, cpuMicrosPerTask: median, lowestCpuMicrosPerTask: lowest } = (out ?? {}) as Partial<ActorFloor>;
  const positive = (n: unknown): n is number => typeof n === 'number' && n > 0;
  if (!(positive(measured) && positive(rounds) && positive(median) && positive(lowest)))
    throw new Error(`task actor floor: unreadable output ${JSON.stringify(out)}`);
  const round1 = (n: number) => Math.round(n * 10) / 10;
  return { tasks: measured, rounds, cpuMicrosPerTask: round1(median), lowestCpuMicrosPerTask: round1(lowest) };
}

/**
 * The note: the floor, its share of our W1 CPU per task, and (with the peer and the ceiling in
 * the same run) what a third of the peer's CPU per task leaves once the floor and the bare HTTP
 * round trip are paid.
 */
export function actorFloorNote(floor: ActorFloor, w1: { ours?: number; peer?: number; ceiling?: number }): string {
  const us = (n: number) => `${n.toFixed(1)} µs`;
  const parts = [
    `task actor floor: ${us(floor.cpuMicrosPerTask)} CPU per task for the XState actor alone (machines/task.machine.ts: create, start, ` +
      `START, ARTIFACT, COMPLETE, stop; median of ${floor.rounds} rounds, lowest ${us(floor.lowestCpuMicrosPerTask)}; ` +
      `${floor.tasks} tasks in a process of its own, no I/O)`,
  ];
  if (w1.ours !== undefined) parts.push(`${Math.round((100 * floor.cpuMicrosPerTask) / w1.ours)}% of ours mem W1 (${us(w1.ours)})`);
  if (w1.peer !== undefined && w1.ceiling !== undefined) {
    const third = w1.peer / 3;
    parts.push(
      `a third of the peer's W1 CPU (${us(third)}) less the floor and the C1 ceiling (${us(w1.ceiling)}) leaves ` +
        `${us(third - floor.cpuMicrosPerTask - w1.ceiling)} for the rest of a task`,
    );
  }
  return parts.join('; ');
}
