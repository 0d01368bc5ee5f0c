// `device-doctor bench` as text: what a person reads must not mislead (speedups across dtypes
// named as such).
import * as assert from 'assert';
import { buildRun } from '../../src/core/bench/compare';
import type { Dtype, EngineId, RunResult } from '../../src/core/bench/model';
import { makeBenchResult } from '../../src/core/bench/result';
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
