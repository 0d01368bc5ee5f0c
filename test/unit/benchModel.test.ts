import * as assert from 'assert';
import { buildRun, chooseBaseline, computeSpeedups } from '../../src/core/bench/compare';
import type { BenchResult, Dtype, EngineId, EngineOutcome, RunResult } from '../../src/core/bench/model';
import { isDtype, isEngineId, isMeasured, mixesDtypes } from '../../src/core/bench/model';
import { cancelledOutcome, correctnessFailure, failedOutcome, isFailure } from '../../src/core/bench/outcomes';
import { makeBenchResult, resultOrFailure } from '../../src/core/bench/result';
import type { BenchPlan } from '../../src/core/bench/plan';
import type { ProductCheck } from '../../src/core/bench/correctness';

function result(engine: EngineId, device: string, medianSec: number, size = 1024, dtype: Dtype = 'float32'): BenchResult {
  return makeBenchResult({ plan: { engine, device, dtype, size }, timesSec: [medianSec * 1.1, medianSec, medianSec * 0.9], maxRelError: 1e-7, checkedEntries: 64 });
}

const ok = (r: BenchResult): RunResult => ({ status: 'ok', result: r });

const plan: BenchPlan = { engine: 'wasm', device: 'cpu', size: 256, dtype: 'float32', repeats: 3, warmups: 1, neededBytes: 786432, freeBytes: null, seed: 1, samples: 64 };

describe('bench model: results', () => {
  it('makeBenchResult fills in the statistics from the timings', () => {
    const r = makeBenchResult({ plan: { engine: 'js', device: 'cpu', dtype: 'float32', size: 1000 }, timesSec: [4, 1, 2, 3], maxRelError: 2e-7, checkedEntries: 64, detail: 'x' });
    assert.deepStrictEqual(r, {
      engine: 'js',
      device: 'cpu',
      dtype: 'float32',
      size: 1000,
      repeats: 4,
      timesSec: [4, 1, 2, 3],
      productsPerSample: 1,
      repeatBudgetSec: null,
      medianSec: 2.5,
      minSec: 1,
      maxSec: 4,
      q1Sec: 1.75,
      q3Sec: 3.25,
      iqrSec: 1.5,
      gflops: 2 / 2.5,
      maxRelError: 2e-7,
      checkedEntries: 64,
      detail: 'x',
    });
  });

  it('makeBenchResult refuses NaN timings instead of producing a NaN GFLOP/s', () => {
    assert.throws(() => makeBenchResult({ plan: { engine: 'js', device: 'cpu', dtype: 'float32', size: 8 }, timesSec: [NaN], maxRelError: 0, checkedEntries: 1 }), /non-finite/);
  });

  it('type guards for engine ids, dtypes and measured runs', () => {
    assert.ok(isEngineId('tfjs-node-gpu') && !isEngineId('cuda'));
    assert.ok(isDtype('bfloat16') && !isDtype('float64'));
    assert.ok(isMeasured(ok(result('js', 'cpu', 1))));
    assert.ok(!isMeasured(cancelledOutcome(plan)));
  });

  it('a failed correctness check turns the run into a loud wrong-result outcome', () => {
    const check: ProductCheck = { passed: false, maxRelError: 0.5, checkedEntries: 64, checksumRelError: 0.01, threshold: 1e-3, worst: { row: 1, col: 2, expected: 10, actual: 5 }, failure: 'Wrong product: entry [1, 2] …' };
    const run = resultOrFailure(plan, [0.1, 0.2], check, null);
    assert.strictEqual(run.status, 'wrong-result');
    const outcome = run as EngineOutcome;
    assert.strictEqual(outcome.maxRelError, 0.5);
    assert.strictEqual(outcome.threshold, 1e-3);
    assert.match(outcome.message, /^Wrong product/);
    assert.ok(isFailure(outcome));
    const passed = resultOrFailure(plan, [0.1, 0.2], { ...check, passed: true, maxRelError: 1e-7, failure: null }, 'd');
    assert.strictEqual(passed.status, 'ok');
    assert.deepStrictEqual(correctnessFailure(plan, check).status, 'wrong-result');
  });

  it('a thrown error becomes a failed outcome with its first line only (no stack trace)', () => {
    const error = new Error('out of memory\n    at matMul (x.js:1:1)');
    const outcome = failedOutcome(plan, error);
    assert.strictEqual(outcome.status, 'failed');
    assert.strictEqual(outcome.message, 'The wasm engine failed on cpu, n = 256: out of memory');
    assert.ok(!/at matMul/.test(JSON.stringify(outcome)));
    assert.ok(!isFailure(cancelledOutcome(plan)));
  });
});

