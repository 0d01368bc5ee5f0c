// Watches the machine for the length of one benchmark, for its diagnosis (core/bench/duringRun.ts):
// - each benchmarked NVIDIA GPU's clocks, temperature, power and throttle reasons, from one
//   `nvidia-smi --query-gpu=… -lms` started for the run and stopped with it (a process for the
//   run, not one per poll; the status bar's memory stream is left alone, its fields and fixtures too);
// - the host's CPU time outside this process's tree, from /proc (Linux), every HOST_INTERVAL_MS;
// - other processes holding a benchmarked GPU (`--query-compute-apps`), at the start and every
//   GPU_PROCESS_INTERVAL_MS;
// - when each result was timed, from the engines' progress.
// The benchmark runs in this process (CLI) or below it (the worker's bench.py), so "this
// process's tree" is the benchmark itself. Nothing here throws: a tool that is missing or fails
// just leaves its part of the samples empty.
import { promises as fsp } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { GPU_CLOCK_FIELD_SETS, gpuClockArgs, isUnknownFieldError, parseGpuClockLine } from '../../core/bench/gpuClockSamples';
import { hostLoadBetween, procReading, processTree, type ProcReading } from '../../core/bench/hostLoad';
import type { BenchProgress } from '../../core/bench/model';
import { sameResult, type GpuClockSample, type HostLoadSample, type OtherGpuProcess, type ResultKey, type ResultWindow, type RunSamples } from '../../core/bench/runSamples';
import { nvidiaGpuApps } from '../../core/devices/gpuApps';
import { NVIDIA_COMPUTE_APPS_ARGS } from '../../core/devices/nvidiaSmi';
import type { Accelerator, DeviceReport } from '../../core/devices/report';
import { textOrNull } from '../../core/devices/fields';
import { succeeded } from '../../core/devices/toolRun';
import { OWNED_CHILDREN, runTool, startProcess, type RunningProcess } from '../../node/processRunner';

/** Short enough for a result of a second to get several samples; nvidia-smi's own cost stays small. */
export const GPU_CLOCK_INTERVAL_MS = 200;
export const HOST_INTERVAL_MS = 500;
export const GPU_PROCESS_INTERVAL_MS = 5_000;
const TOOL_TIMEOUT_MS = 10_000;

export interface RunWatcherOptions {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** The device report: nvidia-smi's rows are named by their UUID's accelerator id. */
  report: Pick<DeviceReport, 'accelerators' | 'torch'>;
  /** The devices this run benchmarks ("cpu", "cuda:0"). */
  devices: readonly string[];
  /** Tests point this at a fake tree. */
  procRoot?: string;
  ownPid?: number;
}

