// Assembles a BenchResult from a plan, its timings and its correctness check, so every
// engine (in-process tfjs or the torch subprocess) computes the statistics the same way.
import { correctnessFailure } from './outcomes';
import type { ProductCheck } from './correctness';
import type { BenchPlan } from './plan';
import type { BenchResult, RunResult } from './model';
import { gflops, summarizeTimes } from './statistics';

export interface MeasuredTimes {
  plan: Pick<BenchPlan, 'engine' | 'device' | 'dtype' | 'size' | 'threads'>;
  timesSec: readonly number[];
  maxRelError: number;
  checkedEntries: number;
  detail?: string | null;
  /** Products per sample (blocked autorange) and the budget the samples adapted to; absent: fixed repeats. */
  productsPerSample?: number;
  repeatBudgetSec?: number | null;
}

export function makeBenchResult(measured: MeasuredTimes): BenchResult {
  const { plan } = measured;
  const summary = summarizeTimes(measured.timesSec);
  return {
    engine: plan.engine,
    device: plan.device,
    ...(plan.threads !== undefined ? { threads: plan.threads } : {}),
    dtype: plan.dtype,
    size: plan.size,
    repeats: measured.timesSec.length,
    timesSec: [...measured.timesSec],
    productsPerSample: measured.productsPerSample ?? 1,
    repeatBudgetSec: measured.repeatBudgetSec ?? null,
    medianSec: summary.medianSec,
    minSec: summary.minSec,
    maxSec: summary.maxSec,
    q1Sec: summary.q1Sec,
    q3Sec: summary.q3Sec,
    iqrSec: summary.iqrSec,
    gflops: gflops(plan.size, summary.medianSec),
    maxRelError: measured.maxRelError,
    checkedEntries: measured.checkedEntries,
    detail: measured.detail ?? null,
  };
}

/** A measurement when the product passed its check, else the loud wrong-result outcome. */
export function resultOrFailure(plan: BenchPlan, timesSec: readonly number[], check: ProductCheck, detail: string | null, productsPerSample = 1): RunResult {
  if (!check.passed) return correctnessFailure(plan, check);
  const timing = { productsPerSample, repeatBudgetSec: plan.repeatBudgetSec ?? null };
  const result = makeBenchResult({ plan, timesSec, maxRelError: check.maxRelError, checkedEntries: check.checkedEntries, detail, ...timing });
  return { status: 'ok', result };
}
