// Free memory for the CPU engines when the caller did not pass the device report's number.
import * as os from 'os';
import type { BenchPlan } from '../../core/bench/plan';

export function withHostFreeMemory(plan: BenchPlan): BenchPlan {
  return plan.freeBytes === null ? { ...plan, freeBytes: os.freemem() } : plan;
}
