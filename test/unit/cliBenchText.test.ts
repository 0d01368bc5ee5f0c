// `device-doctor bench` as text: what a person reads must not mislead (speedups across dtypes
// named as such).
import * as assert from 'assert';
import { buildRun } from '../../src/core/bench/compare';
import type { Dtype, EngineId, RunResult } from '../../src/core/bench/model';
import { makeBenchResult } from '../../src/core/bench/result';
import { withDiagnosis, type PeakFacts } from '../../src/core/bench/diagnosis';
import type { BenchRunResponse } from '../../src/protocol/worker';
import { formatBenchText, resultTable, speedupLines } from '../../src/cli/formats/benchText';

function measured(engine: EngineId, device: string, size: number, medianSec: number, dtype: Dtype = 'float32'): RunResult {
  return { status: 'ok', result: makeBenchResult({ plan: { engine, device, dtype, size }, timesSec: [medianSec, medianSec, medianSec], maxRelError: 1e-6, checkedEntries: 64 }) };
}

function response(runs: RunResult[], extra: Partial<BenchRunResponse> = {}): BenchRunResponse {
  return { ...buildRun(runs), transfers: [], cancelled: false, selectedDevice: 'cuda:0', description: 'torch on cuda:0 compared with torch on the CPU', ...extra };
}

describe('bench text: speedups between dtypes', () => {
  it('a float16 result divided by the CPU float32 says both dtypes, in the sentence and the table', () => {
    const run = response([measured('torch', 'cpu', 1024, 1), measured('torch', 'cuda:0', 1024, 0.01, 'float16')]);
    assert.deepStrictEqual(speedupLines(run), ["torch on cuda:0 is 100× faster than torch on the CPU (n = 1024, float16 against the CPU's float32)"]);
    assert.match(resultTable(run)[2], /100× vs float32$/);
  });

  it('equal dtypes are said once', () => {
    const run = response([measured('torch', 'cpu', 1024, 1), measured('torch', 'cuda:0', 1024, 0.01)]);
    assert.deepStrictEqual(speedupLines(run), ['torch on cuda:0 is 100× faster than torch on the CPU (n = 1024, float32)']);
    assert.doesNotMatch(formatBenchText(run), / vs float/);
  });
});

describe('bench text: a sweep', () => {
  it('says its limit and where a series stopped short', () => {
    const stop = { engine: 'js' as const, device: 'cpu', dtype: 'float32' as const, lastSize: 512, lastMedianSec: 1.48, stopSec: 0.5, reason: 'budget' as const, skipped: [1024, 2048] };
    const run = response([measured('js', 'cpu', 256, 0.146), measured('js', 'cpu', 512, 1.48)], { sweep: { sizes: [256, 512, 1024, 2048], stopSec: 0.5, stops: [stop] } });
    const text = formatBenchText(run);
    assert.match(text, /\nSweep n = 256…2048; it stops after a size whose median product passes 500 ms\.\njs cpu float32: stopped after n = 512 \(median 1\.48 s, over the sweep's 500 ms limit per product\); n = 1024, 2048 not run\.\n/);
  });
});

describe('bench text: percent of peak, noise and the diagnosis', () => {
  it('shows % of peak and what the peak is, marks a noisy result, and lists diagnoses apart from what was not measured', () => {
    const facts: PeakFacts = { cpu: { cores: 2, float32: 166, basis: '2 cores × 2.60 GHz × 32 FLOP/cycle (AMD Zen 4: AVX-512 on 2 × 256-bit FMA)', bfloat16: 332, bfloat16Basis: null }, cpuThreads: 2, deviceNames: {} };
    const t = (2 * 1024 ** 3) / 23e9;
    const noisy: RunResult = { status: 'ok', result: makeBenchResult({ plan: { engine: 'torch', device: 'cpu', dtype: 'float32', size: 1024 }, timesSec: [t * 0.7, t, t, t * 1.4], maxRelError: 1e-6, checkedEntries: 64, detail: 'torch 1.13.0, CPU, 1 thread' }) };
    const run = withDiagnosis(response([noisy], { selectedDevice: 'cpu' }), facts);
    const text = formatBenchText(run);
    const [header, row] = resultTable(run);
    assert.match(header!, /GFLOP\/s {2}% PEAK/);
    assert.match(row!, /noisy +23\.0 +14 %/);
    assert.match(text, /\n% PEAK of the float32 peak \(an estimate\) of 2 cores × 2\.60 GHz × 32 FLOP\/cycle \(AMD Zen 4: AVX-512 on 2 × 256-bit FMA\)\.\n/);
    assert.match(text, /\nnoisy: this result's repeats spread by more than 10 % of the median/);
    assert.match(text, /\nDiagnosis\n {2}torch cpu float32 n = 1024 \(below-peak\): torch multiplied on 1 thread of this CPU's 2/);
    assert.match(text, /reached 14 % of the float32 peak/);
    assert.doesNotMatch(text, /Not measured/);
  });
});

describe('bench text: numbers in plain decimals', () => {
  it('a spread of 7.5e-7 ms is printed as 0.00000075, so a column never mixes notations', () => {
    // Three equal repeats of 6.38 µs have an IQR of a rounding error (seen in CI as "5e-7").
    const times = [6.38e-6, 6.3805e-6, 6.381e-6, 6.3815e-6];
    const result = makeBenchResult({ plan: { engine: 'torch', device: 'cpu', dtype: 'float32', size: 64 }, timesSec: times, maxRelError: 1e-6, checkedEntries: 64 });
    assert.ok(result.iqrSec > 0 && result.iqrSec < 1e-9, String(result.iqrSec));
    const run = response([{ status: 'ok', result }]);
    const row = resultTable(run)[1];
    const cells = row.split(/ {2,}/);
    assert.strictEqual(cells[4], '0.00638', row);
    assert.strictEqual(cells[5], '0.00000075', row);
  });
});
