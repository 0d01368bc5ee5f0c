// The `js` engine: tfjs-backend-cpu, pure JavaScript. Slow and always there, so it runs
// only when picked (js, or all engines), never as a default CPU partner, and is a run's
// speedup baseline only when no other CPU engine measured (compare.ts). Products are
// checked against float64 arithmetic (correctness.ts), not against this engine.
import type { EngineCapabilities, BenchPlan } from '../../core/bench/plan';
import type { EngineOutcome, RunResult } from '../../core/bench/model';
import type { Engine, RunOptions } from './engine';
import { withHostFreeMemory } from './hostMemory';
import { planMismatch } from './planGuard';
import { runTfjsMatmul } from './tfjs/tfjsRunner';
import { TFJS_VERSION, bundledTf } from './tfjs/tfjsRuntime';

/** A timed matmul longer than this is split into row slices so that cancel lands within a second. */
export const JS_SLICE_SEC = 0.25;

export interface JsEngineOptions {
  /** Longest one timed matmul may take before it is timed in row slices (default JS_SLICE_SEC). */
  sliceSec?: number;
}

export class JsEngine implements Engine {
  readonly id = 'js' as const;
  readonly capabilities: EngineCapabilities = { engine: 'js', dtypes: ['float32'], devices: ['cpu'] };

  constructor(private readonly options: JsEngineOptions = {}) {}

  async devices(): Promise<string[]> {
    return ['cpu'];
  }

  async availability(): Promise<EngineOutcome | 'ok'> {
    return 'ok';
  }

  async run(plan: BenchPlan, options?: RunOptions): Promise<RunResult> {
    const mismatch = planMismatch(plan, this.capabilities);
    if (mismatch) return mismatch;
    const settings = { backend: 'cpu', detail: `tfjs-backend-cpu ${TFJS_VERSION}, pure JavaScript`, sliceSec: this.options.sliceSec ?? JS_SLICE_SEC };
    return runTfjsMatmul(bundledTf(), withHostFreeMemory(plan), settings, options);
  }
}