describe('bench model: speedup over the CPU baseline', () => {
  it('prefers torch cpu, then tfjs-node, then wasm, then js as the baseline', () => {
    const all = [result('js', 'cpu', 8), result('wasm', 'cpu', 1), result('torch', 'cuda:0', 0.01), result('torch', 'cpu', 0.5), result('tfjs-node', 'cpu', 0.6)];
    assert.deepStrictEqual(chooseBaseline(all), { engine: 'torch', device: 'cpu' });
    assert.deepStrictEqual(chooseBaseline(all.filter((r) => r.engine !== 'torch')), { engine: 'tfjs-node', device: 'cpu' });
    assert.deepStrictEqual(chooseBaseline([result('js', 'cpu', 8), result('wasm', 'cpu', 1)]), { engine: 'wasm', device: 'cpu' });
    assert.deepStrictEqual(chooseBaseline([result('js', 'cpu', 8)]), { engine: 'js', device: 'cpu' });
    assert.strictEqual(chooseBaseline([result('torch', 'cuda:0', 0.01)]), null);
  });

  it('speedup = baseline median / median, per size, baseline itself not listed', () => {
    const report = computeSpeedups([result('torch', 'cpu', 0.5), result('torch', 'cuda:0', 0.005), result('wasm', 'cpu', 1)]);
    assert.deepStrictEqual(report, {
      baseline: { engine: 'torch', device: 'cpu' },
      entries: [
        { engine: 'torch', device: 'cuda:0', dtype: 'float32', baselineDtype: 'float32', size: 1024, speedup: 100 },
        { engine: 'wasm', device: 'cpu', dtype: 'float32', baselineDtype: 'float32', size: 1024, speedup: 0.5 },
      ],
    });
  });

  it('matches sizes in a sweep and skips sizes the baseline lacks', () => {
    const report = computeSpeedups([result('torch', 'cpu', 0.2, 256), result('torch', 'cuda:0', 0.01, 256), result('torch', 'cuda:0', 0.08, 512)]);
    assert.deepStrictEqual(report?.entries.map((e) => [e.size, e.speedup]), [[256, 20]]);
  });

  it('a float16 GPU result is compared with the baseline of the same dtype, else its float32, and the entry says which', () => {
    const cpu32 = result('torch', 'cpu', 1);
    const gpu16 = result('torch', 'cuda:0', 0.01, 1024, 'float16');
    const mixed = computeSpeedups([cpu32, gpu16])!.entries[0];
    assert.deepStrictEqual([mixed.speedup, mixed.dtype, mixed.baselineDtype, mixesDtypes(mixed)], [100, 'float16', 'float32', true]);
    const cpu16 = result('torch', 'cpu', 2, 1024, 'float16');
    const same = computeSpeedups([cpu32, cpu16, gpu16])!.entries.find((e) => e.engine === 'torch' && e.device === 'cuda:0')!;
    assert.deepStrictEqual([same.speedup, same.baselineDtype, mixesDtypes(same)], [200, 'float16', false]);
  });

  it('null without a CPU baseline', () => {
    assert.strictEqual(computeSpeedups([result('torch', 'cuda:0', 0.01)]), null);
    assert.strictEqual(computeSpeedups([]), null);
  });

  it('buildRun splits measurements from outcomes and computes the speedups', () => {
    const notInstalled: EngineOutcome = { status: 'not-installed', engine: 'tfjs-node', device: null, dtype: null, size: null, message: 'not installed', remedy: 'install it' };
    const run = buildRun([ok(result('js', 'cpu', 2)), notInstalled, ok(result('wasm', 'cpu', 0.1))]);
    assert.strictEqual(run.results.length, 2);
    assert.deepStrictEqual(run.problems, [notInstalled]);
    assert.strictEqual(run.speedup?.baseline.engine, 'wasm');
    assert.strictEqual(run.speedup?.entries[0].speedup, 0.05);
  });
});
