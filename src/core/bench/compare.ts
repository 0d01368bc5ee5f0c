// Speedup over the CPU, measured in the same run: the question "how much faster is my
// GPU than my CPU" needs both numbers from the same machine state.
import { BenchResult, BenchRun, EngineId, RunResult, SpeedupEntry, SpeedupReport, isMeasured } from './model';
import { speedup } from './statistics';

/**
 * Which CPU result is the baseline, best first: what the user's PyTorch gets on the CPU,
 * then native TensorFlow, then the bundled wasm engine, then the pure-JavaScript reference.
 */
export const BASELINE_PREFERENCE: readonly { engine: EngineId; device: string }[] = [
  { engine: 'torch', device: 'cpu' },
  { engine: 'tfjs-node', device: 'cpu' },
  { engine: 'wasm', device: 'cpu' },
  { engine: 'js', device: 'cpu' },
];

export function chooseBaseline(results: readonly BenchResult[]): { engine: EngineId; device: string } | null {
  for (const candidate of BASELINE_PREFERENCE) {
    if (results.some((r) => r.engine === candidate.engine && r.device === candidate.device)) return { ...candidate };
  }
  return null;
}

/** Speedups of every non-baseline result; null when the run has no CPU baseline. */
export function computeSpeedups(results: readonly BenchResult[]): SpeedupReport | null {
  const baseline = chooseBaseline(results);
  if (!baseline) return null;
  const isBaseline = (r: BenchResult) => r.engine === baseline.engine && r.device === baseline.device;
  const baselineResults = results.filter(isBaseline);
  const entries: SpeedupEntry[] = [];
  for (const result of results) {
    if (isBaseline(result)) continue;
    const reference =
      baselineResults.find((b) => b.size === result.size && b.dtype === result.dtype) ??
      baselineResults.find((b) => b.size === result.size && b.dtype === 'float32');
    if (!reference) continue;
    entries.push({
      engine: result.engine,
      device: result.device,
      dtype: result.dtype,
      baselineDtype: reference.dtype,
      size: result.size,
      speedup: speedup(reference.medianSec, result.medianSec),
    });
  }
  return { baseline, entries };
}

/** Collects engine runs into one benchmark session: measurements, problems, speedups. */
export function buildRun(runs: readonly RunResult[]): BenchRun {
  const results: BenchResult[] = [];
  const problems: BenchRun['problems'] = [];
  for (const run of runs) {
    if (isMeasured(run)) results.push(run.result);
    else problems.push(run);
  }
  return { results, problems, speedup: computeSpeedups(results) };
}
