// What the tfjs-node and tfjs-node-gpu engines share: loading the native package from the
// places the extension may have installed it, and turning every way that fails into an
// outcome with a remedy.
import type { EngineCapabilities, BenchPlan } from '../../../core/bench/plan';
import type { EngineId, EngineOutcome, RunResult } from '../../../core/bench/model';
import type { Engine, RunOptions } from '../engine';
import { NATIVE_TF_VERSION, NativePackage, NativeTf, loadNativeTf } from './nativeTf';
import { planMismatch } from '../planGuard';
import { runTfjsMatmul } from './tfjsRunner';
import { serialized, useBackend } from './tfjsRuntime';

/** Native matmuls are timed in row slices past this, like the in-process engines, so cancel stays within a second. */
export const NATIVE_SLICE_SEC = 0.25;

export interface NativeEngineOptions {
  /** Folders whose node_modules may hold the package (the extension's global storage). */
  searchPaths?: readonly string[];
  /** Look only in searchPaths, not next to this module. */
  searchPathsOnly?: boolean;
}

export type NativeReady = { ok: true; native: NativeTf } | { ok: false; outcome: EngineOutcome };

export abstract class NativeTfEngine implements Engine {
  abstract readonly id: EngineId;
  abstract readonly capabilities: EngineCapabilities;
  protected abstract readonly packageName: NativePackage;

  constructor(protected readonly options: NativeEngineOptions = {}) {}

  abstract devices(): Promise<string[]>;

  /** The GPU engine adds its "no GPU registered" check here. */
  protected abstract checkLoaded(native: NativeTf): EngineOutcome | null;

  /** Free memory to check against when the plan carries none. */
  protected abstract withFreeMemory(plan: BenchPlan): BenchPlan;

  async availability(): Promise<EngineOutcome | 'ok'> {
    const ready = await this.ready();
    return ready.ok ? 'ok' : ready.outcome;
  }

  async run(plan: BenchPlan, options?: RunOptions): Promise<RunResult> {
    const mismatch = planMismatch(plan, this.capabilities);
    if (mismatch) return mismatch;
    const ready = await this.ready();
    if (!ready.ok) return { ...ready.outcome, device: plan.device, dtype: plan.dtype, size: plan.size };
    const detail = `${this.packageName} ${ready.native.version}`;
    return runTfjsMatmul(ready.native.tf, this.withFreeMemory(plan), { backend: 'tensorflow', detail, sliceSec: NATIVE_SLICE_SEC }, options);
  }

  protected async ready(): Promise<NativeReady> {
    const load = loadNativeTf(this.packageName, this.options.searchPaths, this.options.searchPathsOnly);
    if (load.kind === 'not-installed') return { ok: false, outcome: this.outcome('not-installed', `Native TensorFlow.js (${this.packageName}) is not installed.`, this.installRemedy()) };
    if (load.kind === 'broken') return { ok: false, outcome: this.outcome('failed', load.message, `Reinstall it: ${this.installRemedy()}`) };
    const { native } = load;
    try {
      native.tf.enableProdMode?.();
      await serialized(() => useBackend(native.tf, 'tensorflow'));
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      return { ok: false, outcome: this.outcome('failed', `${this.packageName} loaded but its TensorFlow backend did not start: ${text.split('\n')[0]}`, this.installRemedy()) };
    }
    const problem = this.checkLoaded(native);
    return problem ? { ok: false, outcome: problem } : { ok: true, native };
  }

  protected installRemedy(): string {
    return `Run "Device Doctor: Install Native TensorFlow Backend", or \`npm install ${this.packageName}@${NATIVE_TF_VERSION}\` (it downloads libtensorflow, so it needs the internet).`;
  }

  protected outcome(status: EngineOutcome['status'], message: string, remedy: string | null): EngineOutcome {
    return { status, engine: this.id, device: null, dtype: null, size: null, message, remedy };
  }
}
