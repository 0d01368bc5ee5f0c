// Benchmarks as a diagnosis: each result against its device's peak (cpuPeak.ts for the CPU,
// gpuPeaks.ts for accelerators), marked noisy when its repeats disagree, and the problems
// that explain a result far below the peak: a slow BLAS, one thread, TF32 left off.
import { beyondCores, blasPool, coresUsed, matmulThreads, measuredCpuPeak } from './cpuJudgement';
import type { CpuPeak } from './cpuPeak';
import { threadsText } from './cpuThreads';
import { gpuPeakByName, type GpuPeak } from './gpuPeaks';
import type { BenchResult, BenchRun, EngineOutcome } from './model';
import { percentText } from './numberText';

/** What the peaks of a run's devices come from (the worker gathers it from the device report and /proc/cpuinfo). */
export interface PeakFacts {
  cpu: CpuPeak | null;
  /** Logical cores: what torch's thread count is compared with. */
  cpuThreads: number | null;
  /** Accelerator names by torch device ("cuda:0" → "NVIDIA H100 80GB HBM3"). */
  deviceNames: Readonly<Record<string, string>>;
  /** The clock estimate before a measured rate replaced it (withDiagnosis); absent: `cpu` is it. */
  cpuEstimate?: CpuPeak | null;
  /** The interpreter the benchmark ran, for the commands a remedy gives (not a bare `python`). */
  python?: string | null;
}

export interface ResultPeak {
  gflops: number;
  /** 100 × result / peak. */
  percent: number;
  /** "float32 peak of 2 cores × 2.60 GHz × 32 FLOP/cycle (AMD Zen 4 …)", "tf32 peak of the NVIDIA H100 SXM (494.7 TFLOP/s)". */
  basis: string;
}

/** A result is noisy when its IQR exceeds this fraction of its median. */
export const NOISY_IQR_FRACTION = 0.1;
/** A CPU result below this percent of the peak gets the BLAS and threads diagnosis. */
export const SLOW_CPU_PERCENT = 25;
/** Smaller products are bound by call overhead, not arithmetic: no below-peak diagnosis for them. */
export const DIAGNOSED_FROM_SIZE = 512;

export function isNoisy(r: Pick<BenchResult, 'iqrSec' | 'medianSec'>): boolean {
  return r.medianSec > 0 && r.iqrSec > NOISY_IQR_FRACTION * r.medianSec;
}

/** bench.py's detail says "TF32 allowed" when torch.backends.cuda.matmul.allow_tf32 is on. */
function tf32Allowed(r: BenchResult): boolean {
  return /TF32 allowed/.test(r.detail ?? '');
}

export { torchThreads } from './cpuJudgement';

function gpuPeakOf(r: BenchResult, gpu: GpuPeak): { tflops: number; kind: string } {
  if (r.dtype === 'bfloat16' && gpu.bf16 !== null) return { tflops: gpu.bf16, kind: 'bf16' };
  if (r.dtype === 'float16' && gpu.fp16 !== null) return { tflops: gpu.fp16, kind: 'fp16' };
  // A part without tf32 units (V100, T4) runs the tf32 mode as plain fp32.
  if (r.dtype === 'tf32' && gpu.tf32 !== null) return { tflops: gpu.tf32, kind: 'tf32' };
  if (r.dtype === 'float32' && tf32Allowed(r) && gpu.tf32 !== null) return { tflops: gpu.tf32, kind: 'tf32' };
  return { tflops: gpu.fp32, kind: 'fp32' };
}

