// The editor's "every device" benchmark (BenchParams.everyDevice): the usual run of torch on every
// device, one at a time (the panel's charts and tables), watched so each accelerator's readings
// during its own result are kept, and then the accelerators all at once (everyDeviceRunner.ts),
// so the panel's "Devices against their peers" shows both passes as `bench --devices all` does.
import { everyDeviceReport, everyTorchDevice, type DeviceRun } from '../../core/bench/devices/everyDevice';
import { conditionsDuring } from '../../core/bench/devices/runConditions';
import type { BenchResult } from '../../core/bench/model';
import { isFailure } from '../../core/bench/outcomes';
import { NO_SAMPLES, type RunSamples } from '../../core/bench/runSamples';
import type { DeviceReport } from '../../core/devices/report';
import type { BenchParams, BenchRunResponse } from '../../protocol/worker';
import type { Engine } from '../engines/engine';
import { benchmark, type BenchmarkHooks } from './benchmark';
import { TorchEveryDeviceRunner } from './everyDeviceRunner';
import { RunWatcher } from './runWatcher';

/** The largest size every device measured in this dtype (a sweep may stop sooner on a slow one), or null. */
function commonSize(results: readonly BenchResult[], devices: readonly string[], dtype: string): number | null {
  const sizes = devices.map((device) => new Set(results.filter((r) => r.engine === 'torch' && r.device === device && r.dtype === dtype).map((r) => r.size)));
  const common = [...sizes[0]].filter((size) => sizes.every((s) => s.has(size)));
  return common.length ? Math.max(...common) : null;
}

export async function benchEveryDevice(params: BenchParams, report: DeviceReport, engines: readonly Engine[], hooks: BenchmarkHooks, oneRunEngines: () => Engine[]): Promise<BenchRunResponse> {
  let samples: RunSamples = NO_SAMPLES;
  const watch: BenchmarkHooks['watch'] = (watched, devices) => {
    const watcher = new RunWatcher({ env: process.env, platform: process.platform, report: watched, devices });
    return { start: () => watcher.start(), noteProgress: (p) => watcher.noteProgress(p), stop: async () => (samples = await watcher.stop()) };
  };
  const run = await benchmark(params, report, engines, { ...hooks, watch: hooks.watch ?? watch });
  const devices = everyTorchDevice(report);
  const dtype = params.dtypes?.[0] ?? 'float32';
  const size = devices.length >= 2 ? commonSize(run.results, devices, dtype) : null;
  if (size === null || run.cancelled || hooks.signal?.aborted) return run;
  // Readings of the compared results only (a sweep's other sizes are other windows).
  const compared: RunSamples = { ...samples, windows: samples.windows.filter((w) => w.engine === 'torch' && w.size === size && w.dtype === dtype) };
  const alone = devices.map((device): DeviceRun => {
    const result = run.results.find((r) => r.engine === 'torch' && r.device === device && r.dtype === dtype && r.size === size);
    return result ? { gflops: result.gflops, during: conditionsDuring(compared, device) } : { error: run.problems.find((p) => isFailure(p) && p.device === device)?.message ?? 'not measured' };
  });
  const runner = new TorchEveryDeviceRunner({ python: params.pythonPath, report, devices, size, repeats: params.repeats, dtypes: [dtype], env: process.env, engines: oneRunEngines });
  runner.passStarting();
  const together = await runner.passEnded('together', await Promise.all(devices.map((device) => runner.run(device, hooks.signal))));
  if (hooks.signal?.aborted) return run;
  return { ...run, everyDevice: everyDeviceReport(devices, { alone, together }, { size, dtype, report }) };
}
