// A benchmark request from start to end, below both of its callers: the worker's
// JSON-RPC methods (service.ts, which alone turns these errors into JSON-RPC codes) and
// the CLI's `bench` and `doctor`, which run it in-process. No JSON-RPC here.
import type { DeviceReport } from '../../core/devices/report';
import type { BenchParams, BenchRunResponse, EngineInfo, EnginesResponse } from '../../protocol/worker';
import type { Engine } from '../engines/engine';
import { withDiagnosis } from '../../core/bench/diagnosis';
import { peakFacts } from './peakFacts';
import { prepareBench } from './plans';
import { runPreparedBench, type BenchHooks } from './runner';
import { InvalidBenchRequest } from './targets';
import { RunWatcher } from './runWatcher';
import { withRunSamples } from '../../core/bench/duringRun';
import { NO_SAMPLES } from '../../core/bench/runSamples';

export { InvalidBenchRequest };
export type { BenchHooks };

/**
 * Plans the request (or throws InvalidBenchRequest with the reason), runs it, and judges each
 * result against its device's peak (percent of peak, noise, the below-peak problems).
 */
export async function benchmark(params: BenchParams, report: DeviceReport, engines: readonly Engine[], hooks: BenchmarkHooks = {}): Promise<BenchRunResponse> {
  const prepared = await prepareBench(params, report, engines, hooks.signal);
  if (prepared.kind === 'invalid') throw new InvalidBenchRequest(prepared.message);
  const devices = [...new Set(prepared.bench.jobs.map((job) => job.device))];
  const watcher = (hooks.watch ?? defaultWatcher)(report, devices);
  watcher?.start();
  let run: BenchRunResponse;
  let samples = NO_SAMPLES;
  try {
    run = await runPreparedBench(prepared.bench, {
      ...hooks,
      onProgress: (progress, step, steps) => {
        watcher?.noteProgress(progress);
        hooks.onProgress?.(progress, step, steps);
      },
    });
  } finally {
    // Stopped on a throw too: its nvidia-smi must not outlive the run.
    samples = (await watcher?.stop()) ?? NO_SAMPLES;
  }
  return withRunSamples(withDiagnosis(run, await peakFacts(report)), samples);
}

/** What the run's diagnosis watches; tests pass recorded samples, or null to watch nothing. */
export interface BenchmarkHooks extends BenchHooks {
  watch?: (report: DeviceReport, devices: readonly string[]) => Pick<RunWatcher, 'start' | 'noteProgress' | 'stop'> | null;
}

function defaultWatcher(report: DeviceReport, devices: readonly string[]): RunWatcher {
  return new RunWatcher({ env: process.env, platform: process.platform, report, devices });
}

/** Every engine, its devices here and, when it cannot run, why. */
export async function listEngines(report: { selected: { device: string } }, engines: readonly Engine[]): Promise<EnginesResponse> {
  const infos: EngineInfo[] = [];
  for (const engine of engines) {
    const availability = await engine.availability();
    const problem = availability === 'ok' ? null : availability;
    infos.push({ engine: engine.id, devices: problem ? [] : await engine.devices(), dtypes: [...engine.capabilities.dtypes], problem });
  }
  return { engines: infos, selectedDevice: report.selected.device };
}
