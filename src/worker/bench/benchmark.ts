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

export { InvalidBenchRequest };
export type { BenchHooks };

/**
 * Plans the request (or throws InvalidBenchRequest with the reason), runs it, and judges each
 * result against its device's peak (percent of peak, noise, the below-peak problems).
 */
export async function benchmark(params: BenchParams, report: DeviceReport, engines: readonly Engine[], hooks: BenchHooks = {}): Promise<BenchRunResponse> {
  const prepared = await prepareBench(params, report, engines, hooks.signal);
  if (prepared.kind === 'invalid') throw new InvalidBenchRequest(prepared.message);
  const run = await runPreparedBench(prepared.bench, hooks);
  return withDiagnosis(run, await peakFacts(report));
}

/** Every engine, its devices here and, when it cannot run, why. */
export async function listEngines(report: DeviceReport, engines: readonly Engine[]): Promise<EnginesResponse> {
  const infos: EngineInfo[] = [];
  for (const engine of engines) {
    const availability = await engine.availability();
    const problem = availability === 'ok' ? null : availability;
    infos.push({ engine: engine.id, devices: problem ? [] : await engine.devices(), dtypes: [...engine.capabilities.dtypes], problem });
  }
  return { engines: infos, selectedDevice: report.selected.device };
}
