/**
 * What Linux says about a process and the machine, read from /proc. Server CPU per request is
 * the figure that stays honest when the load generator, sharing the cores, is the bottleneck.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';

let clockTicks: number | undefined;

/** Clock ticks per second (`getconf CLK_TCK`), the unit of utime/stime in /proc/PID/stat. */
export function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    let ticks = Number.NaN;
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    } catch {
      // getconf missing: fall through to the value every Linux build has used for decades.
    }
    clockTicks = Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  }
  return clockTicks;
}

/** utime + stime of a process, in microseconds. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Field 2 (comm) is in parentheses and may hold spaces: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After comm, field 3 (state) is index 0, so utime (14) and stime (15) are 11 and 12.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks / clockTicksPerSecond()) * 1e6;
}

/** Resident set size of a process, in bytes (VmRSS of /proc/PID/status). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

export interface MachineInfo {
  node: string;
  cpuModel: string;
  cores: number;
  platform: string;
  clockTicks: number;
}

export function machineInfo(): MachineInfo {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match?.[1]) cpuModel = match[1].trim();
  } catch {
    // Not Linux: os.cpus() already gave the model.
  }
  return {
    node: process.version,
    cpuModel,
    cores: availableParallelism(),
    platform: `${process.platform}-${process.arch}`,
    clockTicks: clockTicksPerSecond(),
  };
}
