// Engines re-check the plan they are given: a plan made for another engine is a bug
// (thrown), a dtype the engine lacks is an 'unsupported' result (returned).
import type { EngineCapabilities, BenchPlan } from '../../core/bench/plan';
import type { EngineOutcome } from '../../core/bench/model';
import { unsupportedDtype } from '../../core/bench/outcomes';

export function planMismatch(plan: BenchPlan, capabilities: EngineCapabilities): EngineOutcome | null {
  if (plan.engine !== capabilities.engine) {
    throw new TypeError(`A plan for the ${plan.engine} engine was given to the ${capabilities.engine} engine.`);
  }
  if (!capabilities.dtypes.includes(plan.dtype)) {
    return unsupportedDtype(plan.engine, plan.device, plan.dtype, plan.size, capabilities.dtypes);
  }
  return null;
}
