// Who uses the GPUs, every few seconds while the status bar is monitored: one short
// `nvidia-smi --query-compute-apps` (and `amd-smi process`, else `rocm-smi --showpids`, for
// AMD), joined with /proc. A per-poll process is acceptable here, unlike for memory: the poll is
// slow (PROCESS_POLL_MIN_MS) and only runs for vendors the last detect found.
import { AMD_SMI_PROCESS_ARGS, amdSmiGpuApps, nvidiaGpuApps, ROCM_SMI_PIDS_ARGS, rocmSmiGpuApps, type GpuApp } from '../../core/devices/gpuApps';
import { describeGpuProcesses, type GpuProcess } from '../../core/devices/gpuProcesses';
import type { Accelerator } from '../../core/devices/report';
import { isNotInstalled, succeeded } from '../../core/devices/toolRun';
import { NVIDIA_COMPUTE_APPS_ARGS } from '../../core/devices/nvidiaSmi';
import { runTool } from '../../node/processRunner';
import type { LogFn } from '../detect/probes/probeContext';
import { PASSWD_PATH, PROC_ROOT, readProcTree, readUsers } from './procReader';

/** Never more often than this, whatever the memory interval. */
export const PROCESS_POLL_MIN_MS = 5_000;
const TOOL_TIMEOUT_MS = 10_000;

export interface GpuProcessPollerOptions {
  env: NodeJS.ProcessEnv;
  log: LogFn;
  onProcesses(processes: GpuProcess[]): void;
  procRoot?: string;
  passwdPath?: string;
}

export class GpuProcessPoller {
  private accelerators: readonly Accelerator[] = [];
  private windowPids = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  /** Tools found missing: not asked again until the next detect. */
  private readonly missing = new Set<string>();

  constructor(private readonly options: GpuProcessPollerOptions) {}

  setAccelerators(accelerators: readonly Accelerator[]): void {
    this.accelerators = accelerators;
    this.missing.clear();
  }

  setWindowPids(pids: readonly number[]): void {
    this.windowPids = new Set(pids.filter((pid) => Number.isInteger(pid) && pid > 0));
  }

  start(intervalMs: number): void {
    this.stop();
    this.timer = setInterval(() => void this.tick(), Math.max(PROCESS_POLL_MIN_MS, intervalMs));
    void this.tick();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One poll: every vendor's processes, joined with /proc. */
  async poll(): Promise<GpuProcess[]> {
    const vendors = new Set(this.accelerators.map((a) => a.vendor));
    const rows: Array<{ vendor: Accelerator['vendor']; apps: GpuApp[] }> = [];
    if (vendors.has('nvidia')) {
      const nvidia = await this.ask('nvidia-smi', NVIDIA_COMPUTE_APPS_ARGS, nvidiaGpuApps);
      if (nvidia) rows.push({ vendor: 'nvidia', apps: nvidia });
    }
    if (vendors.has('amd')) {
      const amd = (await this.ask('amd-smi', AMD_SMI_PROCESS_ARGS, amdSmiGpuApps)) ?? (await this.ask('rocm-smi', ROCM_SMI_PIDS_ARGS, rocmSmiGpuApps));
      if (amd) rows.push({ vendor: 'amd', apps: amd });
    }
    const pids = rows.flatMap((r) => r.apps.map((a) => a.pid));
    if (pids.length === 0) return [];
    const procRoot = this.options.procRoot ?? PROC_ROOT;
    const [procs, users] = await Promise.all([readProcTree(procRoot, pids), readUsers(this.options.passwdPath ?? PASSWD_PATH)]);
    const facts = { procs, users, windowPids: this.windowPids, accelerators: this.accelerators };
    return rows.flatMap((r) => describeGpuProcesses(r.apps, r.vendor, facts))
      .sort((a, b) => (b.usedBytes ?? -1) - (a.usedBytes ?? -1) || a.pid - b.pid);
  }

  private async tick(): Promise<void> {
    if (this.polling || this.accelerators.length === 0) return;
    this.polling = true;
    try {
      const processes = await this.poll();
      if (this.timer !== undefined) this.options.onProcesses(processes);
    } catch (err) {
      this.options.log('warn', `GPU process list failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.polling = false;
    }
  }

  /** The tool's rows, or null when it is missing or failed (then the next tool may answer). */
  private async ask(tool: string, args: readonly string[], parse: (stdout: string) => GpuApp[]): Promise<GpuApp[] | null> {
    if (this.missing.has(tool)) return null;
    const run = await runTool(tool, args, { timeoutMs: TOOL_TIMEOUT_MS, env: this.options.env });
    if (isNotInstalled(run)) this.missing.add(tool);
    if (!succeeded(run)) {
      if (!isNotInstalled(run)) this.options.log('debug', `${tool} ${args.join(' ')} failed (exit ${run.exitCode ?? run.errorCode}); no process list from it`);
      return null;
    }
    return parse(run.stdout);
  }
}
