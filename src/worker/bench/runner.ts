// Runs a prepared benchmark, one engine run at a time (two at once would each measure the
// other), reporting progress and stopping at a cancel. The torch engine gets each job as
// one batch, so its interpreter imports torch once per device; in-process engines run plan
// by plan, a sweep through the core's runSweep. Called by benchmark.ts, for the worker's
// bench method and, in-process, for the CLI.
//
// Time: every plan was estimated within the run budget (plans.ts), a sweep stops before a
// size that would not fit (sweepStopSec), and each job has a hard limit, its start grace
// plus RUN_LIMIT_FACTOR × the budget per plan, after which it is stopped like a cancel and
// reported as failed: a benchmark never runs unbounded, whatever the estimate missed.
import { buildRun } from '../../core/bench/compare';
import { isMeasured, type BenchProgress, type RunResult, type TransferResult } from '../../core/bench/model';
import type { BenchPlan } from '../../core/bench/plan';
import { runSweep, sweepStops, sweepStopSec, type SweepStopNote } from '../../core/bench/sweep';
import { overrunOutcome, productsOf } from '../../core/bench/timeBudget';
import { cancelledOutcome } from '../../core/bench/outcomes';
import type { BenchRunResponse } from '../../protocol/worker';
import type { RunOptions } from '../engines/engine';
import { TorchEngine } from '../engines/torch/engine';
import type { BenchJob, PreparedBench } from './plans';

export interface BenchHooks {
  signal?: AbortSignal;
  /** step: 1-based index of the plan in progress, out of steps (a sweep may end sooner). */
  onProgress?: (progress: BenchProgress, step: number, steps: number) => void;
  /** Test hook, passed to every engine run (RunOptions.corruptProduct). */
  corruptProduct?: RunOptions['corruptProduct'];
}

/** A job may take this many times the run budget per plan (plus its start grace) before it is stopped. */
export const RUN_LIMIT_FACTOR = 1.5;

class StepCounter {
  private readonly seen = new Set<string>();
  readonly steps: number;

  constructor(bench: PreparedBench) {
    this.steps = bench.jobs.reduce((sum, job) => sum + job.plans.length, 0);
  }

  step(p: BenchProgress): number {
    this.seen.add(`${p.engine}|${p.device}|${p.threads ?? ''}|${p.dtype}|${p.size}`);
    return this.seen.size;
  }
}

function byDtype(plans: readonly BenchPlan[]): BenchPlan[][] {
  const groups = new Map<string, BenchPlan[]>();
  for (const plan of plans) groups.set(plan.dtype, [...(groups.get(plan.dtype) ?? []), plan]);
  return [...groups.values()];
}

async function runInProcess(job: BenchJob, bench: PreparedBench, options: RunOptions): Promise<RunResult[]> {
  const runs: RunResult[] = [];
  for (const plans of byDtype(job.plans)) {
    if (options.signal?.aborted) break;
    if (!bench.sweep) {
      for (const plan of plans) {
        const run = await job.engine.run(plan, options);
        runs.push(run);
        if (run.status === 'cancelled') return runs;
      }
      continue;
    }
    const planFor = new Map(plans.map((p) => [p.size, p]));
    const sweep = await runSweep((size) => job.engine.run(planFor.get(size) as BenchPlan, options), {
      sizes: plans.map((p) => p.size),
      budgetSec: sweepBudget(plans, bench),
      signal: options.signal,
    });
    runs.push(...sweep.runs);
    if (sweep.stoppedBy === 'cancelled') return runs;
  }
  return runs;
}

/** Where a sweep of these plans stops: its budget, or less so that the next size fits the run budget. */
function sweepBudget(plans: readonly BenchPlan[], bench: PreparedBench): number {
  const sizes = [...new Set(plans.map((p) => p.size))].sort((a, b) => a - b);
  return sweepStopSec(bench.budgetSec, bench.runBudgetSec, productsOf(plans[0]), sizes);
}

type JobResult = { runs: RunResult[]; transfers: TransferResult[] };

async function runJob(job: BenchJob, bench: PreparedBench, options: RunOptions): Promise<JobResult> {
  if (job.engine instanceof TorchEngine) {
    const transfer = bench.transfer && job.device !== 'cpu';
    return job.engine.runBatch({ plans: job.plans, budgetSec: bench.sweep ? sweepBudget(job.plans, bench) : undefined, transfer, memory: bench.memory === true }, options);
  }
  return { runs: await runInProcess(job, bench, options), transfers: [] };
}

export function jobTimeLimitSec(job: BenchJob, bench: PreparedBench): number {
  return bench.startGraceSec + job.plans.length * bench.runBudgetSec * RUN_LIMIT_FACTOR;
}

