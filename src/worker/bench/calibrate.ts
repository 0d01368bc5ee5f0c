// What an engine really does on the CPU, measured before a run whose time cannot be told
// from the bounds alone (peaks.ts): products of growing order (128, 256, … 2048, never above
// the planned size) until one's median takes CALIBRATION_SEC, in one engine process (torch:
// one bench.py, so torch is imported once). The last product's GFLOP/s is the rate; for a
// product more than twice as large it is divided by the engine's slowdown (peaks.ts: the
// in-process engines lose 3–4× once their matrices leave the caches, BLAS stays flat).
// Every product is checked like any other; a calibration that measured nothing gives no
// rate, and then the CPU's peak decides, and the runner's time limit bounds the run.
import { isMeasured, type Dtype, type EngineId, type RunResult } from '../../core/bench/model';
import { extrapolationSlowdown } from '../../core/bench/peaks';
import { planBenchmark, type BenchPlan } from '../../core/bench/plan';
import { runSweep } from '../../core/bench/sweep';
import type { RateEstimate } from '../../core/bench/timeBudget';
import type { Engine } from '../engines/engine';
import { TorchEngine } from '../engines/torch/engine';

export const CALIBRATION_SIZES: readonly number[] = [128, 256, 512, 1024, 2048];
/** Growing stops after the first size whose median takes longer than this. */
export const CALIBRATION_SEC = 0.05;
export const CALIBRATION_REPEATS = 3;

export interface CalibrationTarget {
  engine: Engine;
  device: string;
  dtype: Dtype;
  /** The planned size: calibration never multiplies larger matrices. */
  upTo: number;
  freeBytes: number | null;
}

function calibrationPlans(target: CalibrationTarget): BenchPlan[] {
  const sizes = CALIBRATION_SIZES.filter((n) => n <= target.upTo);
  if (sizes.length === 0) sizes.push(target.upTo);
  const plans: BenchPlan[] = [];
  for (const size of sizes) {
    const request = { engine: target.engine.id, device: target.device, size, dtype: target.dtype, repeats: CALIBRATION_REPEATS, freeBytes: target.freeBytes };
    const planned = planBenchmark(request, target.engine.capabilities);
    if (planned.kind !== 'plan') break;
    plans.push(planned.plan);
  }
  return plans;
}

/** The engine's rate from its largest calibration product, or null when nothing was measured. */
export async function measureRate(target: CalibrationTarget, signal?: AbortSignal): Promise<RateEstimate | null> {
  const plans = calibrationPlans(target);
  if (plans.length === 0 || signal?.aborted) return null;
  let runs: RunResult[];
  if (target.engine instanceof TorchEngine) {
    runs = (await target.engine.runBatch({ plans, budgetSec: CALIBRATION_SEC, transfer: false }, { signal })).runs;
  } else {
    const bySize = new Map(plans.map((p) => [p.size, p]));
    const engine = target.engine;
    runs = (await runSweep((size) => engine.run(bySize.get(size) as BenchPlan, { signal }), { sizes: plans.map((p) => p.size), budgetSec: CALIBRATION_SEC, signal })).runs;
  }
  const measured = runs.filter(isMeasured).map((r) => r.result);
  const last = measured[measured.length - 1];
  if (!last || !(last.gflops > 0) || !Number.isFinite(last.gflops)) return null;
  return { gflops: last.gflops, kind: 'measured', basis: `measured at n = ${last.size}`, size: last.size };
}

/** The measured rate as it applies to a product of order `size`: slowed down beyond twice the measured order (peaks.ts). */
export function rateAt(rate: RateEstimate, size: number, engine: EngineId): RateEstimate {
  const slowdown = extrapolationSlowdown(engine);
  if (rate.size === undefined || size <= 2 * rate.size || slowdown === 1) return rate;
  return { ...rate, gflops: rate.gflops / slowdown, basis: `${rate.basis} and slowed ${slowdown}× for this size` };
}
