// What a CPU result really ran on, and the peak it is judged against, so that the figures
// and the diagnosis never contradict each other (issue 28 items 6 and 7):
// - threads: Debian's torch reports get_num_threads() == 1 while the system OpenBLAS it calls
//   multiplies on every core; bench.py names the BLAS's own pool ("OpenBLAS 2 threads"), and a
//   matmul runs on that pool, whatever torch.set_num_threads said;
// - peak: a clock estimate (cpuPeak.ts) that a result beats was too low (a VM reporting its
//   base clock), so the best this CPU was measured to reach replaces it, and no result is shown
//   above 100 %.
import type { CpuPeak } from './cpuPeak';
import type { BenchResult } from './model';

/** bench.py's detail: "torch 1.13.0, CPU, 1 thread, OpenBLAS 2 threads". */
export function torchThreads(r: Pick<BenchResult, 'detail'>): number | null {
  const match = /CPU, (\d+) threads?\b/.exec(r.detail ?? '');
  return match ? Number(match[1]) : null;
}

/** The BLAS's own thread pool as bench.py saw it, or null where none was seen. */
export function blasPool(r: Pick<BenchResult, 'detail'>): { library: string; threads: number } | null {
  const match = /CPU, \d+ threads?, (\w+) (\d+) threads?\b/.exec(r.detail ?? '');
  return match ? { library: match[1], threads: Number(match[2]) } : null;
}

/**
 * The threads a torch CPU matmul ran on: the BLAS pool where one was seen (the matmul is
 * its), else torch's own count, else the count the run asked for; null when nothing says.
 */
export function matmulThreads(r: Pick<BenchResult, 'detail' | 'threads'>): number | null {
  return blasPool(r)?.threads ?? torchThreads(r) ?? r.threads ?? null;
}

/** A rate above this multiple of N cores' share of the estimate was not N cores' (boost stays well under 1.5× a reported clock). */
const BEYOND_CORES = 1.5;

/** Measured scaling: whether a float32 rate is more than `threads` cores of this CPU reach, by the clock estimate. */
export function beyondCores(r: Pick<BenchResult, 'gflops' | 'dtype'>, estimate: CpuPeak | null | undefined, threads: number): boolean {
  if (!estimate || r.dtype === 'bfloat16') return false;
  return r.gflops > BEYOND_CORES * (estimate.float32 / estimate.cores) * threads;
}

/**
 * The cores a CPU result could use, which its share of the whole CPU's peak is: one for wasm
 * and js; for torch asked to run on N threads (the CPU-only default's series), the threads its
 * matmul really ran on (the BLAS pool, or all cores where its rate says more than N did the
 * work); torch on a count it chose itself is judged against the whole CPU, which the
 * one-thread diagnosis explains when it chose one.
 */
export function coresUsed(r: Pick<BenchResult, 'engine' | 'detail' | 'threads' | 'gflops' | 'dtype'>, estimate: CpuPeak | null | undefined, cores: number): number {
  if (r.engine === 'wasm' || r.engine === 'js') return 1;
  if (r.engine !== 'torch' || r.threads === undefined) return cores;
  const claimed = Math.max(1, Math.min(blasPool(r)?.threads ?? r.threads, cores));
  return beyondCores(r, estimate, claimed) ? cores : claimed;
}

function gflopsText(gflops: number): string {
  return gflops >= 100 ? String(Math.round(gflops)) : String(Number(gflops.toPrecision(3)));
}

/**
 * The CPU peak to judge this run's results against: the clock estimate, unless a result
 * beat its share of it; then the best measured rate (scaled to the whole CPU from the cores
 * it used), said as measured and naming the estimate it replaced.
 */
export function measuredCpuPeak(results: readonly BenchResult[], peak: CpuPeak | null): CpuPeak | null {
  if (!peak) return null;
  const raise = (bf16: boolean): { gflops: number; basis: string } | null => {
    const estimate = bf16 ? peak.bfloat16 : peak.float32;
    if (estimate === null) return null;
    let best: { whole: number; r: BenchResult } | null = null;
    for (const r of results) {
      if (r.device !== 'cpu' || (r.dtype === 'bfloat16') !== bf16) continue;
      const whole = (r.gflops * peak.cores) / coresUsed(r, peak, peak.cores);
      if (whole > estimate && (!best || whole > best.whole)) best = { whole, r };
    }
    if (!best) return null;
    const by = `${best.r.engine} at n = ${best.r.size}${coresUsed(best.r, peak, peak.cores) < peak.cores ? `, scaled to ${peak.cores} cores` : ''}`;
    return {
      gflops: best.whole,
      basis: `best measured here (${gflopsText(best.whole)} GFLOP/s, ${by}), above the ${gflopsText(estimate)} GFLOP/s estimate from ` +
        `${bf16 ? peak.bfloat16Basis : peak.basis}: the CPU ran faster than that clock`,
    };
  };
  const fp32 = raise(false);
  const bf16 = raise(true);
  if (!fp32 && !bf16) return peak;
  return {
    ...peak,
    float32: fp32?.gflops ?? peak.float32,
    basis: fp32?.basis ?? peak.basis,
    bfloat16: bf16?.gflops ?? peak.bfloat16,
    bfloat16Basis: bf16?.basis ?? peak.bfloat16Basis,
  };
}