/** The peak a result is judged against, or null when its device's peak is unknown. */
export function peakOf(r: BenchResult, facts: PeakFacts): ResultPeak | null {
  let gflops: number;
  let basis: string;
  if (r.device === 'cpu') {
    if (!facts.cpu) return null;
    const bf16 = r.dtype === 'bfloat16' && facts.cpu.bfloat16 !== null;
    const whole = bf16 ? facts.cpu.bfloat16! : facts.cpu.float32;
    // wasm and js run on one thread, torch on the threads its matmul really used (its BLAS's
    // pool where bench.py saw one): those cores' share is their ceiling.
    const cores = facts.cpu.cores;
    const used = coresUsed(r, facts.cpuEstimate ?? facts.cpu, cores);
    gflops = (whole * used) / cores;
    const share = used === cores ? '' : used === 1 ? 'one of ' : `${used} of `;
    const basisText = bf16 ? facts.cpu.bfloat16Basis : facts.cpu.basis;
    const measured = basisText?.startsWith('best measured') ?? false;
    basis = measured
      ? `${bf16 ? 'bfloat16' : 'float32'} peak${share ? ` (${share}${cores} cores' share)` : ''}: the ${basisText}`
      : `${bf16 ? 'bfloat16' : 'float32'} peak (an estimate) of ${share}${basisText}`;
  } else {
    const name = facts.deviceNames[r.device];
    const gpu = name ? gpuPeakByName(name) : null;
    if (!gpu) return null;
    const { tflops, kind } = gpuPeakOf(r, gpu);
    gflops = tflops * 1000;
    basis = `${kind} dense peak of the ${gpu.name} (${tflops} TFLOP/s, datasheet)`;
  }
  // Never above 100 %: withDiagnosis raises a beaten CPU estimate to the measured rate, and a
  // GPU datasheet figure beaten by a result says only that the part is not the one named.
  return { gflops, percent: Math.min(100, (100 * r.gflops) / gflops), basis };
}

function where(r: BenchResult) {
  return { engine: r.engine, device: r.device, dtype: r.dtype, size: r.size };
}

function gflopsText(gflops: number): string {
  return gflops >= 100 ? String(Math.round(gflops)) : String(Number(gflops.toPrecision(3)));
}

/** The largest product of each engine/device/dtype: the one closest to the peak, the one diagnosed. */
function largestOfEachSeries(results: readonly BenchResult[]): BenchResult[] {
  const largest = new Map<string, BenchResult>();
  for (const r of results) {
    // torch on all threads and on one are two series (the CPU-only default), each judged.
    const key = `${r.engine}|${r.device}|${r.threads ?? ''}|${r.dtype}`;
    const seen = largest.get(key);
    if (!seen || r.size > seen.size) largest.set(key, r);
  }
  return [...largest.values()];
}

/** Why results are far below their peak, as problems (status below-peak) with what to do. */
export function diagnoseResults(results: readonly BenchResult[], facts: PeakFacts): EngineOutcome[] {
  const problems: EngineOutcome[] = [];
  for (const r of largestOfEachSeries(results)) {
    if (r.engine !== 'torch') continue;
    problems.push(...threadProblems(r, facts));
    const peak = r.size >= DIAGNOSED_FROM_SIZE ? peakOf(r, facts) : null;
    if (!peak) continue;
    if (r.device === 'cpu' && peak.percent < SLOW_CPU_PERCENT) {
      problems.push({
        status: 'below-peak', code: 'cpu-blas', ...where(r),
        message: `torch on the CPU reached ${percentText(peak.percent)} of the ${peak.basis}: ${gflopsText(r.gflops)} of ${gflopsText(peak.gflops)} GFLOP/s at n = ${r.size}.`,
        remedy: `Check which BLAS this PyTorch uses: ${commandPath(facts.python)} -c "import torch; print(torch.__config__.show())" (BLAS_INFO; a reference BLAS runs about 20× slower than MKL or OpenBLAS, which pip's torch wheels bundle), and its thread count (torch.__config__.parallel_info()); other load on the machine lowers it too.`,
      });
    }
    const gpu = r.device.startsWith('cuda') ? gpuPeakByName(facts.deviceNames[r.device] ?? '') : null;
    if (gpu && r.dtype === 'float32' && !tf32Allowed(r) && gpu.tf32 !== null && gpu.tf32 > 1.5 * gpu.fp32) {
      problems.push({
        status: 'below-peak', code: 'cuda-tf32-off', ...where(r),
        message: `float32 matmuls on ${r.device} run without TF32: ${gflopsText(r.gflops)} GFLOP/s, ${percentText((100 * r.gflops) / (gpu.tf32 * 1000))} of the ${gpu.name}'s tf32 peak of ${gpu.tf32} TFLOP/s (fp32 without tensor cores: ${gpu.fp32}).`,
        remedy: 'Allow TF32 where float32 precision is not needed (most training): torch.backends.cuda.matmul.allow_tf32 = True, or torch.set_float32_matmul_precision("high").',
      });
    }
  }
  return problems;
}

/** The interpreter as a shell word: quoted where it has a space; `python` only when unknown. */
function commandPath(python: string | null | undefined): string {
  if (!python) return 'python';
  return /[\s"'$`\\]/.test(python) ? `"${python.replace(/(["$`\\])/g, '\\$1')}"` : python;
}

/**
 * Thread problems of a torch CPU result, judged by what its matmul ran on: one thread where the
 * BLAS has no pool of its own (Debian's torch says 1 while OpenBLAS runs on every core, which is
 * no problem), and a thread count asked of torch that its BLAS did not follow.
 */
function threadProblems(r: BenchResult, facts: PeakFacts): EngineOutcome[] {
  if (r.device !== 'cpu' || facts.cpuThreads === null || facts.cpuThreads <= 1) return [];
  const pool = blasPool(r);
  // Measured scaling: a rate no single core reaches (half again its share of the peak, boost
  // included) was not one thread's, whatever get_num_threads() says.
  const beyond = (threads: number) => beyondCores(r, facts.cpuEstimate ?? facts.cpu, threads);
  // Not for a run that asked for one thread (the default's baseline): that is the point of it.
  if (matmulThreads(r) === 1 && r.threads === undefined && !beyond(1)) {
    return [{
      status: 'below-peak', code: 'one-thread', ...where(r),
      message: `torch multiplied on 1 thread of this CPU's ${facts.cpuThreads} (torch.get_num_threads() is 1${pool ? `, ${pool.library} 1 thread` : ''}), so it can reach at most 1/${facts.cpuThreads} of the CPU's peak.`,
      remedy: `Call torch.set_num_threads(${facts.cpuThreads}), or look for OMP_NUM_THREADS=1 / MKL_NUM_THREADS=1 in the environment (a BLAS such as OpenBLAS also reads OPENBLAS_NUM_THREADS).`,
    }];
  }
  const ignored = r.threads !== undefined && (pool ? pool.threads !== r.threads : r.threads < facts.cpuThreads && beyond(r.threads));
  if (r.threads !== undefined && ignored) {
    const seen = pool ? `${pool.library} multiplied on ${threadsText(pool.threads)}` : `it reached ${gflopsText(r.gflops)} GFLOP/s, more than ${threadsText(r.threads)} of this CPU can`;
    return [{
      status: 'below-peak', code: 'blas-threads', ...where(r),
      message: `torch.set_num_threads(${r.threads}) did not reach this PyTorch's BLAS: ${seen}, so this "${threadsText(r.threads)}" result is not a ${r.threads}-thread figure and the thread comparison measures nothing.`,
      remedy: `This PyTorch calls a system BLAS${pool ? ` (${pool.library})` : ''} that keeps its own threads: set OPENBLAS_NUM_THREADS=${r.threads} (MKL: MKL_NUM_THREADS) before ${commandPath(facts.python)} starts to run on ${threadsText(r.threads)}.`,
    }];
  }
  return [];
}

/** The run with each result's peak and noise mark, and the below-peak problems after the others. */
export function withDiagnosis<R extends BenchRun>(run: R, given: PeakFacts): R {
  // A CPU estimate that a result beat is replaced by the measured rate (cpuJudgement.ts).
  const facts = { ...given, cpu: measuredCpuPeak(run.results, given.cpu), cpuEstimate: given.cpu };
  const results = run.results.map((r) => {
    const peak = peakOf(r, facts);
    return { ...r, peakGflops: peak?.gflops ?? null, percentOfPeak: peak?.percent ?? null, peakBasis: peak?.basis ?? null, noisy: isNoisy(r) };
  });
  return { ...run, results, problems: [...run.problems, ...diagnoseResults(results, facts)] };
}
