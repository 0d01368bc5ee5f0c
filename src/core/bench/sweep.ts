// The size sweep: n = 256, 512, … 8192, each run like a single benchmark, stopping once
// one size's median run passes the time budget (the next would take about 8× longer).
import { RunResult, isMeasured } from './model';

export const SWEEP_SIZES: readonly number[] = [256, 512, 1024, 2048, 4096, 8192];
/** A sweep stops after the first size whose median matmul takes longer than this. */
export const DEFAULT_SWEEP_BUDGET_SEC = 0.5;

export interface SweepOptions {
  sizes?: readonly number[];
  budgetSec?: number;
  /**
   * Skip sizes predicted (previous median × (n/previous n)³) to take longer than this per
   * matmul. An in-process engine can only stop between matmuls, so this bounds its cancel
   * latency; engines that cancel by killing a process leave it at Infinity.
   */
  maxPredictedRunSec?: number;
  signal?: AbortSignal;
}

/** Why the sweep ended: all sizes ran; a run passed the budget; the next was predicted too slow; an outcome (refused, failed, wrong, cancelled) ended it. */
export type SweepStop = 'completed' | 'budget' | 'predicted' | 'outcome' | 'cancelled';

export interface SweepResult {
  runs: RunResult[];
  stoppedBy: SweepStop;
}

/** Runs `runSize` for each size in turn; a measured run never follows a non-measured one. */
export async function runSweep(runSize: (size: number) => Promise<RunResult>, options: SweepOptions = {}): Promise<SweepResult> {
  const sizes = options.sizes ?? SWEEP_SIZES;
  const budgetSec = options.budgetSec ?? DEFAULT_SWEEP_BUDGET_SEC;
  const maxPredicted = options.maxPredictedRunSec ?? Infinity;
  const runs: RunResult[] = [];
  for (let i = 0; i < sizes.length; i++) {
    if (options.signal?.aborted) return { runs, stoppedBy: 'cancelled' };
    const run = await runSize(sizes[i]);
    runs.push(run);
    if (!isMeasured(run)) return { runs, stoppedBy: run.status === 'cancelled' ? 'cancelled' : 'outcome' };
    if (run.result.medianSec > budgetSec) return { runs, stoppedBy: 'budget' };
    const next = sizes[i + 1];
    if (next !== undefined && predictSeconds(run.result.medianSec, sizes[i], next) > maxPredicted) return { runs, stoppedBy: 'predicted' };
  }
  return { runs, stoppedBy: 'completed' };
}

/** Matmul time scales as n³. */
export function predictSeconds(seconds: number, size: number, nextSize: number): number {
  return seconds * (nextSize / size) ** 3;
}

/**
 * The median after which a sweep stops, so that the size after it, about (next/size)³
 * times slower, still fits a run budget over `products` products (warm-ups + repeats):
 * the sweep's own budget, or less when repeats are many.
 */
export function sweepStopSec(budgetSec: number, runBudgetSec: number, products: number, sizes: readonly number[]): number {
  let step = 1;
  for (let i = 0; i + 1 < sizes.length; i++) step = Math.max(step, (sizes[i + 1] / sizes[i]) ** 3);
  return Math.min(budgetSec, runBudgetSec / (products * step));
}
