// Live memory for the status bar: NVIDIA from one streaming nvidia-smi, AMD from sysfs
// (file reads, no process), and host memory from the os module, all at one interval.
import * as os from 'os';
import { parseSysfsDrmCard } from '../../core/devices/amd';
import type { MemorySampleRow } from '../../core/devices/nvidiaMonitor';
import type { GpuProcess } from '../../core/devices/gpuProcesses';
import { cpuUtilizationPercent, parseProcStatCpu, type CpuTimes } from '../../core/devices/procFiles';
import { HISTORY_WINDOW_MS, SampleHistory } from '../../core/devices/sampleHistory';
import type { Accelerator } from '../../core/devices/report';
import type { MemorySample, WorkerLog } from '../../protocol/worker';
import { GpuProcessPoller } from './gpuProcessPoller';
import { PROC_ROOT, readProcStat } from './procReader';
import { NvidiaStream } from './nvidiaStream';
import { readSysfsDrmCards, SYSFS_DRM_ROOT } from '../detect/probes/sysfs';

export interface MonitorSink {
  samples(samples: MemorySample[]): void;
  processes(processes: GpuProcess[]): void;
  problem(message: string): void;
  log(level: WorkerLog['level'], message: string): void;
}

/** Report ids for tool indexes, from the last detect (nvidia-smi's order is not CUDA's). */
export interface IdMapper {
  nvidia(index: number): string;
  amd(pciBusId: string | null, index: number): string;
}

export const FALLBACK_IDS: IdMapper = {
  nvidia: (index) => `nvidia:${index}`,
  amd: (_bus, index) => `amd:${index}`,
};

export interface MonitorOptions {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  sysfsDrmRoot?: string;
  restartDelayMs?: number;
  /** /proc and /etc/passwd, for who runs each GPU process (tests use a fake tree). */
  procRoot?: string;
  passwdPath?: string;
}

/** The shortest interval honoured: faster would make nvidia-smi itself the load. */
export const MIN_INTERVAL_MS = 50;
/** What a request without a usable interval gets. */
export const DEFAULT_INTERVAL_MS = 1_000;

export class Monitor {
  private readonly nvidia: NvidiaStream;
  private readonly processes: GpuProcessPoller;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private ids: IdMapper = FALLBACK_IDS;
  /** Every sample sent, per device, for the report's sparklines. */
  readonly history = new SampleHistory(HISTORY_WINDOW_MS);
  private lastCpu: CpuTimes | null = null;

  constructor(private readonly sink: MonitorSink, private readonly options: MonitorOptions) {
    this.nvidia = new NvidiaStream({
      env: options.env,
      log: (level, message) => sink.log(level, message),
      onRows: (rows) => this.send(this.nvidiaSamples(rows)),
      onProblem: (message) => sink.problem(message),
      restartDelayMs: options.restartDelayMs,
    });
    this.processes = new GpuProcessPoller({
      env: options.env,
      log: (level, message) => sink.log(level, message),
      onProcesses: (processes) => sink.processes(processes),
      procRoot: options.procRoot,
      passwdPath: options.passwdPath,
    });
  }

  /** How many nvidia-smi processes the stream has started. */
  get nvidiaStarts(): number {
    return this.nvidia.starts;
  }

  setIds(ids: IdMapper): void {
    this.ids = ids;
  }

  /** The last detect's accelerators: which vendors' tools to ask for processes, and how to name their GPUs. */
  setAccelerators(accelerators: readonly Accelerator[]): void {
    this.processes.setAccelerators(accelerators);
  }

  setWindowPids(pids: readonly number[]): void {
    this.processes.setWindowPids(pids);
  }

  /** (Re)starts every source at `intervalMs`; calling it again changes the interval. */
  start(intervalMs: number): void {
    const interval = Number.isFinite(intervalMs) ? Math.max(MIN_INTERVAL_MS, Math.round(intervalMs)) : DEFAULT_INTERVAL_MS;
    this.stop();
    if (this.options.platform !== 'darwin') this.nvidia.start(interval);
    if (this.options.platform === 'linux') this.processes.start(interval);
    this.timer = setInterval(() => void this.tick(), interval);
    void this.tick();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.nvidia.stop();
    this.processes.stop();
  }

  private send(samples: MemorySample[]): void {
    for (const { id, ...point } of samples) this.history.add(id, point);
    this.sink.samples(samples);
  }

  /** Host memory from the os module; CPU use from the change of /proc/stat since the last tick (null on the first). */
  private async hostSample(): Promise<MemorySample> {
    const total = os.totalmem();
    let utilizationPercent: number | null = null;
    if (this.options.platform === 'linux') {
      const now = parseProcStatCpu((await readProcStat(this.options.procRoot ?? PROC_ROOT)) ?? '');
      if (now && this.lastCpu) utilizationPercent = cpuUtilizationPercent(this.lastCpu, now);
      this.lastCpu = now;
    }
    return { id: 'cpu', usedBytes: total - os.freemem(), totalBytes: total, utilizationPercent, time: Date.now() };
  }

  private nvidiaSamples(rows: MemorySampleRow[]): MemorySample[] {
    const time = Date.now();
    return rows.map((row) => ({
      id: this.ids.nvidia(row.index),
      usedBytes: row.usedBytes,
      totalBytes: row.totalBytes,
      utilizationPercent: row.utilizationPercent,
      time,
    }));
  }

  private async tick(): Promise<void> {
    // A slow sysfs read must not pile up ticks behind it.
    if (this.polling) return;
    this.polling = true;
    try {
      const samples = [await this.hostSample(), ...(await this.amdSamples())];
      if (this.timer !== undefined) this.send(samples);
    } catch (err) {
      this.sink.log('warn', `memory sample failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.polling = false;
    }
  }

  private async amdSamples(): Promise<MemorySample[]> {
    if (this.options.platform !== 'linux') return [];
    const cards = await readSysfsDrmCards(this.options.sysfsDrmRoot ?? SYSFS_DRM_ROOT);
    const time = Date.now();
    const samples: MemorySample[] = [];
    for (const card of cards) {
      const row = parseSysfsDrmCard(card);
      if (!row) continue;
      samples.push({
        id: this.ids.amd(row.pciBusId, row.index),
        usedBytes: row.memory.usedBytes,
        totalBytes: row.memory.totalBytes,
        utilizationPercent: row.utilizationPercent,
        time,
      });
    }
    return samples;
  }
}
