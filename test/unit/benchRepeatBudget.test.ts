// Issue 14's three timing additions, on the pure side: the torch engine's repeats adapt to a
// time budget (plans, estimates, captions), the tf32 mode (CUDA only, its threshold and
// peak), and the device-memory copy (2 × bytes / time, % of the datasheet bandwidth).
import * as assert from 'assert';
import { parseArgs } from '../../src/cli/args';
import { errorThreshold } from '../../src/core/bench/correctness';
import { peakOf } from '../../src/core/bench/diagnosis';
import { copyGbPerSec, withCopyPeaks } from '../../src/core/bench/memoryBandwidth';
import { DEFAULT_REPEATS, planBenchmark, type EngineCapabilities } from '../../src/core/bench/plan';
import { makeBenchResult } from '../../src/core/bench/result';
import { AUTORANGE_MIN_BLOCKS, defaultRepeatBudgetSec, samplingText } from '../../src/core/bench/repeatBudget';
import { estimateRunSeconds } from '../../src/core/bench/timeBudget';
import { DTYPES, type TransferResult } from '../../src/core/bench/model';
import { transferFromLine, runFromLine } from '../../src/worker/engines/torch/lines';
import { dtypePicks } from '../../src/vscode/benchmark/runBenchmarkPicks';

const torchCaps: EngineCapabilities = { engine: 'torch', dtypes: DTYPES, devices: ['cpu', /^cuda(:\d+)?$/, 'mps'] };
const wasmCaps: EngineCapabilities = { engine: 'wasm', dtypes: ['float32'], devices: ['cpu'] };

function planOf(request: Parameters<typeof planBenchmark>[0], caps = torchCaps) {
  const planned = planBenchmark(request, caps);
  assert.strictEqual(planned.kind, 'plan', JSON.stringify(planned));
  return (planned as { plan: import('../../src/core/bench/plan').BenchPlan }).plan;
}

