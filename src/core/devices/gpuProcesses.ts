// Who uses the GPU: the tools' per-process rows joined with what /proc says about each pid (its
// user and command line), and whether it was started from this editor window (a descendant of
// one of the window's processes: the extension host, its terminals' shells). In a container the
// tool may list processes of other PID namespaces: their pids are not in our /proc, so they are
// kept, marked not visible, with no user or command line rather than someone else's.
import type { GpuApp } from './gpuApps';
import { textOrNull } from './fields';
import { formatCommandLine } from './procFiles';
import type { Accelerator } from './report';

/** One process as /proc shows it; the worker reads these for each pid and its ancestors. */
export interface ProcEntry {
  pid: number;
  ppid: number | null;
  uid: number | null;
  /** The kernel's short name (comm). */
  name: string;
  args: string[];
}

export interface GpuProcess {
  pid: number;
  /** The accelerator ("cuda:0", "amd:1"), or null when the tool does not say which GPU. */
  deviceId: string | null;
  /** The MIG instance's profile ("3g.20gb") when the tool named a MIG device. */
  mig: string | null;
  usedBytes: number | null;
  /** The executable's short name. */
  name: string;
  user: string | null;
  commandLine: string | null;
  /** Started from this window: the extension host, a terminal of it, or a kernel it started. */
  fromThisWindow: boolean;
  /** false: the pid is not in this /proc (another container or PID namespace). */
  visible: boolean;
}

export interface ProcessFacts {
  procs: ReadonlyMap<number, ProcEntry>;
  users: ReadonlyMap<number, string>;
  /** The window's own processes; anything below one of them is the window's. */
  windowPids: ReadonlySet<number>;
  accelerators: readonly Accelerator[];
}

/** An ancestry longer than this is a loop or a lie: stop there. */
const MAX_ANCESTRY = 128;

/** True when pid is one of the window's processes or below one of them, following PPid through `procs`. */
export function isFromWindow(pid: number, procs: ReadonlyMap<number, ProcEntry>, windowPids: ReadonlySet<number>): boolean {
  let current: number | null = pid;
  for (let step = 0; current !== null && current > 0 && step < MAX_ANCESTRY; step++) {
    if (windowPids.has(current)) return true;
    current = procs.get(current)?.ppid ?? null;
  }
  return false;
}

/** The accelerator a tool's row names: by GPU UUID, by a MIG instance's UUID, or by index among that vendor's GPUs. */
export function deviceOf(app: GpuApp, accelerators: readonly Accelerator[], vendor: Accelerator['vendor']): { deviceId: string | null; mig: string | null } {
  const ref = app.gpu;
  if (ref === null) return { deviceId: null, mig: null };
  if ('uuid' in ref) {
    const whole = accelerators.find((a) => a.uuid === ref.uuid);
    if (whole) return { deviceId: whole.id, mig: null };
    for (const a of accelerators) {
      const instance = a.mig.find((m) => m.uuid === ref.uuid);
      if (instance) return { deviceId: a.id, mig: instance.profile };
    }
    return { deviceId: null, mig: null };
  }
  const ofVendor = accelerators.filter((a) => a.vendor === vendor);
  return { deviceId: ofVendor[ref.index]?.id ?? `${vendor}:${ref.index}`, mig: null };
}

/** The tools' rows with user, command line and window marks; most memory first (unknown last). */
export function describeGpuProcesses(apps: readonly GpuApp[], vendor: Accelerator['vendor'], facts: ProcessFacts): GpuProcess[] {
  const processes = apps.map((app): GpuProcess => {
    const entry = facts.procs.get(app.pid);
    const { deviceId, mig } = deviceOf(app, facts.accelerators, vendor);
    const toolName = textOrNull(app.processName)?.split('/').pop();
    return {
      pid: app.pid,
      deviceId,
      mig,
      usedBytes: app.usedBytes,
      name: entry?.name || toolName || `pid ${app.pid}`,
      user: entry?.uid === null || entry?.uid === undefined ? null : facts.users.get(entry.uid) ?? String(entry.uid),
      commandLine: entry && entry.args.length > 0 ? formatCommandLine(entry.args) : null,
      fromThisWindow: entry !== undefined && isFromWindow(app.pid, facts.procs, facts.windowPids),
      visible: entry !== undefined,
    };
  });
  return processes.sort((a, b) => (b.usedBytes ?? -1) - (a.usedBytes ?? -1) || a.pid - b.pid);
}
