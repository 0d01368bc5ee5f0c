// Who kept the host's CPUs busy while a benchmark ran: two readings of /proc (the aggregate
// line of /proc/stat and every /proc/<pid>/stat), and the benchmark's own process tree taken
// out, so that what is left is load a CPU benchmark competes with. Pure: the worker reads the files.
import { parseProcStatCpu } from '../devices/procFiles';
import type { BusyProcess, HostLoadSample } from './runSamples';

/** One process from /proc/<pid>/stat: its parent and the CPU time it has used (user + system, in clock ticks). */
export interface PidCpuTime {
  pid: number;
  ppid: number;
  name: string;
  ticks: number;
}

/**
 * "1234 (python3) R 1200 … utime stime …": the name may hold spaces and parentheses, so the
 * fields are counted from the last ')'; utime and stime are fields 14 and 15.
 */
export function parsePidStat(text: string): PidCpuTime | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text.slice(close + 2).trim().split(/\s+/);
  // rest[0] is field 3 (state), so field k is rest[k - 3].
  const ppid = Number(rest[1]);
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (![pid, ppid, utime, stime].every((v) => Number.isInteger(v) && v >= 0)) return null;
  return { pid, ppid, name: text.slice(open + 1, close), ticks: utime + stime };
}

/** One reading of /proc. */
export interface ProcReading {
  time: number;
  /** Every CPU's ticks, idle included, from /proc/stat's "cpu" line. */
  totalTicks: number;
  processes: ReadonlyMap<number, PidCpuTime>;
}

export function procReading(time: number, procStat: string, pidStats: readonly string[]): ProcReading | null {
  const cpu = parseProcStatCpu(procStat);
  if (!cpu) return null;
  const processes = new Map<number, PidCpuTime>();
  for (const text of pidStats) {
    const p = parsePidStat(text);
    if (p) processes.set(p.pid, p);
  }
  return { time, totalTicks: cpu.total, processes };
}

/** `root` and every process below it (the benchmark's interpreter, its helpers). */
export function processTree(processes: ReadonlyMap<number, PidCpuTime>, root: number): Set<number> {
  const tree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of processes.values()) {
      if (!tree.has(p.pid) && tree.has(p.ppid)) {
        tree.add(p.pid);
        grew = true;
      }
    }
  }
  return tree;
}

/** Processes whose share is below this are not named: they are the background every machine has. */
const NAMED_SHARE = 0.05;

/**
 * The load outside `ownPid`'s tree between two readings, or null when no time passed. A process
 * that started in between counts with all its ticks; one that ended in between is not seen
 * (its ticks are lost, so the share errs low, never high).
 */
export function hostLoadBetween(before: ProcReading, after: ProcReading, ownPid: number, cpus: number): HostLoadSample | null {
  const total = after.totalTicks - before.totalTicks;
  if (total <= 0) return null;
  const own = processTree(after.processes, ownPid);
  const busy: BusyProcess[] = [];
  let others = 0;
  for (const p of after.processes.values()) {
    if (own.has(p.pid)) continue;
    const used = p.ticks - (before.processes.get(p.pid)?.ticks ?? 0);
    if (used <= 0) continue;
    others += used;
    if (used / total >= NAMED_SHARE) busy.push({ pid: p.pid, name: p.name, share: used / total });
  }
  busy.sort((a, b) => b.share - a.share || a.pid - b.pid);
  return { from: before.time, to: after.time, othersShare: Math.min(1, others / total), cpus, busiest: busy.slice(0, 3) };
}
