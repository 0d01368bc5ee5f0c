// Summary statistics of benchmark timings. Quantiles use linear interpolation between
// order statistics (Hyndman–Fan type 7: numpy.percentile's default "linear", R's default),
// so the numbers match what a user gets from numpy on the same timings.

/** Thrown for input no statistic can be computed from (empty, NaN, infinite, negative time). */
export class StatisticsError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'StatisticsError';
  }
}

function checkedSample(values: readonly number[], what: string): number[] {
  if (values.length === 0) throw new StatisticsError(`Cannot take the ${what} of no values.`);
  for (const v of values) {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new StatisticsError(`Cannot take the ${what} of a non-finite value (${String(v)}).`);
    }
  }
  return values.slice().sort((a, b) => a - b);
}

/** The q-quantile (0 ≤ q ≤ 1) with linear interpolation (numpy's default). */
export function quantile(values: readonly number[], q: number): number {
  if (!(q >= 0 && q <= 1)) throw new StatisticsError(`Quantile must be between 0 and 1, not ${q}.`);
  return sortedQuantile(checkedSample(values, 'quantile'), q);
}

function sortedQuantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
}

/** Middle value; the mean of the two middle values for an even count. */
export function median(values: readonly number[]): number {
  return sortedQuantile(checkedSample(values, 'median'), 0.5);
}

export function minimum(values: readonly number[]): number {
  return checkedSample(values, 'minimum')[0];
}

export function maximum(values: readonly number[]): number {
  const sorted = checkedSample(values, 'maximum');
  return sorted[sorted.length - 1];
}

export function mean(values: readonly number[]): number {
  const sample = checkedSample(values, 'mean');
  return sample.reduce((sum, v) => sum + v, 0) / sample.length;
}

export interface Quartiles {
  q1: number;
  median: number;
  q3: number;
  /** q3 − q1 */
  iqr: number;
}

export function quartiles(values: readonly number[]): Quartiles {
  const sorted = checkedSample(values, 'quartiles');
  const q1 = sortedQuantile(sorted, 0.25);
  const q3 = sortedQuantile(sorted, 0.75);
  return { q1, median: sortedQuantile(sorted, 0.5), q3, iqr: q3 - q1 };
}

export function iqr(values: readonly number[]): number {
  return quartiles(values).iqr;
}

export interface TimeSummary {
  medianSec: number;
  minSec: number;
  maxSec: number;
  meanSec: number;
  q1Sec: number;
  q3Sec: number;
  iqrSec: number;
}

/** Everything the result model needs from a list of timings; times must be ≥ 0 seconds. */
export function summarizeTimes(timesSec: readonly number[]): TimeSummary {
  const sorted = checkedSample(timesSec, 'summary');
  if (sorted[0] < 0) throw new StatisticsError(`A time cannot be negative (${sorted[0]} s).`);
  const { q1, median: med, q3, iqr: spread } = quartiles(sorted);
  return {
    medianSec: med,
    minSec: sorted[0],
    maxSec: sorted[sorted.length - 1],
    meanSec: mean(sorted),
    q1Sec: q1,
    q3Sec: q3,
    iqrSec: spread,
  };
}

/** Throughput of an n×n by n×n product: 2·n³ floating-point operations in `seconds`, in GFLOP/s. */
export function gflops(n: number, seconds: number): number {
  if (!Number.isInteger(n) || n <= 0) throw new StatisticsError(`Matrix size must be a positive whole number, not ${n}.`);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new StatisticsError(`Time must be a positive number of seconds, not ${seconds}.`);
  return (2 * n ** 3) / seconds / 1e9;
}

/** How many times faster `seconds` is than `baselineSeconds` (> 1: faster than the baseline). */
export function speedup(baselineSeconds: number, seconds: number): number {
  for (const [name, value] of [['Baseline time', baselineSeconds], ['Time', seconds]] as const) {
    if (!Number.isFinite(value) || value <= 0) throw new StatisticsError(`${name} must be a positive number of seconds, not ${value}.`);
  }
  return baselineSeconds / seconds;
}
