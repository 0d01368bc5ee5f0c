// Rates an engine cannot beat, and rates no engine falls below, on the CPU, in GFLOP/s: the
// bounds of the time estimate (timeBudget.ts). A run within the budget even at the floor
// goes ahead unmeasured; any other is decided by products measured on the engine
// (worker/bench/calibrate.ts), and at the peak when nothing could be measured or for a
// sweep (which measures itself): over the budget even at the peak, it cannot fit.
//
// The peak is generous on purpose (it must never refuse a run that would fit): every
// logical core at 5 GHz issuing two full-width FMAs per cycle, ×2 for half precision
// (AVX512-BF16/FP16 dot products), ×16 with AMX tiles; Apple silicon gets its AMX
// coprocessor's 4 TFLOP/s. wasm and js run on one thread here (tfjs-backend-wasm has no
// threads under Node.js). Measured on a 2-core AVX-512 EPYC (peak 640 GFLOP/s): torch 1.13
// float32 47–70 GFLOP/s at n = 1024…4096, bfloat16 100–145; wasm 20–28 up to n = 1536 and
// 4.7–6.7 from n = 2048 (peak 80); js 0.69–0.77 at n ≤ 256, 0.25–0.45 from n = 512 (peak 20).
import type { Dtype, EngineId } from './model';

/** What the device report knows about the host's CPU. */
export interface CpuFacts {
  /** Logical cores; null: unknown. */
  cores: number | null;
  /** /proc/cpuinfo flags (avx2, avx512f, amx_bf16, …); empty where the platform does not list them. */
  flags: readonly string[];
  arch: string;
  platform: string;
}

export interface RateBound {
  gflops: number;
  /** For the message, e.g. "this CPU's peak for torch: 2 cores with AVX-512". */
  basis: string;
}

const PEAK_GHZ = 5;
/** Apple's AMX through Accelerate, which PyTorch uses on macOS: above any NEON figure. */
const APPLE_AMX_GFLOPS = 4000;
/** One thread: scalar JavaScript (the js engine), and 128-bit SIMD without FMA (wasm). */
const SINGLE_THREAD_PEAK: Partial<Record<EngineId, RateBound>> = {
  js: { gflops: PEAK_GHZ * 4, basis: 'the peak of one thread of JavaScript' },
  wasm: { gflops: PEAK_GHZ * 16, basis: 'the peak of one WebAssembly SIMD thread' },
};

/** float32 flops per cycle per core: two FMA units of the widest vector the flags show. */
function flopsPerCycle(cpu: CpuFacts): { flops: number; isa: string } {
  const has = (flag: string) => cpu.flags.includes(flag);
  if (cpu.arch === 'x64' || cpu.arch === 'ia32') {
    if (has('avx512f') || cpu.flags.length === 0) return { flops: 64, isa: has('avx512f') ? 'AVX-512' : 'unknown SIMD' };
    if (has('avx2') && has('fma')) return { flops: 32, isa: 'AVX2' };
    if (has('avx')) return { flops: 16, isa: 'AVX' };
    return { flops: 8, isa: 'SSE' };
  }
  return { flops: 32, isa: cpu.arch };
}

/** The fastest an engine could multiply `dtype` matrices on this CPU. */
export function cpuPeak(engine: EngineId, dtype: Dtype, cpu: CpuFacts): RateBound {
  const single = SINGLE_THREAD_PEAK[engine];
  if (single) return single;
  const cores = cpu.cores !== null && cpu.cores > 0 ? cpu.cores : 1;
  const { flops, isa } = flopsPerCycle(cpu);
  const amx = cpu.flags.includes('amx_bf16') || cpu.flags.includes('amx_fp16');
  const half = dtype === 'float32' ? 1 : amx ? 16 : 2;
  let gflops = cores * PEAK_GHZ * flops * half;
  if (cpu.platform === 'darwin' && cpu.arch === 'arm64') gflops = Math.max(gflops, APPLE_AMX_GFLOPS * half);
  return { gflops, basis: `this CPU's peak for ${engine} (${cores} core${cores === 1 ? '' : 's'}, ${isa}${amx && half > 1 ? ' with AMX' : ''})` };
}

/**
 * Slower than any machine Device Doctor runs on: the reference BLAS of an old laptop core,
 * half precision emulated in software, the js engine under a debugger.
 */
export function cpuFloor(engine: EngineId, dtype: Dtype): RateBound {
  const gflops = engine === 'js' ? 0.05 : engine === 'wasm' ? 0.5 : dtype === 'float32' ? 1 : 0.1;
  return { gflops, basis: `a floor of ${gflops} GFLOP/s for ${engine}` };
}

/**
 * How much slower than its calibration product an engine may run a product more than twice
 * its order: the in-process engines fall off a cliff once B leaves the caches (measured
 * here: wasm 20 GFLOP/s at n = 1024, 6.7 at 2048, 6.3 at 3072; js 0.69 at 256, 0.28–0.45
 * from 512); BLAS (torch, native TensorFlow) blocks for its caches and stays flat (torch
 * 70 GFLOP/s at n = 1024, 67 at 4096), so a small margin only.
 */
export function extrapolationSlowdown(engine: EngineId): number {
  return engine === 'wasm' ? 4 : engine === 'js' ? 3 : 1.25;
}
