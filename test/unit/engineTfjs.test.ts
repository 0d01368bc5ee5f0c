// The js and wasm engines for real, at small sizes: measurements, progress, the
// correctness check catching an injected wrong product, the memory refusal, no leaks.
import * as assert from 'assert';
import * as tf from '@tensorflow/tfjs-core';
import type { BenchProgress, BenchResult, EngineOutcome, RunResult } from '../../src/core/bench/model';
import { BenchPlan, planBenchmark } from '../../src/core/bench/plan';
import { samplePositions } from '../../src/core/bench/correctness';
import type { Engine } from '../../src/worker/engines/engine';
import { JsEngine } from '../../src/worker/engines/js';
import { WASM_MAX_BYTES, WasmEngine, findWasmDir } from '../../src/worker/engines/wasm';

const GIB = 1024 ** 3;

function planFor(engine: Engine, size: number, extra: { repeats?: number; freeBytes?: number | null; dtype?: string } = {}): BenchPlan {
  const result = planBenchmark({ engine: engine.id, device: 'cpu', size, repeats: extra.repeats ?? 3, dtype: extra.dtype, freeBytes: extra.freeBytes }, engine.capabilities);
  assert.strictEqual(result.kind, 'plan', JSON.stringify(result));
  return (result as { plan: BenchPlan }).plan;
}

function measured(run: RunResult): BenchResult {
  assert.strictEqual(run.status, 'ok', JSON.stringify(run));
  return (run as { result: BenchResult }).result;
}

function outcome(run: RunResult, status: EngineOutcome['status']): EngineOutcome {
  assert.strictEqual(run.status, status, JSON.stringify(run));
  return run as EngineOutcome;
}

function assertSound(result: BenchResult, engine: string, size: number, repeats: number) {
  assert.strictEqual(result.engine, engine);
  assert.strictEqual(result.device, 'cpu');
  assert.strictEqual(result.dtype, 'float32');
  assert.strictEqual(result.size, size);
  assert.strictEqual(result.repeats, repeats);
  assert.strictEqual(result.timesSec.length, repeats);
  assert.ok(result.timesSec.every((t) => t > 0 && Number.isFinite(t)));
  assert.ok(result.minSec <= result.medianSec && result.medianSec <= result.maxSec);
  assert.strictEqual(result.gflops, (2 * size ** 3) / result.medianSec / 1e9);
  assert.ok(result.maxRelError >= 0 && result.maxRelError < 1e-5, `maxRelError ${result.maxRelError}`);
  assert.strictEqual(result.checkedEntries, 64);
}

const engines: [string, () => Engine][] = [
  ['js', () => new JsEngine()],
  ['wasm', () => new WasmEngine()],
];

describe('engines: wasm start-up', () => {
  it('finds its binaries in node_modules when run from source, and starts with SIMD', async () => {
    assert.ok(findWasmDir()?.includes('tfjs-backend-wasm'));
    const engine = new WasmEngine();
    assert.strictEqual(await engine.availability(), 'ok');
    assert.deepStrictEqual(await engine.devices(), ['cpu']);
    const result = measured(await engine.run(planFor(engine, 32, { repeats: 1 })));
    assert.match(result.detail ?? '', /^tfjs-backend-wasm 4\.22\.0, SIMD, 1 thread$/);
  });

  it('prefers a folder it is given that holds the binaries, and skips one that does not', () => {
    const real = findWasmDir()!;
    assert.strictEqual(findWasmDir(['/nonexistent', real]), real);
  });
});

