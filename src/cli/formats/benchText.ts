// `device-doctor bench` as a person reads it: what was compared, a table of the runs
// (median, ±IQR, GFLOP/s, the product's largest relative error, the speedup), the
// host↔device bandwidths when measured, and each problem with its remedy.
import { isBaselineResult, isThreadScaling, speedupSentence, targetName } from '../../core/bench/compare';
import { speedupEntryOf, speedupText } from '../../core/bench/export';
import { mixesDtypes } from '../../core/bench/model';
import { samplingText } from '../../core/bench/repeatBudget';
import { isNoisy } from '../../core/bench/diagnosis';
import { entryVerdict } from '../../core/bench/headlineJudgement';
import { GENERIC_NOISE_REASON } from '../../core/bench/noiseReason';
import type { BenchResult, TransferResult } from '../../core/bench/model';
import type { BenchRunResponse } from '../../protocol/worker';
import { sweepSentences } from '../../core/bench/sweep';
import { terminalLines } from './terminalText';
import { percentText, significant } from '../../core/bench/numberText';

function pad(rows: string[][], rightAligned: ReadonlySet<number>): string[] {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) =>
    row
      .map((cell, column) => (rightAligned.has(column) ? cell.padStart(widths[column]) : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd(),
  );
}

function isBaseline(run: BenchRunResponse, r: BenchResult): boolean {
  return isBaselineResult(run.speedup, r);
}

function speedupCell(run: BenchRunResponse, r: BenchResult): string {
  // "baseline" means something only beside another engine, device or thread count.
  const targets = new Set(run.results.map((x) => targetName(x)));
  if (isBaseline(run, r)) return targets.size > 1 ? 'baseline' : '';
  const s = speedupEntryOf(run, r);
  return s === undefined ? '' : speedupText(s, (x) => `${significant(x)}×`);
}

/** "14 %", "0.52 %"; empty when the device's peak is unknown. */
export function percentCell(percent: number | null | undefined): string {
  if (percent === null || percent === undefined || !Number.isFinite(percent)) return '';
  return percentText(percent);
}

/** The table of measured runs; a result whose repeats disagree (IQR above 10 % of the median) says "noisy". */
export function resultTable(run: BenchRunResponse): string[] {
  const header = ['ENGINE', 'DEVICE', 'DTYPE', 'N', 'MEDIAN ms', '±IQR ms', 'GFLOP/s', '% PEAK', 'MAX REL ERR', 'SPEEDUP'];
  const rows = run.results.map((r) => [
    r.engine,
    // torch on the CPU at a set thread count (the CPU-only default runs two): "cpu ×2".
    r.threads === undefined ? r.device : `${r.device} ×${r.threads}`,
    r.dtype,
    String(r.size),
    significant(r.medianSec * 1e3),
    `${significant(r.iqrSec * 1e3, 2)}${r.noisy ?? isNoisy(r) ? ' noisy' : ''}`,
    r.gflops.toFixed(1),
    percentCell(r.percentOfPeak),
    r.maxRelError.toExponential(1),
    speedupCell(run, r),
  ]);
  return pad([header, ...rows], new Set([3, 4, 5, 6, 7, 8, 9]));
}

/** What the % of peak is of, once per distinct peak ("% PEAK: of the float32 peak of 2 cores × …"). */
function peakLines(run: BenchRunResponse): string[] {
  const bases = [...new Set(run.results.map((r) => r.peakBasis).filter((b): b is string => typeof b === 'string'))];
  if (bases.length === 0) return [];
  return ['', ...bases.map((b) => `% PEAK of the ${b}.`)];
}

/** Why the noisy results are noisy, as the run watcher saw it: one line when every one has the same reason, else one per result. */
function noiseLines(run: BenchRunResponse): string[] {
  const noisy = run.results.filter((r) => r.noisy ?? isNoisy(r));
  if (noisy.length === 0) return [];
  const reasonOf = (r: BenchResult) => r.noiseReason ?? GENERIC_NOISE_REASON;
  const reasons = new Set(noisy.map(reasonOf));
  const heading = `noisy: ${noisy.length === 1 ? 'this result\'s' : `${noisy.length} results'`} repeats spread by more than 10 % of the median (IQR)`;
  if (reasons.size === 1) return ['', `${heading}: ${reasonOf(noisy[0])}.`];
  return ['', `${heading}:`, ...noisy.map((r) => `  ${r.engine} ${r.device} ${r.dtype} n = ${r.size}: ${reasonOf(r)}.`)];
}

