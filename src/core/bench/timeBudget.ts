// How long one engine run will take, before it runs: (warm-ups + repeats) products of 2·n³
// floating-point operations each, at a rate in GFLOP/s that is either a bound (peaks.ts: a
// run over the budget even at this CPU's peak cannot fit) or measured on a small product
// of the same engine (worker/bench/calibrate.ts). A run whose estimate passes the budget is
// refused with the estimate and the largest size that fits, like a size that does not fit
// in memory; a benchmark never starts what it cannot finish.
import type { EngineOutcome } from './model';
import type { BenchPlan } from './plan';
import { runOf } from './outcomes';

/** The longest one engine run of one size (warm-ups and repeats) may be estimated to take. */
export const DEFAULT_RUN_BUDGET_SEC = 300;

export interface RateEstimate {
  gflops: number;
  /** peak: an upper bound, so the time is a lower bound ("at least"); measured: a timed product ("about"). */
  kind: 'peak' | 'measured';
  /** Where the rate comes from, for people: "this CPU's peak for torch (2 cores, AVX-512)", "measured at n = 2048". */
  basis: string;
  /** measured: the order of the product it was measured on. */
  size?: number;
}

type Timed = Pick<BenchPlan, 'size' | 'warmups' | 'repeats' | 'repeatBudgetSec'>;

export function productsOf(plan: Pick<BenchPlan, 'warmups' | 'repeats'>): number {
  return plan.warmups + plan.repeats;
}

/**
 * Seconds of (warm-ups + repeats) products of order n at `gflops`; a blocked autorange adds
 * its budget (its blocks fill the budget, or are its fewest samples, `repeats`, when longer).
 */
export function estimateRunSeconds(plan: Timed, gflops: number): number {
  return (2 * plan.size ** 3 * productsOf(plan)) / (gflops * 1e9) + (plan.repeatBudgetSec ?? 0);
}

/** Largest n whose run fits in budgetSec at `gflops` (0: not even n = 1). */
export function largestSizeWithin(budgetSec: number, gflops: number, products: number): number {
  const fits = (n: number) => estimateRunSeconds({ size: n, warmups: 0, repeats: products }, gflops) <= budgetSec;
  let n = Math.floor(Math.cbrt((budgetSec * gflops * 1e9) / (2 * products)));
  while (n > 0 && !fits(n)) n--;
  while (fits(n + 1)) n++;
  return n;
}

/** "45 s", "12 minutes", "2.7 hours", "3.1 days". */
export function formatDuration(seconds: number): string {
  if (seconds < 120) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} minutes`;
  if (seconds < 2 * 86400) return `${(seconds / 3600).toFixed(1)} hours`;
  return `${(seconds / 86400).toFixed(1)} days`;
}

function where(device: string): string {
  return device === 'cpu' ? 'the CPU' : device;
}

/** A refusal when the run's estimate passes the budget, else null. */
export function checkTime(plan: Pick<BenchPlan, 'engine' | 'device' | 'dtype' | 'size' | 'warmups' | 'repeats' | 'repeatBudgetSec'>, rate: RateEstimate, budgetSec: number): EngineOutcome | null {
  const estimatedSec = estimateRunSeconds(plan, rate.gflops);
  if (estimatedSec <= budgetSec) return null;
  const products = productsOf(plan);
  const largest = largestSizeWithin(budgetSec - (plan.repeatBudgetSec ?? 0), rate.gflops, products);
  const sized = largest > 0 ? `choose n ≤ ${largest}` : 'choose a smaller size';
  return {
    status: 'refused',
    ...runOf(plan),
    estimatedSec,
    budgetSec,
    message:
      `Refused: n = ${plan.size} ${plan.dtype} on ${where(plan.device)} would take ${rate.kind === 'peak' ? 'at least' : 'about'} ${formatDuration(estimatedSec)} ` +
      `with the ${plan.engine} engine (${products} products of 2·n³ flops, est. from ${formatRate(rate.gflops)} GFLOP/s, ${rate.basis}); the budget is ${budgetSec} s.`,
    remedy: `To finish within the budget, ${sized}${plan.repeats > 1 ? ', or fewer repeats' : ''}.`,
  };
}

function formatRate(gflops: number): string {
  return gflops >= 100 ? String(Math.round(gflops)) : Number(gflops.toPrecision(2)).toString();
}

/**
 * A run the runner stopped at its time limit (runner.ts: the start grace plus a margin over
 * the budget per plan): it ran far past the estimate that let it start.
 */
export function overrunOutcome(plan: Pick<BenchPlan, 'engine' | 'device' | 'dtype' | 'size'>, limitSec: number, budgetSec: number): EngineOutcome {
  return {
    status: 'failed',
    engine: plan.engine,
    device: plan.device,
    dtype: plan.dtype,
    size: plan.size,
    budgetSec,
    message: `Stopped: the ${plan.engine} engine on ${where(plan.device)}, n = ${plan.size}, ran past its time limit of ${formatDuration(limitSec)} (the budget is ${budgetSec} s per run, with room for the engine's start and a slower machine).`,
    remedy: 'Choose a smaller size or fewer repeats; the machine may be busy, or slower than its estimate.',
  };
}
