// Percent of peak: the CPU's peak per microarchitecture from /proc/cpuinfo, the datasheet
// table of accelerators, and the diagnoses a result far below its peak gets.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { cpuDatasheetPeak, parseCpuPeakFields, type CpuPeakFacts } from '../../src/core/bench/cpuPeak';
import { gpuPeakByName } from '../../src/core/bench/gpuPeaks';
import { diagnoseResults, isNoisy, peakOf, withDiagnosis, type PeakFacts } from '../../src/core/bench/diagnosis';
import { buildRun } from '../../src/core/bench/compare';
import type { BenchResult, Dtype, EngineId } from '../../src/core/bench/model';
import { makeBenchResult } from '../../src/core/bench/result';
import { parseProcCpuinfo } from '../../src/core/devices/host';

const recorded = (file: string) => fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'probes', 'cpuinfo', file), 'utf8');

function factsOf(file: string, arch = 'x64'): CpuPeakFacts {
  const text = recorded(file);
  return { ...parseCpuPeakFields(text), arch, platform: 'linux', flags: parseProcCpuinfo(text).flags };
}

function result(engine: EngineId, device: string, size: number, gflops: number, dtype: Dtype = 'float32', detail: string | null = null, spread = 0): BenchResult {
  const t = (2 * size ** 3) / (gflops * 1e9);
  return makeBenchResult({ plan: { engine, device, dtype, size }, timesSec: [t * (1 - spread), t, t, t * (1 + spread)], maxRelError: 1e-6, checkedEntries: 64, detail });
}

describe('bench peaks: the CPU', () => {
  it('the 2-core EPYC Zen 4 this was built on: 2 × max clock × 32 FLOP/cycle fp32, twice that in bf16 (AVX512_BF16)', () => {
    const facts = factsOf('x86-epyc-zen4-kvm.txt');
    assert.deepStrictEqual([facts.vendor, facts.family, facts.model, facts.physicalCores], ['AuthenticAMD', 25, 17, 2]);
    const peak = cpuDatasheetPeak(facts)!;
    const expected = 2 * (facts.maxMhz! / 1000) * 32;
    assert.ok(Math.abs(peak.float32 - expected) / expected < 0.15, `${peak.float32} vs ${expected}`);
    assert.ok(peak.float32 > 100 && peak.float32 < 400, `a 2-core Zen 4 at 1.6–6 GHz: ${peak.float32}`);
    assert.strictEqual(peak.bfloat16, 2 * peak.float32);
    assert.match(peak.basis, /^2 cores × \d\.\d\d GHz \(reported clock, which boost may exceed\) × 32 FLOP\/cycle \(AMD Zen 4: AVX-512 on 2 × 256-bit FMA\)$/);
  });

  it('counts physical cores; Zen 3 has no bf16 arithmetic; a Sapphire Rapids with AMX gets the tile rate; a Neoverse N1 two 128-bit FMA units', () => {
    const zen3 = cpuDatasheetPeak(factsOf('x86-epyc-zen3.txt'))!;
    assert.strictEqual(zen3.cores, 1, 'its two logical processors are SMT siblings of core 0: one set of FMA units');
    assert.strictEqual(zen3.float32, 1 * 2.45 * 32);
    assert.strictEqual(zen3.bfloat16, null);
    const spr = cpuDatasheetPeak(factsOf('x86-xeon-amx.txt'))!;
    assert.strictEqual(spr.float32, 2 * 2.1 * 64);
    assert.strictEqual(spr.bfloat16, 2 * 2.1 * 2048);
    const n1 = factsOf('aarch64-neoverse-n1.txt', 'arm64');
    assert.strictEqual(n1.armPart, '0x41:0xd0c');
    assert.strictEqual(cpuDatasheetPeak({ ...n1, maxMhz: 3000 })!.float32, 4 * 3 * 16);
    assert.strictEqual(cpuDatasheetPeak(n1), null, 'no clock in its /proc/cpuinfo and no sysfs given: no peak rather than a guess');
    assert.strictEqual(cpuDatasheetPeak({ ...n1, platform: 'darwin', maxMhz: 3000 }), null, 'Apple silicon: no published AMX rate');
  });
});

