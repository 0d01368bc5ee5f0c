// The outcomes every engine shares, worded once so the CLI, the panel and the tests see
// the same sentences and remedies.
import type { ProductCheck } from './correctness';
import type { Dtype, EngineId, EngineOutcome, OutcomeStatus } from './model';

/** Which run an outcome is about (a BenchPlan fits; spelled out so plan.ts, which uses these outcomes, is not imported back). */
type Where = { engine: EngineId; device: string; dtype: Dtype; size: number };

/** Statuses that mean something went wrong (the CLI exits non-zero), as opposed to "not available here". */
export const FAILURE_STATUSES: readonly OutcomeStatus[] = ['wrong-result', 'failed'];

export function isFailure(outcome: EngineOutcome): boolean {
  return FAILURE_STATUSES.includes(outcome.status);
}

export function correctnessFailure(plan: Where, check: ProductCheck): EngineOutcome {
  return {
    status: 'wrong-result',
    engine: plan.engine,
    device: plan.device,
    dtype: plan.dtype,
    size: plan.size,
    message: check.failure ?? 'Wrong product.',
    remedy: `The ${plan.engine} engine computed a wrong matrix product on ${plan.device}: do not trust this device/engine until this is explained (driver, hardware, or a bug worth reporting).`,
    maxRelError: Math.max(check.maxRelError, check.checksumRelError),
    threshold: check.threshold,
  };
}

export function cancelledOutcome(plan: Where): EngineOutcome {
  return { status: 'cancelled', ...runOf(plan), message: `Cancelled: ${plan.engine} on ${plan.device}, n = ${plan.size}.`, remedy: null };
}

/** An engine that threw: the error's message only, never its stack. */
export function failedOutcome(plan: Where, error: unknown): EngineOutcome {
  const text = error instanceof Error ? error.message : String(error);
  return {
    status: 'failed',
    ...runOf(plan),
    message: `The ${plan.engine} engine failed on ${plan.device}, n = ${plan.size}: ${text.split('\n')[0]}`,
    remedy: 'Try a smaller size; if it keeps failing, see the log (Device Doctor: Show Log).',
  };
}

export function unsupportedDtype(engine: EngineId, device: string | null, dtype: Dtype, size: number | null, supported: readonly Dtype[]): EngineOutcome {
  return {
    status: 'unsupported',
    engine,
    device,
    dtype,
    size,
    message: `The ${engine} engine does not support ${dtype}; it runs ${supported.join(', ')}.`,
    remedy: 'Use float32 with this engine, or the torch engine for half precision.',
  };
}

/** The fields every outcome of one planned run repeats: which engine, device, dtype and size. */
export function runOf(plan: Where) {
  return { engine: plan.engine, device: plan.device, dtype: plan.dtype, size: plan.size };
}