/**
 * "torch on cuda:0 is 41.2× faster than torch on the CPU (n = 4096, float32)", one per entry;
 * "(n = 4096, float16 against the CPU's float32)" when the baseline had no float16; a thread
 * scaling as the core says it: "torch cpu 2 threads is 1.9× faster than 1 thread (n = 1024, float32)".
 */
export function speedupLines(run: BenchRunResponse): string[] {
  if (!run.speedup) return [];
  const { baseline } = run.speedup;
  return run.speedup.entries.map((e) => {
    // Noise, the host's load or a BLAS that ignored the thread count decides it: not a speedup (issue 28 item 8).
    const verdict = entryVerdict(run, e);
    if (verdict.kind !== 'clear') return `${targetName(e)} against ${targetName(baseline)}: no clear comparison, ${verdict.why} (n = ${e.size})`;
    if (isThreadScaling(e, baseline)) return `${speedupSentence(e, baseline)} (n = ${e.size}, ${mixesDtypes(e) ? `${e.dtype} against ${e.baselineDtype}` : e.dtype})`;
    const how = e.speedup >= 1 ? `${significant(e.speedup)}× faster than` : `${significant(1 / e.speedup)}× slower than`;
    const dtypes = mixesDtypes(e) ? `${e.dtype} against the CPU's ${e.baselineDtype}` : e.dtype;
    return `${e.engine} on ${e.device} is ${how} ${baseline.engine} on the CPU (n = ${e.size}, ${dtypes})`;
  });
}

const DIRECTION_TEXT: Record<TransferResult['direction'], string> = { hostToDevice: 'host → device', deviceToHost: 'device → host', deviceToDevice: 'device → device' };

function transferLine(t: TransferResult): string {
  const what = t.direction === 'deviceToDevice' ? `${DIRECTION_TEXT[t.direction]} (dst.copy_(src), read + write)` : `${DIRECTION_TEXT[t.direction]}, ${t.memory}`;
  if (t.status !== 'ok' || t.gbPerSec === null) return `  ${what}: not measured (${t.message ?? t.status})`;
  const share = t.percentOfPeak == null ? '' : `, ${Math.round(t.percentOfPeak)} % of the ${t.peakGbPerSec} GB/s datasheet`;
  return `  ${what}: ${t.gbPerSec.toFixed(1)} GB/s (${significant(t.bytes / 1024 ** 2)} MiB copies${share})`;
}

/** How the times were taken, when some result adapted its samples to a budget (the table's column says only the median). */
function samplingLines(run: BenchRunResponse): string[] {
  return run.results.some((r) => r.repeatBudgetSec != null) ? ['', `Times: ${samplingText(run.results)}.`] : [];
}

function problemLines(heading: string, problems: BenchRunResponse['problems']): string[] {
  if (problems.length === 0) return [];
  const lines = ['', heading];
  for (const p of problems) {
    const where = [p.engine, p.device, p.dtype, p.size === null ? null : `n = ${p.size}`].filter(Boolean).join(' ');
    lines.push(`  ${where} (${p.status}): ${p.message}`);
    if (p.remedy) lines.push(`    fix: ${p.remedy}`);
  }
  return lines;
}

/** The whole text output. */
export function formatBenchText(run: BenchRunResponse): string {
  const lines = [`${run.description}${run.cancelled ? ' (cancelled)' : ''}`, ''];
  if (run.results.length > 0) lines.push(...resultTable(run), ...samplingLines(run), ...peakLines(run), ...noiseLines(run));
  else lines.push('Nothing was measured.');
  if (run.sweep) lines.push('', ...sweepSentences(run.sweep));
  const speedups = speedupLines(run);
  if (speedups.length > 0) lines.push('', ...speedups);
  const devices = [...new Set(run.transfers.map((t) => t.device))];
  for (const device of devices) {
    const copies = run.transfers.filter((t) => t.device === device);
    const heading = copies.every((t) => t.direction === 'deviceToDevice') ? `${device} memory copy (torch)` : `Host ↔ ${device} copies (torch)`;
    lines.push('', heading, ...copies.map(transferLine));
  }
  lines.push(...problemLines('Diagnosis', run.problems.filter((p) => p.status === 'below-peak')));
  lines.push(...problemLines('Not measured', run.problems.filter((p) => p.status !== 'below-peak')));
  // Messages and device names come from tools and the user's Python.
  return terminalLines(lines);
}
