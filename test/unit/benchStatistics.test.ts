import * as assert from 'assert';
import {
  StatisticsError,
  gflops,
  iqr,
  maximum,
  mean,
  median,
  minimum,
  quantile,
  quartiles,
  speedup,
  summarizeTimes,
} from '../../src/core/bench/statistics';

const close = (actual: number, expected: number, what = '') => assert.ok(Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)), `${what} ${actual} ≠ ${expected}`);

describe('bench statistics: median, quartiles, min, max, mean', () => {
  it('median of an odd count is the middle value, whatever the order', () => {
    assert.strictEqual(median([3, 1, 2]), 2);
    assert.strictEqual(median([9, 7, 8, 1, 100]), 8);
    assert.strictEqual(median([5]), 5);
  });

  it('median of an even count is the mean of the two middle values', () => {
    assert.strictEqual(median([1, 2, 3, 4]), 2.5);
    assert.strictEqual(median([4, 1]), 2.5);
    close(median([0.5, 0.1, 0.9, 0.3, 0.7, 0.2]), 0.4);
  });

  it('does not reorder the caller’s array', () => {
    const times = [3, 1, 2];
    median(times);
    quartiles(times);
    assert.deepStrictEqual(times, [3, 1, 2]);
  });

  // Expected values computed with numpy.percentile (default method "linear").
  const numpyCases: { values: number[]; q1: number; q3: number; p10: number }[] = [
    { values: [1, 2, 3, 4], q1: 1.75, q3: 3.25, p10: 1.3 },
    { values: [3, 1, 2], q1: 1.5, q3: 2.5, p10: 1.2 },
    { values: [5], q1: 5, q3: 5, p10: 5 },
    { values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], q1: 3.25, q3: 7.75, p10: 1.9 },
    { values: [0.5, 0.1, 0.9, 0.3, 0.7, 0.2], q1: 0.225, q3: 0.65, p10: 0.15 },
    { values: [2, 2, 2, 2], q1: 2, q3: 2, p10: 2 },
  ];
  for (const { values, q1, q3, p10 } of numpyCases) {
    it(`quartiles of [${values.join(', ')}] match numpy's linear interpolation`, () => {
      const q = quartiles(values);
      close(q.q1, q1, 'q1');
      close(q.q3, q3, 'q3');
      close(q.iqr, q3 - q1, 'iqr');
      close(iqr(values), q3 - q1, 'iqr()');
      close(quantile(values, 0.1), p10, 'p10');
      close(q.median, median(values), 'median');
    });
  }

  it('quantile 0 and 1 are the minimum and maximum', () => {
    const values = [4, 8, 1, 9, 3];
    assert.strictEqual(quantile(values, 0), 1);
    assert.strictEqual(quantile(values, 1), 9);
    assert.strictEqual(minimum(values), 1);
    assert.strictEqual(maximum(values), 9);
    assert.strictEqual(mean(values), 5);
  });

  it('rejects a quantile outside [0, 1] or NaN', () => {
    for (const q of [-0.1, 1.5, NaN]) assert.throws(() => quantile([1, 2], q), StatisticsError);
  });

  it('rejects empty input with a message that says so', () => {
    for (const f of [median, minimum, maximum, mean, quartiles, iqr, summarizeTimes]) {
      assert.throws(() => f([]), (e: Error) => e instanceof StatisticsError && /no values/.test(e.message), f.name);
    }
  });

  it('rejects NaN and infinities instead of sorting them somewhere', () => {
    for (const bad of [NaN, Infinity, -Infinity]) {
      for (const f of [median, minimum, maximum, mean, quartiles, summarizeTimes]) {
        assert.throws(() => f([1, bad, 3]), (e: Error) => e instanceof StatisticsError && /non-finite/.test(e.message), `${f.name}(${bad})`);
      }
    }
  });

  it('StatisticsError is a RangeError, so callers can catch bad input as such', () => {
    assert.throws(() => median([NaN]), RangeError);
  });
});

describe('bench statistics: time summary, GFLOP/s and speedup', () => {
  it('summarizes timings into median, min, max, mean, quartiles and IQR', () => {
    const s = summarizeTimes([0.4, 0.1, 0.3, 0.2]);
    close(s.medianSec, 0.25);
    assert.strictEqual(s.minSec, 0.1);
    assert.strictEqual(s.maxSec, 0.4);
    close(s.meanSec, 0.25);
    close(s.q1Sec, 0.175);
    close(s.q3Sec, 0.325);
    close(s.iqrSec, 0.15);
  });

  it('rejects a negative time', () => {
    assert.throws(() => summarizeTimes([0.1, -0.2]), /negative/);
  });

  it('GFLOP/s is 2·n³ / seconds / 1e9', () => {
    assert.strictEqual(gflops(1000, 1), 2);
    assert.strictEqual(gflops(1024, 0.5), (2 * 1024 ** 3) / 0.5 / 1e9);
    close(gflops(8192, 0.01), 109951.1627776);
  });

  it('GFLOP/s rejects zero, negative or non-finite time and a bad size', () => {
    for (const s of [0, -1, NaN, Infinity]) assert.throws(() => gflops(256, s), StatisticsError, `seconds ${s}`);
    for (const n of [0, -4, 1.5, NaN]) assert.throws(() => gflops(n, 1), StatisticsError, `n ${n}`);
  });

  it('speedup is baseline time over time: 2 s against 0.5 s is 4×', () => {
    assert.strictEqual(speedup(2, 0.5), 4);
    assert.strictEqual(speedup(1, 2), 0.5);
    assert.strictEqual(speedup(0.3, 0.3), 1);
  });

  it('speedup rejects zero, negative and NaN times on either side', () => {
    for (const [a, b] of [[0, 1], [1, 0], [-1, 1], [NaN, 1], [1, NaN], [Infinity, 1]]) {
      assert.throws(() => speedup(a, b), StatisticsError, `${a}, ${b}`);
    }
  });
});