describe('bench repeats: a time budget (blocked autorange)', () => {
  it('torch adapts to a budget by size unless a fixed count is asked for; other engines keep fixed repeats', () => {
    assert.deepStrictEqual([256, 1024, 2048, 4096, 8192].map(defaultRepeatBudgetSec), [1, 1, 2, 2, 4]);
    const adaptive = planOf({ engine: 'torch', device: 'cpu', size: 1024 });
    assert.strictEqual(adaptive.repeatBudgetSec, 1);
    assert.strictEqual(adaptive.repeats, AUTORANGE_MIN_BLOCKS);
    assert.strictEqual(planOf({ engine: 'torch', device: 'cpu', size: 1024, repeatBudgetSec: 7 }).repeatBudgetSec, 7);
    const fixed = planOf({ engine: 'torch', device: 'cpu', size: 1024, repeats: 3 });
    assert.strictEqual(fixed.repeats, 3);
    assert.strictEqual(fixed.repeatBudgetSec, undefined);
    const wasm = planOf({ engine: 'wasm', device: 'cpu', size: 64 }, wasmCaps);
    assert.strictEqual(wasm.repeats, DEFAULT_REPEATS);
    assert.strictEqual(wasm.repeatBudgetSec, undefined);
  });

  it('refuses a budget out of range, and a budget given with a fixed count', () => {
    for (const repeatBudgetSec of [0, 0.01, 601, NaN]) {
      const planned = planBenchmark({ engine: 'torch', device: 'cpu', size: 64, repeatBudgetSec }, torchCaps);
      assert.strictEqual(planned.kind, 'invalid');
      assert.match((planned as { message: string }).message, /repeat time budget must be from 0\.1 to 600 seconds/);
    }
    const both = planBenchmark({ engine: 'torch', device: 'cpu', size: 64, repeats: 5, repeatBudgetSec: 2 }, torchCaps);
    assert.match((both as { message: string }).message, /either a fixed number of repeats or a repeat time budget, not both/);
  });

  it('estimates an adaptive run as its fewest samples plus its budget, so the run budget check still bounds it', () => {
    // 2·1000³ flops at 1 GFLOP/s is 2 s a product: 1 warm-up + 5 blocks = 12 s, plus the 3 s budget.
    assert.strictEqual(estimateRunSeconds({ size: 1000, warmups: 1, repeats: 5, repeatBudgetSec: 3 }, 1), 15);
    assert.strictEqual(estimateRunSeconds({ size: 1000, warmups: 1, repeats: 5 }, 1), 12);
  });

  it('carries the products per sample from bench.py into the result, and rejects a nonsense count', () => {
    const plan = planOf({ engine: 'torch', device: 'cpu', size: 64 });
    const line = { type: 'result' as const, dtype: 'float32' as const, size: 64, status: 'ok' as const, timesSec: [1e-5, 2e-5, 3e-5, 2e-5, 2e-5], productsPerSample: 800, maxRelError: 1e-7, checksumRelError: 1e-8, checkedEntries: 64 };
    const run = runFromLine(plan, line);
    assert.strictEqual(run.status, 'ok');
    if (run.status !== 'ok') return;
    assert.strictEqual(run.result.productsPerSample, 800);
    assert.strictEqual(run.result.repeatBudgetSec, 1);
    assert.strictEqual(run.result.repeats, 5);
    assert.strictEqual(runFromLine(plan, { ...line, productsPerSample: 0 }).status, 'failed');
    assert.strictEqual(runFromLine(plan, { ...line, productsPerSample: 1.5 }).status, 'failed');
  });

  it('says in the caption how the times were taken: fixed repeats, blocks, or both', () => {
    const fixed = { repeats: 10 };
    const blocks = { repeats: 6, productsPerSample: 40, repeatBudgetSec: 1 };
    assert.strictEqual(samplingText([fixed]), 'median of 10 timed repeats');
    assert.strictEqual(samplingText([blocks, { repeats: 5, productsPerSample: 1, repeatBudgetSec: 4 }]), 'median of 6, 5 samples (blocks of 1–40 products timed together, about 1, 4 s per size)');
    assert.strictEqual(samplingText([fixed, blocks]), 'median of 10 timed repeats; median of 6 samples (blocks of 40 products timed together, about 1 s per size)');
  });

  it('--repeat-budget reaches the request; --repeats with it is a usage error', () => {
    const parsed = parseArgs(['bench', '--repeat-budget', '3']);
    assert.strictEqual(parsed.command, 'bench');
    assert.strictEqual((parsed as { options: { repeatBudgetSec?: number } }).options.repeatBudgetSec, 3);
    const both = parseArgs(['bench', '--repeats', '5', '--repeat-budget', '3']) as { command: string; message?: string };
    assert.strictEqual(both.command, 'usage-error');
    assert.strictEqual(both.message, 'use either --repeats (a fixed count) or --repeat-budget (seconds), not both');
  });
});

