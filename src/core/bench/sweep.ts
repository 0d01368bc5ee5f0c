// The size sweep: n = 256, 512, … 8192, each run like a single benchmark, stopping once
// one size's median run passes the time budget (the next would take about 8× longer).
import { RunResult, isMeasured, type Dtype, type EngineId } from './model';

type Where = { engine: EngineId; device: string; dtype: Dtype; size: number };

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

/** Where and why a sweep of one engine/device/dtype ended before its last size. */
export interface SweepStopNote {
  engine: EngineId;
  device: string;
  dtype: Dtype;
  /** The last size measured. */
  lastSize: number;
  lastMedianSec: number;
  /** The median after which the sweep stops (sweepStopSec). */
  stopSec: number;
  /** budget: the last median passed stopSec; predicted: the next size was predicted too slow. */
  reason: 'budget' | 'predicted';
  /** Sizes planned and not run. */
  skipped: number[];
}

/** A sweep's limit, and where each of its series stopped short. */
export interface SweepSummary {
  sizes: number[];
  stopSec: number;
  stops: SweepStopNote[];
}

/**
 * The series of a sweep that ended before their last size with no outcome to say why (a
 * refused, failed or cancelled size explains itself): the sizes left out are named with
 * the last median and the limit it passed, so a stopped sweep never looks complete.
 */
export function sweepStops(plans: readonly Where[], runs: readonly RunResult[], stopSec: number): SweepStopNote[] {
  const notes: SweepStopNote[] = [];
  const key = (w: { engine: string; device: string | null; dtype: string | null }) => `${w.engine}|${w.device}|${w.dtype}`;
  const groups = new Map<string, Where[]>();
  for (const plan of plans) groups.set(key(plan), [...(groups.get(key(plan)) ?? []), plan]);
  for (const [k, group] of groups) {
    const mine = runs.filter((r) => key(isMeasured(r) ? r.result : r) === k);
    const measured = mine.filter(isMeasured).map((r) => r.result).sort((a, b) => a.size - b.size);
    const last = measured[measured.length - 1];
    if (!last) continue;
    const answered = new Set(mine.map((r) => (isMeasured(r) ? r.result.size : r.size)));
    const later = group.map((p) => p.size).filter((n) => n > last.size).sort((a, b) => a - b);
    // The next size's own outcome (cancelled, failed, wrong) says why the series ended.
    if (later.length === 0 || answered.has(later[0])) continue;
    const skipped = later.filter((n) => !answered.has(n));
    const { engine, device, dtype } = group[0];
    notes.push({ engine, device, dtype, lastSize: last.size, lastMedianSec: last.medianSec, stopSec, reason: last.medianSec > stopSec ? 'budget' : 'predicted', skipped });
  }
  return notes;
}

function seconds(value: number): string {
  return value >= 1 ? `${Number(value.toPrecision(3))} s` : `${Number((value * 1e3).toPrecision(3))} ms`;
}

/** "torch cpu float32: stopped after n = 2048 (median 612 ms, over the sweep's 500 ms limit); n = 4096, 8192 not run." */
export function sweepStopSentence(note: SweepStopNote): string {
  const why = note.reason === 'budget'
    ? `median ${seconds(note.lastMedianSec)}, over the sweep's ${seconds(note.stopSec)} limit per product`
    : `n = ${note.skipped[0]} was predicted to take about ${seconds(predictSeconds(note.lastMedianSec, note.lastSize, note.skipped[0]))} per product, too long to stop promptly`;
  return `${note.engine} ${note.device} ${note.dtype}: stopped after n = ${note.lastSize} (${why}); n = ${note.skipped.join(', ')} not run.`;
}

/** "Sweep n = 256…8192; it stops after a size whose median product passes 500 ms.", then each stop. */
export function sweepSentences(summary: SweepSummary): string[] {
  const range = summary.sizes.length > 1 ? `${summary.sizes[0]}…${summary.sizes[summary.sizes.length - 1]}` : String(summary.sizes[0] ?? '');
  const limit = `Sweep n = ${range}; it stops after a size whose median product passes ${seconds(summary.stopSec)}.`;
  return [limit, ...summary.stops.map(sweepStopSentence)];
}
