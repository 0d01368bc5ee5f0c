// The bounds a CPU benchmark is planned within: host memory (the matrices, the engine's own
// needs, a reserve) and time (warm-ups + repeats products of 2·n³ flops at a rate that is
// this CPU's peak or measured), with the refusals people read.
import * as assert from 'assert';
import { HOST_RESERVE_BYTES, IN_PROCESS_BASE_BYTES, IN_PROCESS_COPIES, TORCH_CHECK_BYTES, TORCH_PROCESS_BYTES, hostFootprint } from '../../src/core/bench/footprint';
import { cpuFloor, cpuPeak, extrapolationSlowdown, type CpuFacts } from '../../src/core/bench/peaks';
import { checkHostMemory, largestHostSize, matmulBytes } from '../../src/core/bench/plan';
import { sweepStopSec } from '../../src/core/bench/sweep';
import { DEFAULT_RUN_BUDGET_SEC, checkTime, estimateRunSeconds, formatDuration, largestSizeWithin } from '../../src/core/bench/timeBudget';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;
/** This machine: 2 cores of an AVX-512 EPYC. */
const epyc2: CpuFacts = { cores: 2, flags: ['avx2', 'fma', 'avx512f', 'avx512_bf16'], arch: 'x64', platform: 'linux' };
const cpuPlan = { engine: 'torch' as const, device: 'cpu', dtype: 'float32' as const, warmups: 1, repeats: 10 };

describe('bench budget: host memory of a CPU run', () => {
  it('torch needs its interpreter and its float64 checks on top of the matrices, and a reserve is left', () => {
    const n = 4096;
    const need = hostFootprint('torch', n, 'float32', 64);
    assert.strictEqual(need.matricesBytes, matmulBytes(n, 'float32'));
    assert.strictEqual(need.engineBytes, TORCH_PROCESS_BYTES + TORCH_CHECK_BYTES + 6 * 64 * 8 * n);
    assert.strictEqual(need.totalBytes, need.matricesBytes + need.engineBytes + HOST_RESERVE_BYTES);
    // Measured: 237 MB after import torch, then at most 118 MB above the matrices (n ≤ 4096).
    assert.ok(need.engineBytes >= 237e6 + 118e6);
  });

  it('an in-process engine needs copies of its inputs and product (measured: 2.75× the matrices at n = 2048)', () => {
    const need = hostFootprint('wasm', 2048, 'float32', 64);
    assert.strictEqual(need.engineBytes, IN_PROCESS_BASE_BYTES + IN_PROCESS_COPIES * 2048 * 2048 * 4);
    assert.ok(need.matricesBytes + need.engineBytes >= 2.75 * need.matricesBytes);
  });

  it('refuses a CPU size whose matrices fit but whose engine does not, saying where the memory goes', () => {
    const freeBytes = matmulBytes(8192, 'float32') + 600 * MIB; // 768 MiB of matrices fit, the rest does not
    const refusal = checkHostMemory({ ...cpuPlan, size: 8192, freeBytes, samples: 64 });
    assert.ok(refusal);
    assert.strictEqual(refusal.status, 'refused');
    assert.strictEqual(refusal.neededBytes, hostFootprint('torch', 8192, 'float32', 64).totalBytes);
    assert.strictEqual(refusal.freeBytes, freeBytes);
    assert.strictEqual(
      refusal.message,
      "Refused: n = 8192 float32 on the CPU needs 1.6 GiB of host memory: 768.0 MiB for the matrices (3 × n² × 4 bytes) + 408.0 MiB for the torch engine's Python process and float64 checks + 512.0 MiB left to the system; 1.3 GiB is free.",
    );
    const largest = largestHostSize('torch', 'float32', 64, freeBytes);
    assert.strictEqual(refusal.remedy, `Choose a size up to ${largest}, or close programs to free memory.`);
    assert.ok(largest > 6000 && hostFootprint('torch', largest, 'float32', 64).totalBytes <= freeBytes, `${largest}`);
    assert.ok(hostFootprint('torch', largest + 1, 'float32', 64).totalBytes > freeBytes);
  });

  it('says so when the engine alone does not fit, and checks only the CPU and only known free memory', () => {
    const refusal = checkHostMemory({ ...cpuPlan, size: 64, freeBytes: 100 * MIB, samples: 64 });
    assert.strictEqual(refusal?.remedy, 'Close programs to free memory: the torch engine alone needs more than is free.');
    assert.strictEqual(checkHostMemory({ ...cpuPlan, size: 64, freeBytes: null, samples: 64 }), null);
    assert.strictEqual(checkHostMemory({ ...cpuPlan, device: 'cuda:0', size: 8192, freeBytes: 1 * GIB, samples: 64 }), null);
    assert.strictEqual(checkHostMemory({ ...cpuPlan, size: 8192, freeBytes: 16 * GIB, samples: 64 }), null);
  });
});

