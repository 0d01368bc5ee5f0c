// How many timed samples a run takes: a fixed count of repeats, or, for the torch engine,
// as many blocks as fit in a time budget (bench.py's blocked autorange). The budget is the
// default there because a fixed count is wrong at both ends: ten 0.3 ms products are mostly
// clock and launch noise, ten 14 s products are minutes. Other engines keep fixed repeats
// (their runners time one product at a time).
import { isCudaDevice, type Dtype, type EngineId, type EngineOutcome } from './model';

/** bench.py's MIN_BLOCKS: an autorange run takes at least this many samples, whatever its budget. */
export const AUTORANGE_MIN_BLOCKS = 5;
/** bench.py's default block: long enough to average a small product's launch and clock noise away. */
export const AUTORANGE_BLOCK_SEC = 0.2;
export const MIN_REPEAT_BUDGET_SEC = 0.1;
export const MAX_REPEAT_BUDGET_SEC = 600;

/**
 * The default budget by size: small products fill many blocks in a second; larger ones get
 * longer so that at least a few blocks hold more than one product, on a GPU as on a CPU.
 */
export function defaultRepeatBudgetSec(size: number): number {
  if (size <= 1024) return 1;
  if (size <= 4096) return 2;
  return 4;
}

/** Why a repeat budget is impossible, or null. */
export function repeatBudgetProblem(budgetSec: number | undefined, repeats: number | undefined): string | null {
  if (budgetSec === undefined) return null;
  if (repeats !== undefined) return 'Give either a fixed number of repeats or a repeat time budget, not both.';
  if (typeof budgetSec !== 'number' || !(budgetSec >= MIN_REPEAT_BUDGET_SEC && budgetSec <= MAX_REPEAT_BUDGET_SEC)) {
    return `The repeat time budget must be from ${MIN_REPEAT_BUDGET_SEC} to ${MAX_REPEAT_BUDGET_SEC} seconds, not ${budgetSec}.`;
  }
  return null;
}

/** The budget a plan's samples adapt to: the one asked for, else the size's default; null: fixed repeats. */
export function planRepeatBudget(engine: EngineId, size: number, repeats: number | undefined, budgetSec: number | undefined): number | null {
  if (engine !== 'torch' || repeats !== undefined) return null;
  return budgetSec ?? defaultRepeatBudgetSec(size);
}

/** tf32 off CUDA: there is no such mode to measure (a CPU or MPS float32 product is float32). */
export function tf32Refusal(plan: { engine: EngineId; device: string; dtype: Dtype; size: number }): EngineOutcome | null {
  if (plan.dtype !== 'tf32' || isCudaDevice(plan.device)) return null;
  return {
    status: 'unsupported',
    engine: plan.engine,
    device: plan.device,
    dtype: plan.dtype,
    size: plan.size,
    message: `tf32 (float32 with TensorFloat-32) is a CUDA matmul mode (torch.backends.cuda.matmul.allow_tf32); it does not apply on ${plan.device}.`,
    remedy: `Use float32 on ${plan.device}; tf32 is measured on a CUDA device (--device cuda).`,
  };
}

type Sampled = { repeats: number; productsPerSample?: number; repeatBudgetSec?: number | null };

/** "5, 7" from the distinct values, in order of appearance. */
function distinct(values: readonly number[]): string {
  return [...new Set(values)].join(', ');
}

/**
 * How the results' times were taken, for a caption: "median of 10 timed repeats", or for the
 * blocked autorange "median of 5, 12 samples (blocks of 1–600 products timed together, about 1, 2 s per size)".
 */
export function samplingText(results: readonly Sampled[]): string {
  const fixed = results.filter((r) => r.repeatBudgetSec == null);
  const adaptive = results.filter((r) => r.repeatBudgetSec != null);
  const parts: string[] = [];
  if (fixed.length > 0 || results.length === 0) parts.push(`median of ${distinct(fixed.map((r) => r.repeats)) || 'the'} timed repeats`);
  if (adaptive.length > 0) {
    const products = adaptive.map((r) => r.productsPerSample ?? 1);
    const lowest = Math.min(...products);
    const highest = Math.max(...products);
    const blocks = lowest === highest ? `${lowest} product${lowest === 1 ? '' : 's'}` : `${lowest}–${highest} products`;
    const budgets = distinct(adaptive.map((r) => r.repeatBudgetSec as number));
    parts.push(`median of ${distinct(adaptive.map((r) => r.repeats))} samples (blocks of ${blocks} timed together, about ${budgets} s per size)`);
  }
  return parts.join('; ');
}
