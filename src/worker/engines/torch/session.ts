// One bench.py process seen from this side: its lines as they arrive (progress passed on,
// results and transfers kept), then, when it has ended, one RunResult per plan in order.
import type { BenchPlan } from '../../../core/bench/plan';
import type { BenchProgress, EngineOutcome, RunResult } from '../../../core/bench/model';
import { cancelledOutcome, failedOutcome } from '../../../core/bench/outcomes';
import type { TransferResult } from '../../../protocol/worker';
import type { LineProcessEnd } from '../../../node/lineProcess';
import { jobKey, parseBenchLine, runFromLine, transferFromLine, type ErrorLine, type ResultLine } from './lines';

/** What bench.py's error line means for a plan it never ran (torch missing, no such device). */
export type FatalOutcome = (plan: BenchPlan, error: ErrorLine) => EngineOutcome;

export class TorchSession {
  readonly transfers: TransferResult[] = [];
  /** Lines that were not bench.py's JSON (a library printing to stdout despite bench.py's care). */
  readonly strayLines: string[] = [];
  private readonly results = new Map<string, ResultLine>();
  private readonly budgetStopped = new Set<string>();
  private readonly byKey: Map<string, BenchPlan>;
  private fatal: ErrorLine | null = null;

  constructor(
    plans: readonly BenchPlan[],
    private readonly onProgress: ((progress: BenchProgress) => void) | undefined,
    private readonly fatalOutcome: FatalOutcome,
  ) {
    this.byKey = new Map(plans.map((p) => [jobKey(p.dtype, p.size), p]));
  }

  /** The bench.py arguments' job list, in plan order. */
  static jobs(plans: readonly BenchPlan[]): { dtype: string; size: number }[] {
    return plans.map((p) => ({ dtype: p.dtype, size: p.size }));
  }

  accept(text: string): void {
    const line = parseBenchLine(text);
    if (!line) {
      if (this.strayLines.length < 20) this.strayLines.push(text.slice(0, 200));
      return;
    }
    switch (line.type) {
      case 'progress': {
        const plan = this.byKey.get(jobKey(line.dtype, line.size));
        if (plan) this.onProgress?.({ engine: 'torch', device: plan.device, ...(plan.threads === undefined ? {} : { threads: plan.threads }), dtype: plan.dtype, size: plan.size, phase: line.phase, done: line.done, repeats: line.repeats, lastSec: line.lastSec });
        break;
      }
      case 'result':
        this.results.set(jobKey(line.dtype, line.size), line);
        break;
      case 'stopped':
        this.budgetStopped.add(line.dtype);
        break;
      case 'transfer':
        this.transfers.push(transferFromLine([...this.byKey.values()][0]?.device ?? 'unknown', line));
        break;
      case 'error':
        this.fatal = line;
        break;
      default:
        break;
    }
  }

  /**
   * One result per plan, in order: refusals decided before the spawn, bench.py's results,
   * nothing for sizes a budget skipped, the fatal error for plans never run, and for the
   * first plan left without an answer, why (cancelled, or how bench.py ended).
   */
  finish(plans: readonly BenchPlan[], early: ReadonlyMap<BenchPlan, RunResult>, end: LineProcessEnd, endDescription: string): RunResult[] {
    const runs: RunResult[] = [];
    for (const plan of plans) {
      const decided = early.get(plan);
      const line = this.results.get(jobKey(plan.dtype, plan.size));
      if (decided) runs.push(decided);
      else if (line) runs.push(runFromLine(plan, line));
      else if (this.budgetStopped.has(plan.dtype)) continue;
      else if (this.fatal) runs.push(this.fatalOutcome(plan, this.fatal));
      else {
        runs.push(end.reason === 'cancelled' ? cancelledOutcome(plan) : failedOutcome(plan, new Error(endDescription)));
        break;
      }
    }
    return runs;
  }
}