describe('bench dtype tf32: float32 with TensorFloat-32, CUDA only', () => {
  it('plans on CUDA and is refused elsewhere with the reason', () => {
    assert.strictEqual(planOf({ engine: 'torch', device: 'cuda:0', size: 256, dtype: 'tf32' }).neededBytes, 3 * 256 * 256 * 4);
    for (const device of ['cpu', 'mps']) {
      const planned = planBenchmark({ engine: 'torch', device, size: 256, dtype: 'tf32' }, torchCaps);
      assert.strictEqual(planned.kind, 'outcome');
      if (planned.kind !== 'outcome') continue;
      assert.strictEqual(planned.outcome.status, 'unsupported');
      assert.match(planned.outcome.message, new RegExp(`tf32 \\(float32 with TensorFloat-32\\) is a CUDA matmul mode .*does not apply on ${device}`));
    }
  });

  it('allows twice the per-product rounding of 11-bit inputs, and float32 growth at large n', () => {
    assert.strictEqual(errorThreshold('tf32', 1024), 2 ** -9);
    assert.ok(errorThreshold('tf32', 1024) > errorThreshold('float32', 1024));
    assert.strictEqual(errorThreshold('tf32', 2 ** 20), 2 ** 20 * 2 ** -24);
  });

  it('is judged against the tf32 peak of the GPU, and fp32 where the part has no tf32 units', () => {
    const tf32 = makeBenchResult({ plan: { engine: 'torch', device: 'cuda:0', dtype: 'tf32', size: 8192 }, timesSec: [0.004], maxRelError: 1e-4, checkedEntries: 64 });
    const h200 = peakOf(tf32, { cpu: null, cpuThreads: 2, deviceNames: { 'cuda:0': 'NVIDIA H200' } });
    assert.strictEqual(h200?.gflops, 494.7e3);
    assert.match(h200?.basis ?? '', /^tf32 dense peak of the NVIDIA H200 SXM/);
    const t4 = peakOf(tf32, { cpu: null, cpuThreads: 2, deviceNames: { 'cuda:0': 'Tesla T4' } });
    assert.match(t4?.basis ?? '', /^fp32 dense peak of the NVIDIA T4/);
  });

  it('is offered in the editor for a CUDA target only', () => {
    const labels = (device?: string) => dtypePicks(DTYPES, device).map((p) => p.label);
    assert.deepStrictEqual(labels('cuda:0'), ['float32', 'tf32', 'bfloat16', 'float16']);
    assert.deepStrictEqual(labels('cpu'), ['float32', 'bfloat16', 'float16']);
    assert.deepStrictEqual(labels(undefined), ['float32', 'bfloat16', 'float16']);
  });

  it('--dtype all includes tf32 only with a CUDA device', () => {
    const dtypesOf = (argv: string[]) => (parseArgs(['bench', ...argv]) as { options: { dtypes?: string[] } }).options.dtypes;
    assert.deepStrictEqual(dtypesOf(['--dtype', 'all']), ['float32', 'float16', 'bfloat16']);
    assert.deepStrictEqual(dtypesOf(['--dtype', 'all', '--device', 'cuda:1']), ['float32', 'tf32', 'float16', 'bfloat16']);
    assert.deepStrictEqual(dtypesOf(['--device', 'cuda', '--dtype', 'all']), ['float32', 'tf32', 'float16', 'bfloat16'], 'the order of the options does not matter');
  });
});

describe('bench memory copy: device-to-device bandwidth', () => {
  it('counts a copy within one memory as read and write: 2 × bytes / time', () => {
    assert.strictEqual(copyGbPerSec('deviceToDevice', 1e9, 0.5), 4);
    assert.strictEqual(copyGbPerSec('hostToDevice', 1e9, 0.5), 2);
    assert.throws(() => copyGbPerSec('deviceToDevice', 0, 1), /positive number of bytes/);
    assert.throws(() => copyGbPerSec('deviceToDevice', 1, 0), /positive number of seconds/);
    const line = transferFromLine('cuda:0', { type: 'transfer', status: 'ok', direction: 'deviceToDevice', memory: 'device', bytes: 2 ** 30, timesSec: [0.001, 0.0005, 0.002] });
    assert.strictEqual(line.medianSec, 0.001);
    assert.strictEqual(line.gbPerSec, (2 * 2 ** 30) / 0.001 / 1e9);
  });

  it('gives the share of the datasheet bandwidth on a known GPU, none on the CPU or an unknown part', () => {
    const copy = (device: string, gbPerSec: number): TransferResult => ({ device, direction: 'deviceToDevice', memory: 'device', bytes: 2 ** 30, status: 'ok', timesSec: [1], medianSec: 1, gbPerSec, message: null });
    const hostToDevice: TransferResult = { ...copy('cuda:0', 50), direction: 'hostToDevice', memory: 'pinned' };
    const [h200, cpu, unknown, h2d] = withCopyPeaks([copy('cuda:0', 3840), copy('cpu', 20), copy('cuda:1', 100), hostToDevice], { 'cuda:0': 'NVIDIA H200', 'cuda:1': 'Some Future GPU' });
    assert.strictEqual(h200.peakGbPerSec, 4800);
    assert.strictEqual(h200.percentOfPeak, 80);
    assert.strictEqual(h200.peakBasis, 'memory bandwidth of the NVIDIA H200 SXM (4800 GB/s, datasheet)');
    assert.strictEqual(cpu.percentOfPeak, null);
    assert.strictEqual(cpu.peakGbPerSec, null);
    assert.strictEqual(unknown.percentOfPeak, null);
    assert.strictEqual(h2d, hostToDevice, 'host↔device copies are left as they are');
  });
});