/** runJob, stopped at its time limit: the run it stopped is a failure that says so, not a cancel. */
async function runJobWithinLimit(job: BenchJob, bench: PreparedBench, options: RunOptions): Promise<JobResult> {
  const limitSec = jobTimeLimitSec(job, bench);
  const controller = new AbortController();
  const outer = options.signal;
  const forward = () => controller.abort();
  if (outer?.aborted) controller.abort();
  else outer?.addEventListener('abort', forward, { once: true });
  let overran = false;
  const timer = setTimeout(() => {
    overran = true;
    controller.abort();
  }, limitSec * 1000);
  try {
    const done = await runJob(job, bench, { ...options, signal: controller.signal });
    if (!overran || outer?.aborted) return done;
    const planOf = (r: RunResult) => job.plans.find((p) => !isMeasured(r) && p.size === r.size && p.dtype === r.dtype) ?? job.plans[0];
    return { ...done, runs: done.runs.map((r) => (r.status === 'cancelled' ? overrunOutcome(planOf(r), limitSec, bench.runBudgetSec) : r)) };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', forward);
  }
}

/** Every job in turn; a cancel ends the run with what finished and a 'cancelled' outcome. */
export async function runPreparedBench(bench: PreparedBench, hooks: BenchHooks = {}): Promise<BenchRunResponse> {
  const counter = new StepCounter(bench);
  const options: RunOptions = {
    signal: hooks.signal,
    onProgress: hooks.onProgress && ((p) => hooks.onProgress?.(p, counter.step(p), counter.steps)),
    corruptProduct: hooks.corruptProduct,
  };
  if (bench.sweep && bench.jobs.length > 1) return interleavedSweep(bench, hooks, options);
  const runs: RunResult[] = [...bench.problems];
  const transfers: TransferResult[] = [];
  const stops: SweepStopNote[] = [];
  let cancelled = false;
  for (const job of bench.jobs) {
    if (hooks.signal?.aborted) {
      runs.push(cancelledOutcome(job.plans[0]));
      cancelled = true;
      break;
    }
    const done = await runJobWithinLimit(job, bench, options);
    runs.push(...done.runs);
    transfers.push(...done.transfers);
    if (bench.sweep) stops.push(...sweepStops(job.plans, done.runs, sweepBudget(job.plans, bench)));
    if (done.runs.some((r) => !isMeasured(r) && r.status === 'cancelled')) {
      cancelled = true;
      break;
    }
  }
  const sweep = bench.sweep && bench.jobs.length > 0 ? sweepSummary(bench, stops) : undefined;
  return { ...buildRun(runs), transfers, cancelled: cancelled || hooks.signal?.aborted === true, selectedDevice: bench.selectedDevice, description: bench.description, ...(sweep ? { sweep } : {}) };
}

/**
 * A sweep of compared series (torch on all threads and on one; a GPU and the CPU) runs size by
 * size, every series at one size before the next size, so that a cancel or the time running out
 * keeps pairs to compare; run series after series, a cancelled sweep kept one series only (issue
 * 28 item 9). A series (a job's dtype) stops after its first size over the sweep's limit, or at
 * an outcome; a cancel ends the whole run.
 */
async function interleavedSweep(bench: PreparedBench, hooks: BenchHooks, options: RunOptions): Promise<BenchRunResponse> {
  const runs: RunResult[] = [...bench.problems];
  const transfers: TransferResult[] = [];
  const perJob = bench.jobs.map((job) => ({ job, runs: [] as RunResult[], active: new Set(job.plans.map((p) => p.dtype)) }));
  const sizes = [...new Set(bench.jobs.flatMap((j) => j.plans.map((p) => p.size)))].sort((a, b) => a - b);
  let cancelled = false;
  sizes: for (const size of sizes) {
    for (const series of perJob) {
      const plans = series.job.plans.filter((p) => p.size === size && series.active.has(p.dtype));
      if (plans.length === 0) continue;
      if (hooks.signal?.aborted) {
        runs.push(cancelledOutcome(plans[0]));
        cancelled = true;
        break sizes;
      }
      const done = await runJobWithinLimit({ ...series.job, plans }, bench, options);
      series.runs.push(...done.runs);
      runs.push(...done.runs);
      transfers.push(...done.transfers);
      const limit = sweepBudget(series.job.plans, bench);
      for (const r of done.runs) {
        if (!isMeasured(r)) {
          // An outcome of no dtype in particular (the engine could not start) ends the whole series.
          if (r.dtype) series.active.delete(r.dtype);
          else series.active.clear();
          if (r.status === 'cancelled') cancelled = true;
        } else if (r.result.medianSec > limit) series.active.delete(r.result.dtype);
      }
      if (cancelled) break sizes;
    }
  }
  const stops = perJob.flatMap((s) => sweepStops(s.job.plans, s.runs, sweepBudget(s.job.plans, bench)));
  return {
    ...buildRun(runs), transfers, cancelled: cancelled || hooks.signal?.aborted === true, selectedDevice: bench.selectedDevice,
    description: bench.description, sweep: sweepSummary(bench, stops),
  };
}

/** The sweep's sizes and limit (the strictest of its jobs'), and where its series stopped short. */
function sweepSummary(bench: PreparedBench, stops: SweepStopNote[]): NonNullable<BenchRunResponse['sweep']> {
  const sizes = [...new Set(bench.jobs.flatMap((j) => j.plans.map((p) => p.size)))].sort((a, b) => a - b);
  return { sizes, stopSec: Math.min(...bench.jobs.map((j) => sweepBudget(j.plans, bench))), stops };
}