describe('bench peaks: accelerators', () => {
  it('finds the datasheet peaks by the names torch and nvidia-smi print', () => {
    assert.strictEqual(gpuPeakByName('NVIDIA H100 80GB HBM3')?.name, 'NVIDIA H100 SXM');
    assert.strictEqual(gpuPeakByName('NVIDIA H100 PCIe')?.tf32, 378);
    assert.strictEqual(gpuPeakByName('NVIDIA H200')?.bandwidthGBs, 4800);
    assert.strictEqual(gpuPeakByName('NVIDIA H200')?.bf16, 989.5, 'the SXM part, as torch names it');
    assert.strictEqual(gpuPeakByName('NVIDIA H200 NVL')?.bf16, 835.5, 'the 600 W NVL part is not the SXM one');
    assert.strictEqual(gpuPeakByName('NVIDIA A100-SXM4-40GB')?.bandwidthGBs, 1555);
    assert.strictEqual(gpuPeakByName('NVIDIA A10')?.name, 'NVIDIA A10', 'A10 is not A100');
    assert.strictEqual(gpuPeakByName('NVIDIA GeForce RTX 4090')?.bf16, 165.2);
    assert.strictEqual(gpuPeakByName('Tesla V100-SXM2-16GB')?.tf32, null);
    assert.strictEqual(gpuPeakByName('AMD Instinct MI300X')?.bf16, 1307.4);
    assert.strictEqual(gpuPeakByName('Apple M2 Max')?.fp32, 13.6);
    assert.strictEqual(gpuPeakByName('Apple M1')?.bf16, null);
    assert.strictEqual(gpuPeakByName('Some Future GPU'), null);
  });
});

const ZEN4: PeakFacts = { cpu: cpuDatasheetPeak(factsOf('x86-epyc-zen4-kvm.txt')), cpuThreads: 2, deviceNames: { 'cuda:0': 'NVIDIA H100 80GB HBM3' } };

