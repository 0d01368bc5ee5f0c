// A diagnosed run (diagnosis.ts) judged once more against what the machine did while it ran
// (runSamples.ts): each noisy result gets the reason seen for it, and a GPU that held its clocks
// down gets a gpu-throttled problem beside the other below-peak ones.
import type { BenchRun } from './model';
import { hostLoad, noiseReasonOf } from './noiseReason';
import type { RunSamples } from './runSamples';
import { diagnoseThrottling } from './throttling';

export function withRunSamples<R extends BenchRun>(run: R, samples: RunSamples): R {
  const results = run.results.map((r) => {
    const reason = noiseReasonOf(r, samples);
    const load = hostLoad(r, samples);
    return { ...r, ...(reason === null ? {} : { noiseReason: reason }), ...(load === null ? {} : { hostLoad: load }) };
  });
  return { ...run, results, problems: [...run.problems, ...diagnoseThrottling(results, samples)] };
}