for (const [name, create] of engines) {
  describe(`engines: ${name}`, function () {
    this.timeout(60000);
    const engine = create();

    it('is available on the cpu', async () => {
      assert.strictEqual(await engine.availability(), 'ok');
      assert.deepStrictEqual(await engine.devices(), ['cpu']);
    });

    for (const size of [64, 128, 256]) {
      it(`measures n = ${size}: timings, GFLOP/s from the median, a checked product`, async () => {
        assertSound(measured(await engine.run(planFor(engine, size))), name, size, 3);
      });
    }

    it('reports progress: preparing, warm-up, each timed repeat, checking', async () => {
      const seen: BenchProgress[] = [];
      await engine.run(planFor(engine, 64, { repeats: 4 }), { onProgress: (p) => seen.push(p) });
      const phases = seen.map((p) => (p.phase === 'timing' ? `timing ${p.done}/${p.repeats}` : p.phase));
      assert.deepStrictEqual(phases, ['preparing', 'warmup', 'timing 1/4', 'timing 2/4', 'timing 3/4', 'timing 4/4', 'checking']);
      assert.ok(seen.filter((p) => p.phase === 'timing').every((p) => (p.lastSec ?? 0) > 0));
      assert.ok(seen.every((p) => p.engine === name && p.size === 64 && p.device === 'cpu'));
    });

    it('fails loudly when one sampled entry of the product is wrong, then runs fine again', async () => {
      const plan = planFor(engine, 128);
      const { row, col } = samplePositions(128, plan.samples, plan.seed)[10];
      const run = await engine.run(plan, { corruptProduct: (c, n) => (c[row * n + col] += 1) });
      const failure = outcome(run, 'wrong-result');
      assert.match(failure.message, new RegExp(`^Wrong product: entry \\[${row}, ${col}\\]`));
      assert.ok((failure.maxRelError ?? 0) > (failure.threshold ?? 1));
      assert.ok(failure.remedy);
      assertSound(measured(await engine.run(plan)), name, 128, 3);
    });

    it('fails loudly when an entry no sample looks at is wrong (row checksum)', async () => {
      const plan = { ...planFor(engine, 128), samples: 2 };
      const run = await engine.run(plan, { corruptProduct: (c, n) => (c[5 * n + 7] = 0) });
      assert.match(outcome(run, 'wrong-result').message, /row checksum/);
    });

    it('refuses an impossible size before allocating anything', async () => {
      const before = tf.memory().numTensors;
      const plan: BenchPlan = { ...planFor(engine, 64), size: 1e6, neededBytes: 12e12, freeBytes: 16 * GIB };
      const refusal = outcome(await engine.run(plan), 'refused');
      assert.strictEqual(refusal.neededBytes, 12e12);
      // wasm: its 4 GiB address space is the tighter limit, and the message says so.
      assert.strictEqual(refusal.freeBytes, name === 'wasm' ? WASM_MAX_BYTES : 16 * GIB);
      assert.match(refusal.message, name === 'wasm' ? /^Refused: n = 1000000 float32 needs 10\.9 TiB .* free on the wasm engine's limit\.$/ : /^Refused: n = 1000000 float32 needs 10\.9 TiB .* 16\.0 GiB free on cpu\.$/);
      assert.strictEqual(tf.memory().numTensors, before);
    });

    it('refuses a size that does not fit in the free memory it is told about', async () => {
      const planned = planBenchmark({ engine: name, device: 'cpu', size: 256, freeBytes: 512 * 1024 }, engine.capabilities);
      assert.strictEqual(planned.kind === 'outcome' && planned.outcome.status, 'refused', 'the planner refuses it');
      const refusal = outcome(await engine.run({ ...planFor(engine, 256), freeBytes: 512 * 1024 }), 'refused');
      assert.strictEqual(refusal.message, 'Refused: n = 256 float32 needs 768.0 KiB (3 × n² × 4 bytes), 512.0 KiB free on cpu.');
      assert.strictEqual(refusal.remedy, 'Choose a size up to 209, or free memory on cpu.');
      assertSound(measured(await engine.run(planFor(engine, 256, { freeBytes: 768 * 1024 }))), name, 256, 3);
    });

    it('reports float16 and bfloat16 as unsupported, not as errors', async () => {
      for (const dtype of ['float16', 'bfloat16'] as const) {
        const plan: BenchPlan = { ...planFor(engine, 64), dtype };
        const unsupported = outcome(await engine.run(plan), 'unsupported');
        assert.match(unsupported.message, new RegExp(`does not support ${dtype}; it runs float32`));
      }
    });

    it('times a product in row slices when one would take longer than the slice time, still correct', async () => {
      const sliced = name === 'js' ? new JsEngine({ sliceSec: 0.002 }) : new WasmEngine({ sliceSec: 0.0002 });
      const result = measured(await sliced.run(planFor(sliced, 192, { repeats: 2 })));
      assertSound(result, name, 192, 2);
      assert.match(result.detail ?? '', /timed in \d+ row slices of \d+$/);
    });

    it('leaves no tensors behind, whatever the outcome', async () => {
      const before = tf.memory().numTensors;
      await engine.run(planFor(engine, 64));
      await engine.run(planFor(engine, 64), { corruptProduct: (c) => (c[0] = NaN) });
      const controller = new AbortController();
      await engine.run(planFor(engine, 64, { repeats: 50 }), { signal: controller.signal, onProgress: (p) => p.done === 3 && controller.abort() });
      assert.strictEqual(tf.memory().numTensors, before);
    });

    it('throws on a plan made for another engine (a caller bug, not a result)', async () => {
      const other: BenchPlan = { ...planFor(engine, 64), engine: name === 'js' ? 'wasm' : 'js' };
      await assert.rejects(engine.run(other), TypeError);
    });
  });
}
