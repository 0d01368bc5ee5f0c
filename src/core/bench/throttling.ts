// A GPU result measured while the GPU held its clocks down understates the GPU: said as a
// below-peak problem (code gpu-throttled), from the clocks nvidia-smi reported during the
// result's own window. One problem per device, for its largest result.
//
// Which clock drops count: a GPU running at its power limit sits somewhat below its maximum
// clock under a full matmul load on most data-centre parts (the datasheet peak assumes the
// boost clock), so the power cap, application clocks, or a drop with no reason given, count only
// when the clock fell clearly (below CLEAR_DROP of the maximum). Thermal and hardware slowdowns
// are never normal and count whenever the driver reports them.
//
// The CPU has no such check: inside the VMs and containers these benchmarks mostly run in,
// /proc/cpuinfo's "cpu MHz" is the nominal clock, never the current one, and cpufreq is absent
// (so on the 2-core EPYC guest this was written on), so "the clock fell" could not be told from
// "the clock is not reported", and a wrong claim is worse than none.
import type { ThrottleReason } from './gpuClockSamples';
import type { BenchResult, EngineOutcome } from './model';
import { gpuSamplesIn, windowOf, type GpuClockSample, type RunSamples } from './runSamples';

/** A clock below this fraction of the maximum is a drop worth saying, whatever the reason. */
export const CLEAR_DROP = 0.85;
/** A sample at or above this utilization is the benchmark at work (an idle GPU lowers its clocks, rightly). */
export const BUSY_UTILIZATION = 50;

const ABNORMAL: readonly ThrottleReason[] = ['thermal', 'hw-thermal', 'hw-slowdown', 'power-brake'];

const REASON_WORDS: Partial<Record<ThrottleReason, string>> = {
  thermal: 'thermal slowdown',
  'hw-thermal': 'hardware thermal slowdown',
  'hw-slowdown': 'hardware slowdown',
  'power-brake': 'power brake',
  'power-cap': 'power cap',
  'applications-clocks': 'application clocks set below the maximum',
};

export function isBusy(s: GpuClockSample): boolean {
  if (s.reasons?.includes('gpu-idle')) return false;
  return s.utilizationPercent === null || s.utilizationPercent >= BUSY_UTILIZATION;
}

export function ghzText(mhz: number): string {
  return `${Number((mhz / 1000).toPrecision(3))} GHz`;
}

function largest<T>(values: ReadonlyArray<T | null>): T | null {
  const known = values.filter((v): v is T => v !== null);
  return known.length === 0 ? null : known.reduce((a, b) => (b > a ? b : a));
}

/** What held the clocks down, in the order a person would fix it, with the reading that shows it. */
function reasonText(reasons: ReadonlySet<ThrottleReason>, busy: readonly GpuClockSample[]): string {
  const words: string[] = [];
  const hottest = largest(busy.map((s) => s.temperatureC));
  const power = largest(busy.map((s) => s.powerW));
  const limit = largest(busy.map((s) => s.powerLimitW));
  for (const reason of ['thermal', 'hw-thermal', 'hw-slowdown', 'power-brake', 'power-cap', 'applications-clocks'] as const) {
    if (!reasons.has(reason)) continue;
    let word = REASON_WORDS[reason] as string;
    if ((reason === 'thermal' || reason === 'hw-thermal') && hottest !== null) word += ` at ${Math.round(hottest)} °C`;
    if (reason === 'power-cap' && power !== null) word += ` at ${Math.round(power)} W${limit !== null ? ` of ${Math.round(limit)} W` : ''}`;
    words.push(word);
  }
  return words.join(', ');
}

function remedyFor(reasons: ReadonlySet<ThrottleReason>): string {
  const parts: string[] = [];
  if (reasons.has('thermal') || reasons.has('hw-thermal') || reasons.has('hw-slowdown')) {
    parts.push('Check the GPU\'s cooling and airflow (nvidia-smi -q -d TEMPERATURE,PERFORMANCE shows the slowdown temperatures and which reasons are active), then run again once it has cooled.');
  }
  if (reasons.has('power-brake')) parts.push('The power brake is asserted by the system (an external power supply signal): check the board\'s power connection.');
  if (reasons.has('power-cap')) parts.push('The board reached its power limit (nvidia-smi -q -d POWER); a lower limit set by an administrator (nvidia-smi -pl) holds the clocks down.');
  if (reasons.has('applications-clocks')) parts.push('Application clocks are set below the maximum: nvidia-smi -rac resets them (administrator).');
  if (parts.length === 0) parts.push('Watch nvidia-smi -q -d PERFORMANCE while it runs to see why the clocks fell; other work on the GPU or its cooling are the usual causes.');
  return parts.join(' ');
}

/** The gpu-throttled problem of one device's samples during a result, or null when its clocks held. */
export function throttleProblem(r: BenchResult, samples: readonly GpuClockSample[]): EngineOutcome | null {
  const busy = samples.filter(isBusy);
  const clocks = busy.map((s) => s.smClockMhz).filter((c): c is number => c !== null);
  const max = largest(busy.map((s) => s.maxSmClockMhz));
  const lowest = clocks.length > 0 ? Math.min(...clocks) : null;
  const reasons = new Set(busy.flatMap((s) => s.reasons ?? []));
  const abnormal = ABNORMAL.some((reason) => reasons.has(reason));
  const clearDrop = lowest !== null && max !== null && lowest < CLEAR_DROP * max;
  if (!abnormal && !clearDrop) return null;
  const why = reasonText(reasons, busy);
  const clockText = lowest !== null && max !== null
    ? lowest < 0.97 * max ? `clocks fell to ${ghzText(lowest)} of ${ghzText(max)} max during the run` : `clocks stayed near ${ghzText(max)} max, but the GPU slowed down during the run`
    : 'the GPU slowed down during the run';
  return {
    status: 'below-peak', code: 'gpu-throttled',
    engine: r.engine, device: r.device, dtype: r.dtype, size: r.size,
    message: `${clockText}${why ? ` (${why})` : ''}: the result understates the GPU.`,
    remedy: remedyFor(reasons),
  };
}

/** One gpu-throttled problem per GPU whose clocks were held down during its results, named by the largest of those results. */
export function diagnoseThrottling(results: readonly BenchResult[], samples: RunSamples): EngineOutcome[] {
  const byDevice = new Map<string, { r: BenchResult; samples: GpuClockSample[] }>();
  for (const r of results) {
    if (r.device === 'cpu') continue;
    const window = windowOf(samples, r);
    if (!window) continue;
    const seen = byDevice.get(r.device);
    const inWindow = gpuSamplesIn(samples, r.device, window);
    byDevice.set(r.device, { r: !seen || r.size > seen.r.size ? r : seen.r, samples: [...(seen?.samples ?? []), ...inWindow] });
  }
  const problems: EngineOutcome[] = [];
  for (const { r, samples: seen } of byDevice.values()) {
    const problem = throttleProblem(r, seen);
    if (problem) problems.push(problem);
  }
  return problems;
}