describe('bench peaks: diagnosis', () => {
  it('percent of peak per result, the one-thread engines against one core', () => {
    const peak = ZEN4.cpu!.float32;
    assert.ok(Math.abs(peakOf(result('torch', 'cpu', 1024, peak / 2), ZEN4)!.percent - 50) < 1e-9);
    assert.ok(Math.abs(peakOf(result('wasm', 'cpu', 1024, peak / 4), ZEN4)!.percent - 50) < 1e-9);
    const tf32 = peakOf(result('torch', 'cuda:0', 4096, 247_350, 'float32', 'torch 2.4.0, NVIDIA H100 80GB HBM3, CUDA 12.1, TF32 allowed'), ZEN4)!;
    assert.ok(Math.abs(tf32.percent - 50) < 1e-9, 'with TF32 allowed the tf32 peak is the one');
    assert.match(tf32.basis, /^tf32 dense peak of the NVIDIA H100 SXM/);
    assert.strictEqual(peakOf(result('torch', 'cuda:1', 4096, 1000), ZEN4), null, 'an unnamed device has no peak');
  });

  it('a CPU under 25 % of its peak: check the BLAS and the threads; one thread of two is said', () => {
    const slow = result('torch', 'cpu', 1024, 0.2 * ZEN4.cpu!.float32, 'float32', 'torch 1.13.0a0, CPU, 1 thread');
    const problems = diagnoseResults([slow], ZEN4);
    assert.deepStrictEqual(problems.map((p) => [p.status, p.code]), [['below-peak', 'one-thread'], ['below-peak', 'cpu-blas']]);
    assert.match(problems[0]!.message, /1 thread of this CPU's 2/);
    assert.match(problems[0]!.remedy!, /torch\.set_num_threads\(2\)/);
    assert.match(problems[1]!.message, /reached 20 % of the float32 peak/);
    assert.match(problems[1]!.remedy!, /torch\.__config__\.show\(\)/);
    const fine = result('torch', 'cpu', 1024, 0.6 * ZEN4.cpu!.float32, 'float32', 'torch 2.4.0, CPU, 2 threads');
    assert.deepStrictEqual(diagnoseResults([fine], ZEN4), []);
    assert.deepStrictEqual(diagnoseResults([result('torch', 'cpu', 256, 1, 'float32', 'torch 2.4.0, CPU, 2 threads')], ZEN4), [], 'small products are overhead-bound');
  });

  it('torch asked to run on one thread (the CPU-only default\'s baseline) is judged against one core, and both thread counts are diagnosed', () => {
    const peak = ZEN4.cpu!.float32;
    const asked = (threads: number, gflops: number) => makeBenchResult({
      plan: { engine: 'torch', device: 'cpu', dtype: 'float32', size: 1024, threads },
      timesSec: [(2 * 1024 ** 3) / (gflops * 1e9)], maxRelError: 1e-6, checkedEntries: 64, detail: `torch 2.4.0, CPU, ${threads} thread${threads === 1 ? '' : 's'}`,
    });
    const one = peakOf(asked(1, peak / 4), ZEN4)!;
    assert.ok(Math.abs(one.percent - 50) < 1e-9, `a quarter of the CPU's peak is half of one core's: ${one.percent}`);
    assert.match(one.basis, /^float32 peak \(an estimate\) of one of 2 cores/);
    assert.ok(Math.abs(peakOf(asked(2, peak / 4), ZEN4)!.percent - 25) < 1e-9, 'all threads: the whole CPU');
    // A deliberate single thread is not "torch chose one thread": no one-thread advice for it,
    // but each series is judged: both are far below their peaks here.
    const problems = diagnoseResults([asked(2, 0.1 * peak), asked(1, 0.05 * peak)], ZEN4);
    assert.deepStrictEqual(problems.map((p) => p.code), ['cpu-blas', 'cpu-blas']);
  });

  it('CUDA float32 with TF32 off: the allow_tf32 advice; with TF32 on, none', () => {
    const off = result('torch', 'cuda:0', 8192, 50_000, 'float32', 'torch 2.4.0, NVIDIA H100 80GB HBM3, CUDA 12.1');
    const [problem] = diagnoseResults([off], ZEN4);
    assert.strictEqual(problem?.code, 'cuda-tf32-off');
    assert.match(problem!.remedy!, /allow_tf32 = True.*set_float32_matmul_precision\("high"\)/);
    const on = result('torch', 'cuda:0', 8192, 400_000, 'float32', 'torch 2.4.0, NVIDIA H100 80GB HBM3, CUDA 12.1, TF32 allowed');
    assert.deepStrictEqual(diagnoseResults([on], ZEN4), []);
  });

  it('marks a result noisy when its IQR passes 10 % of its median, and withDiagnosis carries peak and mark', () => {
    assert.strictEqual(isNoisy(result('torch', 'cpu', 1024, 50, 'float32', null, 0.5)), true);
    assert.strictEqual(isNoisy(result('torch', 'cpu', 1024, 50, 'float32', null, 0.05)), false);
    const run = withDiagnosis(buildRun([{ status: 'ok', result: result('torch', 'cpu', 1024, 100, 'float32', 'torch 2.4.0, CPU, 2 threads', 0.5) }]), ZEN4);
    const [r] = run.results;
    assert.deepStrictEqual([r!.noisy, Math.round(r!.percentOfPeak!), r!.peakGflops], [true, Math.round((100 * 100) / ZEN4.cpu!.float32), ZEN4.cpu!.float32]);
  });
});
