// The interface every benchmark engine implements. Engines are standalone modules: the
// worker's JSON-RPC methods call them; they never touch the protocol or the editor.
import type { BenchPlan, EngineCapabilities } from '../../core/bench/plan';
import type { BenchProgress, EngineId, EngineOutcome, RunResult } from '../../core/bench/model';

export interface RunOptions {
  /** Abort to cancel: the run stops between matmuls and resolves to a 'cancelled' outcome. */
  signal?: AbortSignal;
  onProgress?: (progress: BenchProgress) => void;
  /**
   * Test hook: alters the product after it was read back and before it is checked, so a
   * test can prove that a wrong product fails the run.
   */
  corruptProduct?: (product: Float32Array, size: number) => void;
}

export interface Engine {
  readonly id: EngineId;
  readonly capabilities: EngineCapabilities;
  /** Devices this engine can run on here ("cpu", "cuda:0"); empty when unavailable. */
  devices(): Promise<string[]>;
  /** 'ok', or why the engine cannot run at all (not installed, no GPU registered, …). */
  availability(): Promise<EngineOutcome | 'ok'>;
  /**
   * Warm-up, then `plan.repeats` timed matmuls, then the correctness check. Never rejects
   * for an engine problem: every failure is an EngineOutcome. Runs are serialized per process.
   */
  run(plan: BenchPlan, options?: RunOptions): Promise<RunResult>;
}