export class RunWatcher {
  private readonly gpu: GpuClockSample[] = [];
  private readonly host: HostLoadSample[] = [];
  private readonly gpuProcesses = new Map<string, OtherGpuProcess>();
  private readonly windows: ResultWindow[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private clocks: RunningProcess | undefined;
  private lastReading: ProcReading | null = null;
  private reading: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly procRoot: string;
  private readonly ownPid: number;
  private readonly nvidiaDevices: ReadonlyMap<string, string>;

  constructor(private readonly options: RunWatcherOptions) {
    this.procRoot = options.procRoot ?? '/proc';
    this.ownPid = options.ownPid ?? process.pid;
    this.nvidiaDevices = benchmarkedNvidiaGpus(options.report, options.devices);
  }

  start(): void {
    if (this.nvidiaDevices.size > 0 && this.options.platform !== 'darwin') {
      this.startClocks(0);
      void this.pollGpuProcesses();
      this.timers.push(setInterval(() => void this.pollGpuProcesses(), GPU_PROCESS_INTERVAL_MS));
    }
    if (this.options.platform === 'linux') {
      this.readHost();
      this.timers.push(setInterval(() => this.readHost(), HOST_INTERVAL_MS));
    }
  }

  /** Progress of the engines: a result's window runs from its first progress past preparing to its check. */
  noteProgress(p: BenchProgress & { threads?: number }, now = Date.now()): void {
    const key: ResultKey = { engine: p.engine, device: p.device, threads: p.threads, dtype: p.dtype, size: p.size };
    let window = this.windows.find((w) => sameResult(w, key));
    if (!window) {
      if (p.phase === 'preparing') return;
      window = { ...key, from: now, to: now };
      this.windows.push(window);
    }
    window.to = Math.max(window.to, now);
  }

  /** Stops every source, with one last host reading for the end of the run. */
  async stop(): Promise<RunSamples> {
    if (!this.stopped) {
      this.stopped = true;
      for (const timer of this.timers) clearInterval(timer);
      this.clocks?.abandon();
      if (this.options.platform === 'linux') this.readHost();
    }
    await this.reading;
    return { gpu: [...this.gpu], host: [...this.host], gpuProcesses: [...this.gpuProcesses.values()], windows: this.windows.map((w) => ({ ...w })) };
  }

  private startClocks(fieldSet: number): void {
    if (this.stopped || fieldSet >= GPU_CLOCK_FIELD_SETS.length) return;
    let rows = 0;
    let said = '';
    const clocks = startProcess('nvidia-smi', gpuClockArgs(GPU_CLOCK_FIELD_SETS[fieldSet], GPU_CLOCK_INTERVAL_MS), {
      env: this.options.env,
      // Killed with bench.py when the worker or CLI exits in the middle of a run.
      track: OWNED_CHILDREN,
      onStdoutLine: (line) => {
        const row = parseGpuClockLine(line);
        const device = row?.uuid ? this.nvidiaDevices.get(row.uuid.toLowerCase()) : undefined;
        if (!row || !device) {
          if (rows === 0 && said.length < 4096) said += `${line}\n`;
          return;
        }
        rows++;
        const { index: _index, uuid: _uuid, ...reading } = row;
        this.gpu.push({ time: Date.now(), device, ...reading });
      },
    });
    this.clocks = clocks;
    // A driver that does not know a field says so and exits: the next field set is tried.
    void clocks.ended.then(() => {
      if (this.clocks === clocks && rows === 0 && isUnknownFieldError(said + clocks.stderrTail)) this.startClocks(fieldSet + 1);
    });
  }

  private readHost(): void {
    // One reading at a time; a slow /proc must not pile readings up.
    this.reading = this.reading.then(async () => {
      const reading = await readProc(this.procRoot);
      if (!reading) return;
      const before = this.lastReading;
      this.lastReading = reading;
      const sample = before ? hostLoadBetween(before, reading, this.ownPid, cpuCount()) : null;
      if (sample) this.host.push(sample);
    }).catch(() => undefined);
  }

  private async pollGpuProcesses(): Promise<void> {
    const run = await runTool('nvidia-smi', NVIDIA_COMPUTE_APPS_ARGS, { timeoutMs: TOOL_TIMEOUT_MS, env: this.options.env }).catch(() => null);
    if (!run || !succeeded(run) || this.stopped) return;
    const own = this.lastReading ? processTree(this.lastReading.processes, this.ownPid) : new Set([this.ownPid]);
    for (const app of nvidiaGpuApps(run.stdout)) {
      const uuid = app.gpu && 'uuid' in app.gpu ? app.gpu.uuid.toLowerCase() : null;
      const device = uuid ? this.nvidiaDevices.get(uuid) : undefined;
      if (!device || own.has(app.pid)) continue;
      this.gpuProcesses.set(`${device}|${app.pid}`, { device, pid: app.pid, name: processNameOf(app.processName), usedBytes: app.usedBytes });
    }
  }
}

/**
 * UUID → device, for the benchmarked NVIDIA GPUs only. Detect names a GPU "cuda:N" when torch's
 * UUID or bus id matched it; a torch that reports neither (older builds) leaves "nvidia:0", and
 * then only the unambiguous case is paired: one NVIDIA GPU and one CUDA device.
 */
export function benchmarkedNvidiaGpus(report: Pick<DeviceReport, 'accelerators' | 'torch'>, devices: readonly string[]): Map<string, string> {
  const nvidia = report.accelerators.filter((a): a is Accelerator & { uuid: string } => a.vendor === 'nvidia' && a.uuid !== null);
  const gpus = new Map(nvidia.filter((a) => devices.includes(a.id)).map((a) => [a.uuid.toLowerCase(), a.id]));
  const torchCuda = !report.torch || 'error' in report.torch ? 0 : report.torch.cuda.deviceCount;
  if (gpus.size === 0 && nvidia.length === 1 && torchCuda === 1 && devices.includes('cuda:0')) gpus.set(nvidia[0].uuid.toLowerCase(), 'cuda:0');
  return gpus;
}

/** nvidia-smi gives the executable's path, or [N/A] where it cannot see the process (another container). */
function processNameOf(reported: string): string {
  const name = textOrNull(reported);
  return name === null ? 'a process it cannot name' : path.basename(name);
}

function cpuCount(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

async function readText(file: string): Promise<string | null> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch {
    return null;
  }
}

/** /proc/stat and every /proc/<pid>/stat; a process that ends while it is read is simply absent. */
async function readProc(procRoot: string): Promise<ProcReading | null> {
  const stat = await readText(path.join(procRoot, 'stat'));
  if (stat === null) return null;
  const entries = await fsp.readdir(procRoot).catch(() => [] as string[]);
  const pidStats = await Promise.all(entries.filter((e) => /^\d+$/.test(e)).map((e) => readText(path.join(procRoot, e, 'stat'))));
  return procReading(Date.now(), stat, pidStats.filter((t): t is string => t !== null));
}
