// The CPU-only default comparison (issue 14): torch with all threads against torch with one,
// said as a thread scaling wherever a speedup is shown (the CLI's text, --json, the panel's
// headline), never as if it were another engine or device; "all threads" is the physical
// cores the process may use; js is never planned above n = 1024 in "everything".
import * as assert from 'assert';
import { allThreads } from '../../src/core/bench/cpuThreads';
import { buildRun, chooseBaseline, speedupKind, speedupSentence } from '../../src/core/bench/compare';
import { toBenchJson } from '../../src/core/bench/export';
import type { BenchResult, Dtype, EngineId } from '../../src/core/bench/model';
import { jsEverythingRefusal, planBenchmark, type EngineCapabilities } from '../../src/core/bench/plan';
import { makeBenchResult } from '../../src/core/bench/result';
import { formatBenchText } from '../../src/cli/formats/benchText';
import type { BenchRunResponse } from '../../src/protocol/worker';
import { bestResult, speedupHeadline, targetLabel } from '../../src/vscode/benchmark/benchFormat';

function result(engine: EngineId, device: string, threads: number | undefined, medianSec: number, size = 1024, dtype: Dtype = 'float32'): BenchResult {
  return makeBenchResult({ plan: { engine, device, dtype, size, ...(threads === undefined ? {} : { threads }) }, timesSec: [medianSec], maxRelError: 1e-7, checkedEntries: 64 });
}

function response(results: BenchResult[]): BenchRunResponse {
  return { ...buildRun(results.map((r) => ({ status: 'ok' as const, result: r }))), transfers: [], cancelled: false, selectedDevice: 'cpu', description: 'No accelerator selected: torch on the CPU with all 2 threads compared with 1 thread' };
}

/** 2 threads at 0.0113 s, 1 thread at 0.0215 s: 1.9× (n = 1024). */
const scaling = () => response([result('torch', 'cpu', 2, 0.0113), result('torch', 'cpu', 1, 0.0215)]);

describe('bench: all threads against one thread', () => {
  it('"all threads" is the smaller of the CPUs the process may use and the physical cores; unknown counts are left out', () => {
    assert.strictEqual(allThreads({ availableCpus: 16, physicalCores: 8 }), 8, 'SMT siblings add no FLOP');
    assert.strictEqual(allThreads({ availableCpus: 3, physicalCores: 8 }), 3, 'pinned to 3 CPUs');
    assert.strictEqual(allThreads({ availableCpus: null, physicalCores: 4 }), 4);
    assert.strictEqual(allThreads({ availableCpus: 6, physicalCores: null }), 6);
    assert.strictEqual(allThreads({ availableCpus: null, physicalCores: null }), 1);
  });

  it('the baseline is torch at the fewest threads, whichever came first, and the speedup is the thread scaling', () => {
    const run = scaling();
    assert.deepStrictEqual(run.speedup?.baseline, { engine: 'torch', device: 'cpu', threads: 1 });
    assert.deepStrictEqual(chooseBaseline([result('torch', 'cpu', 1, 1), result('torch', 'cpu', 4, 1)]), { engine: 'torch', device: 'cpu', threads: 1 });
    assert.strictEqual(run.speedup?.entries.length, 1);
    const [entry] = run.speedup!.entries;
    assert.deepStrictEqual({ ...entry, speedup: Number(entry.speedup.toFixed(2)) }, { engine: 'torch', device: 'cpu', threads: 2, dtype: 'float32', baselineDtype: 'float32', size: 1024, speedup: 1.9 });
    assert.strictEqual(speedupKind(run.speedup!), 'thread-scaling');
  });

  it('says it as a thread scaling: faster, slower on a loaded machine, or about as fast', () => {
    const baseline = { engine: 'torch' as const, device: 'cpu', threads: 1 };
    const entry = { engine: 'torch' as const, device: 'cpu', threads: 2, dtype: 'float32' as const, baselineDtype: 'float32' as const, size: 1024 };
    assert.strictEqual(speedupSentence({ ...entry, speedup: 1.9 }, baseline), 'torch cpu 2 threads is 1.9× faster than 1 thread');
    assert.strictEqual(speedupSentence({ ...entry, speedup: 0.8 }, baseline), 'torch cpu 2 threads is 1.3× slower than 1 thread');
    assert.strictEqual(speedupSentence({ ...entry, speedup: 1.02 }, baseline), 'torch cpu 2 threads is about as fast as 1 thread');
    assert.strictEqual(speedupSentence({ ...entry, threads: 16, speedup: 12.34 }, baseline), 'torch cpu 16 threads is 12.3× faster than 1 thread');
    // Another engine against torch on all threads is not a thread scaling.
    const wasm = { engine: 'wasm' as const, device: 'cpu', dtype: 'float32' as const, baselineDtype: 'float32' as const, size: 1024, speedup: 0.25 };
    assert.strictEqual(speedupSentence(wasm, { engine: 'torch', device: 'cpu', threads: 2 }), 'wasm cpu is 4× slower than torch cpu 2 threads');
  });

  it('--json carries each result\'s threads, the kind of comparison and the sentence', () => {
    const json = toBenchJson(scaling());
    assert.deepStrictEqual(json.results.map((r) => [r.engine, r.device, r.threads]), [['torch', 'cpu', 2], ['torch', 'cpu', 1]]);
    assert.strictEqual(json.speedup?.kind, 'thread-scaling');
    assert.deepStrictEqual(json.speedup?.baseline, { engine: 'torch', device: 'cpu', threads: 1 });
    assert.strictEqual(json.speedup?.entries[0].text, 'torch cpu 2 threads is 1.9× faster than 1 thread');
    const wasmOnly = toBenchJson(response([result('wasm', 'cpu', undefined, 0.1)]));
    assert.strictEqual(wasmOnly.results[0].threads, null, 'an engine that takes no thread count says null');
    const gpu = toBenchJson(response([result('torch', 'cuda:0', undefined, 0.001), result('torch', 'cpu', 2, 0.0113)]));
    assert.strictEqual(gpu.speedup?.kind, 'versus-baseline');
  });

  it('the CLI text: one row per thread count, the one-thread row is the baseline, and the thread-scaling line', () => {
    const text = formatBenchText(scaling());
    const rows = text.split('\n').filter((l) => /^torch +cpu ×/.test(l));
    assert.strictEqual(rows.length, 2, text);
    assert.match(rows[0], /^torch +cpu ×2 +float32 +1024 .* 1\.9×$/);
    assert.match(rows[1], /^torch +cpu ×1 +float32 +1024 .* baseline$/);
    assert.match(text, /\ntorch cpu 2 threads is 1\.9× faster than 1 thread \(n = 1024, float32\)\n/);
    assert.doesNotMatch(text, /than torch on the CPU/);
  });

  it('the panel headline says the same, at the size it names', () => {
    const headline = speedupHeadline(scaling());
    assert.strictEqual(headline?.text, 'torch cpu 2 threads is 1.9× faster than 1 thread');
    assert.strictEqual(headline?.context, 'n = 1024, float32');
    // History's "best" names the thread count, or the two torch rows would read the same.
    const best = bestResult(scaling());
    assert.strictEqual(best && targetLabel(best.engine, best.device, best.dtype, best.threads), 'torch cpu 2 threads');
  });
});

