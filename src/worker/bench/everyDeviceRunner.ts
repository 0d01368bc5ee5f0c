// The torch matmul on one device at a time or on all at once, for `bench --devices all` (the CLI
// runs it in-process, the worker for the panel). Each pass gets one run watcher (runWatcher.ts:
// one `nvidia-smi -lms` for every device of the pass, not one per device), and each run is then
// given its GPU's readings inside its own result's window (core/bench/devices/runConditions.ts).
import { conditionsDuring } from '../../core/bench/devices/runConditions';
import type { DeviceRun, EveryDeviceRunner } from '../../core/bench/devices/everyDevice';
import { isFailure } from '../../core/bench/outcomes';
import { DEFAULT_SIZE } from '../../core/bench/plan';
import { NO_SAMPLES } from '../../core/bench/runSamples';
import type { DeviceReport } from '../../core/devices/report';
import type { BenchParams } from '../../protocol/worker';
import type { Engine } from '../engines/engine';
import { benchmark } from './benchmark';
import { RunWatcher } from './runWatcher';

export interface TorchEveryDeviceOptions {
  python: string | null;
  report: DeviceReport;
  devices: readonly string[];
  size?: number;
  repeats?: number;
  dtypes?: string[];
  env: NodeJS.ProcessEnv;
  /** Engines for one run (each run starts its own bench.py, so runs at once do not share a Python). */
  engines(): Engine[];
  /** Tests replace the watcher; null watches nothing. */
  watcher?: (devices: readonly string[]) => Pick<RunWatcher, 'start' | 'noteProgress' | 'stop'> | null;
}

export class TorchEveryDeviceRunner implements EveryDeviceRunner {
  private watcher: Pick<RunWatcher, 'start' | 'noteProgress' | 'stop'> | null = null;

  constructor(private readonly options: TorchEveryDeviceOptions) {}

  passStarting(): void {
    const { devices, env, report } = this.options;
    this.watcher = this.options.watcher ? this.options.watcher(devices) : new RunWatcher({ env, platform: process.platform, report, devices });
    this.watcher?.start();
  }

  async passEnded(_pass: 'alone' | 'together', runs: DeviceRun[]): Promise<DeviceRun[]> {
    const samples = (await this.watcher?.stop()) ?? NO_SAMPLES;
    this.watcher = null;
    return runs.map((run, i) => ('gflops' in run ? { ...run, during: conditionsDuring(samples, this.options.devices[i]) } : run));
  }

  /** Never throws: a failure is { error }. */
  async run(device: string, signal?: AbortSignal): Promise<DeviceRun> {
    const { python, report, size, repeats, dtypes } = this.options;
    const params: BenchParams = { pythonPath: python, pinnedDevice: null, compare: 'single', engine: 'torch', device, size: size ?? DEFAULT_SIZE, repeats, dtypes, transfer: false };
    const pass = this.watcher;
    // The pass's watcher sees this run's progress (its window); it is started and stopped by the pass, not by the run.
    const watch = () => ({ start: () => undefined, noteProgress: (p: Parameters<RunWatcher['noteProgress']>[0]) => pass?.noteProgress(p), stop: async () => NO_SAMPLES });
    try {
      const run = await benchmark(params, report, this.options.engines(), { signal, watch });
      const failure = run.problems.find(isFailure);
      const best = run.results.find((r) => r.device === device);
      if (failure || !best) return { error: failure?.message ?? 'nothing was measured' };
      return { gflops: best.gflops };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }
}