describe('bench budget: time of a run', () => {
  it('is (warm-ups + repeats) × 2n³ flops at the rate', () => {
    assert.strictEqual(estimateRunSeconds({ size: 1000, warmups: 1, repeats: 9 }, 20), (10 * 2e9) / 20e9);
  });

  it('largestSizeWithin is the largest n that fits', () => {
    for (const [budget, gflops, products] of [[300, 70, 11], [300, 0.28, 11], [1, 1000, 1001], [0.5, 640, 2]]) {
      const n = largestSizeWithin(budget, gflops, products);
      assert.ok(estimateRunSeconds({ size: n, warmups: 0, repeats: products }, gflops) <= budget, `${n}`);
      assert.ok(estimateRunSeconds({ size: n + 1, warmups: 0, repeats: products }, gflops) > budget, `${n + 1}`);
    }
  });

  it('refuses n = 32768 on this 2-core CPU even at its peak, with the estimate, the budget and the size that fits', () => {
    const peak = cpuPeak('torch', 'float32', epyc2);
    assert.strictEqual(peak.gflops, 640);
    const refusal = checkTime({ ...cpuPlan, size: 32768 }, { ...peak, kind: 'peak' }, DEFAULT_RUN_BUDGET_SEC);
    assert.ok(refusal);
    assert.strictEqual(refusal.status, 'refused');
    assert.strictEqual(refusal.budgetSec, 300);
    assert.ok(Math.abs((refusal.estimatedSec ?? 0) - (11 * 2 * 32768 ** 3) / 640e9) < 1e-6);
    assert.strictEqual(
      refusal.message,
      "Refused: n = 32768 float32 on the CPU would take at least 20 minutes with the torch engine (11 products of 2·n³ flops, est. from 640 GFLOP/s, this CPU's peak for torch (2 cores, AVX-512)); the budget is 300 s.",
    );
    assert.strictEqual(refusal.remedy, `To finish within the budget, choose n ≤ ${largestSizeWithin(300, 640, 11)}, or fewer repeats.`);
  });

  it('a measured rate gives "about", and the size that fits at that rate', () => {
    const refusal = checkTime({ ...cpuPlan, size: 16384 }, { gflops: 68.4, kind: 'measured', basis: 'measured at n = 2048' }, 300);
    assert.match(refusal?.message ?? '', /^Refused: n = 16384 float32 on the CPU would take about 24 minutes with the torch engine \(11 products of 2·n³ flops, est\. from 68 GFLOP\/s, measured at n = 2048\); the budget is 300 s\.$/);
    assert.strictEqual(refusal?.remedy, `To finish within the budget, choose n ≤ ${largestSizeWithin(300, 68.4, 11)}, or fewer repeats.`);
    assert.strictEqual(checkTime({ ...cpuPlan, size: 4096 }, { gflops: 68.4, kind: 'measured', basis: '' }, 300), null);
  });

  it('formats durations for people', () => {
    assert.deepStrictEqual([0.2, 45, 119, 1210, 7100, 9800, 2e5].map(formatDuration), ['1 s', '45 s', '119 s', '20 minutes', '118 minutes', '2.7 hours', '2.3 days']);
  });
});

describe('bench budget: CPU peaks and floors', () => {
  it('the peak is generous: every core at 5 GHz with two FMAs of its widest vector; more for half precision', () => {
    assert.strictEqual(cpuPeak('torch', 'float32', { ...epyc2, flags: ['avx2', 'fma'] }).gflops, 2 * 5 * 32);
    assert.strictEqual(cpuPeak('torch', 'bfloat16', epyc2).gflops, 2 * 640);
    assert.strictEqual(cpuPeak('torch', 'bfloat16', { ...epyc2, flags: ['avx512f', 'amx_bf16'] }).gflops, 16 * 640);
    assert.ok(cpuPeak('torch', 'float32', { cores: 8, flags: [], arch: 'arm64', platform: 'darwin' }).gflops >= 4000, 'Apple AMX');
    assert.strictEqual(cpuPeak('torch', 'float32', { cores: null, flags: [], arch: 'x64', platform: 'win32' }).gflops, 5 * 64, 'unknown flags: AVX-512 assumed');
  });

  it('is above what was measured here, and the floor below it', () => {
    // Measured on this 2-core EPYC: torch 47–70 GFLOP/s float32, 100–145 bfloat16; wasm 4.7–28.5; js 0.25–0.77.
    const measured = { torch: { float32: [47, 70], bfloat16: [100, 145] }, wasm: { float32: [4.7, 28.5] }, js: { float32: [0.25, 0.77] } } as const;
    for (const [engine, byDtype] of Object.entries(measured)) {
      for (const [dtype, [slowest, fastest]] of Object.entries(byDtype)) {
        const id = engine as keyof typeof measured;
        assert.ok(cpuPeak(id, dtype as 'float32', epyc2).gflops > 2 * fastest, `${engine} ${dtype} peak`);
        assert.ok(cpuFloor(id, dtype as 'float32').gflops < slowest / 3, `${engine} ${dtype} floor`);
      }
    }
    assert.strictEqual(cpuPeak('js', 'float32', { ...epyc2, cores: 64 }).gflops, 20, 'js and wasm run one thread');
  });
});

describe('bench budget: extrapolating a measured rate', () => {
  it('in-process engines slow down past their caches, BLAS hardly: the slowdowns cover what was measured here', () => {
    // wasm 20 GFLOP/s at n = 1024, 6.7 at 2048; js 0.69 at 256, 0.28 at 1024; torch 70 at 1024, 47–67 at 2048–4096.
    assert.ok(extrapolationSlowdown('wasm') >= 20 / 6.7);
    assert.ok(extrapolationSlowdown('js') >= 0.69 / 0.28);
    assert.ok(extrapolationSlowdown('torch') >= 1 && extrapolationSlowdown('torch') <= 1.5);
  });
});

describe('bench budget: a sweep stops at what fits', () => {
  it("keeps the sweep's budget unless the next size's repeats would pass the run budget", () => {
    const sizes = [256, 512, 1024, 2048, 4096, 8192];
    assert.strictEqual(sweepStopSec(0.5, 300, 11, sizes), 0.5);
    assert.strictEqual(sweepStopSec(0.5, 300, 1001, sizes), 300 / (1001 * 8));
    assert.strictEqual(sweepStopSec(0.5, 300, 1001, [256]), 300 / 1001);
  });
});
