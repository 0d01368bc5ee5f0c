// Whether a run's comparison can be headlined (issue 28 item 8): on a busy host the panel read
// "torch cpu 2 threads is 1.4× slower than 1 thread", blaming the product for the machine, while
// the reason sat in a tooltip. A busy host is said first; a comparison whose two results' middle
// halves overlap is decided by noise and is not headlined as a speedup; one whose thread count
// the BLAS ignored (diagnosis.ts: blas-threads) compares nothing.
import type { BenchResult, BenchRun, BenchTarget, SpeedupEntry, SpeedupReport } from './model';
import { sameTarget } from './compare';

/** The result an entry (or its baseline) speaks of: same target, size and dtype. */
export function resultOf(results: readonly BenchResult[], target: BenchTarget, size: number, dtype: string): BenchResult | undefined {
  return results.find((r) => sameTarget(r, target) && r.size === size && r.dtype === dtype);
}

/** The middle half of a result's repeats as times, approximated by the median ± IQR / 2. */
function middleHalf(r: BenchResult): [number, number] {
  return [r.medianSec - r.iqrSec / 2, r.medianSec + r.iqrSec / 2];
}

/** Noise decides between two results when their middle halves overlap: a repeat of the run could order them either way. */
export function noiseDecides(a: BenchResult, b: BenchResult): boolean {
  const [aLow, aHigh] = middleHalf(a);
  const [bLow, bHigh] = middleHalf(b);
  return aLow <= bHigh && bLow <= aHigh;
}

/** What the run watcher saw of other load on the host while any result ran (the first such sentence), else null. */
export function busyHost(results: readonly BenchResult[]): string | null {
  return results.find((r) => r.hostLoad)?.hostLoad ?? null;
}

export type EntryVerdict =
  | { kind: 'clear' }
  | { kind: 'noise'; why: string }
  | { kind: 'meaningless'; why: string };

/** Whether a speedup entry may be headlined as it stands. */
export function entryVerdict(run: Pick<BenchRun, 'results' | 'problems' | 'speedup'>, entry: SpeedupEntry): EntryVerdict {
  const baseline = run.speedup?.baseline;
  if (!baseline) return { kind: 'clear' };
  const scaling = entry.engine === baseline.engine && entry.device === 'cpu' && baseline.device === 'cpu';
  const ignored = run.problems.find((p) => p.code === 'blas-threads' && p.device === 'cpu' && p.size === entry.size);
  if (scaling && ignored) return { kind: 'meaningless', why: ignored.message };
  const a = resultOf(run.results, entry, entry.size, entry.dtype);
  const b = resultOf(run.results, baseline, entry.size, entry.baselineDtype);
  if (a && b && (a.hostLoad || b.hostLoad)) {
    return { kind: 'noise', why: 'the machine was busy while they ran, so its load, not the engines, may decide which is faster; run again when it is quieter' };
  }
  if (a && b && noiseDecides(a, b)) {
    return { kind: 'noise', why: 'their repeats overlap, so noise decides which is faster; run again when the machine is quieter' };
  }
  return { kind: 'clear' };
}

/**
 * The speedups that compare something: without those whose comparison measures nothing (a
 * "1 thread" run the BLAS ignored), so no table or chart calls that run the baseline or
 * shows its ratio while the headline says there is no comparison. Null when none is left.
 */
export function comparedSpeedup(run: Pick<BenchRun, 'results' | 'speedup'> & { problems?: BenchRun['problems'] }): SpeedupReport | null {
  const report = run.speedup;
  if (!report) return null;
  const full = { results: run.results, speedup: report, problems: run.problems ?? [] };
  const entries = report.entries.filter((e) => entryVerdict(full, e).kind !== 'meaningless');
  if (entries.length === report.entries.length) return report;
  return entries.length > 0 ? { ...report, entries } : null;
}