describe('bench plans: threads and the js limit', () => {
  const torch: EngineCapabilities = { engine: 'torch', dtypes: ['float32'], devices: ['cpu', /^cuda(:\d+)?$/] };
  const wasm: EngineCapabilities = { engine: 'wasm', dtypes: ['float32'], devices: ['cpu'] };

  it('a thread count is for torch on the CPU only, and a whole number from 1', () => {
    const planned = planBenchmark({ engine: 'torch', device: 'cpu', size: 64, threads: 2 }, torch);
    assert.strictEqual(planned.kind === 'plan' && planned.plan.threads, 2);
    assert.deepStrictEqual(planBenchmark({ engine: 'torch', device: 'cpu', size: 64, threads: 0 }, torch), { kind: 'invalid', message: 'A thread count must be a whole number from 1, not 0.' });
    assert.deepStrictEqual(planBenchmark({ engine: 'wasm', device: 'cpu', size: 64, threads: 2 }, wasm), { kind: 'invalid', message: 'Only torch on the CPU takes a thread count, not wasm on cpu.' });
    assert.strictEqual(planBenchmark({ engine: 'torch', device: 'cuda:0', size: 64, threads: 2 }, torch).kind, 'invalid');
  });

  it('js is refused above n = 512 (not at it: n = 1024 took 30 of a 38 s "Compare everything") with the reason and how to run it anyway; other engines never', () => {
    assert.strictEqual(jsEverythingRefusal({ engine: 'js', device: 'cpu', dtype: 'float32', size: 512 }), null);
    const refused = jsEverythingRefusal({ engine: 'js', device: 'cpu', dtype: 'float32', size: 1024 });
    assert.strictEqual(refused?.status, 'refused');
    assert.strictEqual(refused?.message, 'js skipped above n = 512: too slow to be worth measuring.');
    assert.strictEqual(refused?.remedy, 'Run it alone to measure it anyway: device-doctor bench --engine js --device cpu --size 1024.');
    assert.strictEqual(jsEverythingRefusal({ engine: 'wasm', device: 'cpu', dtype: 'float32', size: 8192 }), null);
  });
});
