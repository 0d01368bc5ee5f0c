import * as assert from 'assert';
import {
  MatmulInputs,
  checkProduct,
  errorThreshold,
  makeInputs,
  referenceEntry,
  relativeError,
  samplePositions,
  seededRandom,
} from '../../src/core/bench/correctness';

/** A float32 product the way a float32 engine computes one (every step rounded to float32). */
function float32Product({ a, b }: MatmulInputs, n: number): Float32Array {
  const c = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let k = 0; k < n; k++) sum = Math.fround(sum + Math.fround(a[i * n + k] * b[k * n + j]));
      c[i * n + j] = sum;
    }
  }
  return c;
}

const N = 48;
const inputs = makeInputs(N, 7);
const good = float32Product(inputs, N);
const check = (product: ArrayLike<number>, samples = 32) => checkProduct({ size: N, dtype: 'float32', inputs, product, seed: 7, samples });

describe('bench correctness: inputs and sampled entries', () => {
  it('the seeded generator repeats itself and stays in [0, 1)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const values = Array.from({ length: 1000 }, () => a());
    assert.deepStrictEqual(values, Array.from({ length: 1000 }, () => b()));
    assert.ok(values.every((v) => v >= 0 && v < 1));
    assert.notDeepStrictEqual(values.slice(0, 5), Array.from({ length: 5 }, seededRandom(43)));
  });

  it('makeInputs: n×n float32, deterministic per seed, different across seeds', () => {
    const one = makeInputs(16, 3);
    assert.strictEqual(one.a.length, 256);
    assert.ok(one.a instanceof Float32Array);
    assert.deepStrictEqual(makeInputs(16, 3), one);
    assert.notDeepStrictEqual(makeInputs(16, 4).a, one.a);
    assert.notDeepStrictEqual(one.a, one.b);
  });

  it('samplePositions: distinct, both corners first, deterministic, capped at n²', () => {
    const picks = samplePositions(100, 50, 9);
    assert.strictEqual(picks.length, 50);
    assert.deepStrictEqual(picks.slice(0, 2), [{ row: 0, col: 0 }, { row: 99, col: 99 }]);
    assert.strictEqual(new Set(picks.map((p) => p.row * 100 + p.col)).size, 50);
    assert.ok(picks.every((p) => p.row >= 0 && p.row < 100 && p.col >= 0 && p.col < 100));
    assert.deepStrictEqual(samplePositions(100, 50, 9), picks);
    assert.strictEqual(samplePositions(3, 100, 1).length, 9);
    assert.strictEqual(samplePositions(1, 5, 1).length, 1);
  });

  it('referenceEntry is the float64 dot product of a row and a column, with its absolute scale', () => {
    const tiny: MatmulInputs = { a: Float32Array.from([1, 2, 3, 4]), b: Float32Array.from([5, 6, -7, 8]) };
    assert.deepStrictEqual(referenceEntry(tiny, 2, 0, 0), { value: 1 * 5 + 2 * -7, scale: 5 + 14 });
    assert.deepStrictEqual(referenceEntry(tiny, 2, 1, 1), { value: 3 * 6 + 4 * 8, scale: 50 });
  });

  it('relativeError: zero when equal, relative to the scale, infinite for NaN or Infinity', () => {
    assert.strictEqual(relativeError(5, 5, 5), 0);
    assert.strictEqual(relativeError(5.5, 5, 5), 0.1);
    assert.strictEqual(relativeError(NaN, 5, 5), Infinity);
    assert.strictEqual(relativeError(Infinity, 5, 5), Infinity);
    assert.ok(relativeError(1e-30, 0, 0) > 1);
  });
});

describe('bench correctness: thresholds and the product check', () => {
  it('thresholds: float32 1e-3 (growing as n·2⁻²⁴ past n = 16777), float16 1e-2, bfloat16 5e-2', () => {
    assert.strictEqual(errorThreshold('float32', 256), 1e-3);
    assert.strictEqual(errorThreshold('float32', 8192), 1e-3);
    assert.strictEqual(errorThreshold('float32', 16384), 1e-3);
    assert.strictEqual(errorThreshold('float32', 16777), 1e-3);
    assert.strictEqual(errorThreshold('float32', 16778), 16778 * 2 ** -24);
    assert.strictEqual(errorThreshold('float32', 32768), 32768 * 2 ** -24);
    assert.strictEqual(errorThreshold('float16', 1024), 1e-2);
    assert.strictEqual(errorThreshold('bfloat16', 1024), 5e-2);
  });

  it('a correct float32 product passes, with a small but nonzero error reported', () => {
    const result = check(good);
    assert.strictEqual(result.passed, true, result.failure ?? '');
    assert.strictEqual(result.failure, null);
    assert.strictEqual(result.checkedEntries, 32);
    assert.ok(result.maxRelError > 0 && result.maxRelError < 1e-5, String(result.maxRelError));
    assert.ok(result.checksumRelError < 1e-5);
  });

  it('fails a product whose sampled entry is 1% off, naming the entry', () => {
    const { row, col } = samplePositions(N, 32, 7)[5];
    const wrong = good.slice();
    wrong[row * N + col] *= 1.01;
    const result = check(wrong);
    assert.strictEqual(result.passed, false);
    assert.deepStrictEqual([result.worst?.row, result.worst?.col], [row, col]);
    assert.ok(result.maxRelError > 5e-3);
    assert.match(result.failure ?? '', new RegExp(`^Wrong product: entry \\[${row}, ${col}\\] is .* the float64 reference is`));
  });

  it('fails a product wrong only outside the sampled entries (row checksum)', () => {
    const sampled = new Set(samplePositions(N, 4, 7).map((p) => p.row * N + p.col));
    const index = [...Array(N * N).keys()].find((i) => !sampled.has(i) && i > N)!;
    const wrong = good.slice();
    wrong[index] = 0;
    const result = check(wrong, 4);
    assert.strictEqual(result.passed, false);
    assert.ok(result.maxRelError < 1e-5, 'the sampled entries are fine');
    assert.match(result.failure ?? '', /row checksum .* outside the sampled ones/);
  });

  it('fails a product with a NaN anywhere', () => {
    const wrong = good.slice();
    wrong[N * N - N - 3] = NaN;
    assert.strictEqual(check(wrong, 2).passed, false);
  });

  it('fails a product of the wrong matrices (transposed B)', () => {
    const transposed: MatmulInputs = { a: inputs.a, b: new Float32Array(N * N) };
    for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) transposed.b[j * N + i] = inputs.b[i * N + j];
    assert.strictEqual(check(float32Product(transposed, N)).passed, false);
  });

  it('refuses a product of the wrong length', () => {
    assert.throws(() => check(new Float32Array(10)), /has 10 entries, not 48²/);
  });
});
