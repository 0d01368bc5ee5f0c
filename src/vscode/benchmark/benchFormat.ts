// Numbers and sentences of a benchmark result for people: GFLOP/s, milliseconds, speedups, and
// the headline "cuda:0 is 143× faster than torch cpu". Shared by the results panel, its history
// and the command's messages. No vscode import.
import { mixesDtypes, type BenchResult, type BenchRun, type BenchTarget, type Dtype, type EngineId, type SpeedupEntry } from '../../core/bench/model';
import { isThreadScaling, speedupSentence as coreSpeedupSentence } from '../../core/bench/compare';
import { threadsText } from '../../core/bench/cpuThreads';
import { busyHost, entryVerdict } from '../../core/bench/headlineJudgement';
import { significant } from '../../core/bench/numberText';

/** "12.3", "456", "12,345": three significant digits below 1000, whole numbers above. */
export function formatGflops(gflops: number): string {
  if (!Number.isFinite(gflops)) return '—';
  if (gflops >= 1000) return Math.round(gflops).toLocaleString('en-US');
  return significant(gflops, 3);
}

/** Seconds as milliseconds with three significant digits: "0.0123", "12.3", "1,234". */
export function formatMs(seconds: number): string {
  if (!Number.isFinite(seconds)) return '—';
  const ms = seconds * 1e3;
  return ms >= 1000 ? Math.round(ms).toLocaleString('en-US') : significant(ms, 3);
}

/** "143×", "3.1×", "1.02×". */
export function formatSpeedup(speedup: number): string {
  if (!Number.isFinite(speedup)) return '—';
  if (speedup >= 100) return `${Math.round(speedup).toLocaleString('en-US')}×`;
  return `${significant(speedup, speedup >= 10 ? 3 : 2)}×`;
}

export function formatRelError(value: number): string {
  return Number.isFinite(value) ? value.toExponential(1) : '—';
}

/** "cuda:0" for PyTorch on an accelerator (what users call it), else "wasm cpu", "torch cpu", "torch cpu 2 threads". */
export function targetLabel(engine: EngineId, device: string, dtype?: Dtype, threads?: number): string {
  const name = engine === 'torch' && device !== 'cpu' ? device : `${engine} ${device}${threads === undefined ? '' : ` ${threadsText(threads)}`}`;
  return dtype && dtype !== 'float32' ? `${name} (${dtype})` : name;
}

/** A series of a chart: one engine on one device (torch on the CPU: at one thread count) in one dtype. */
export function seriesLabel(r: Pick<BenchResult, 'engine' | 'device' | 'dtype' | 'threads'>): string {
  return `${r.engine} ${r.device}${r.threads === undefined ? '' : ` ${threadsText(r.threads)}`}${r.dtype === 'float32' ? '' : ` ${r.dtype}`}`;
}

export interface BestResult {
  engine: EngineId;
  device: string;
  /** torch on the CPU at a set thread count (history names it: two torch rows differ only there). */
  threads?: number;
  dtype: Dtype;
  size: number;
  gflops: number;
}

/** The highest GFLOP/s of the run (at `size` when given), or null when nothing was measured there. */
export function bestResult(run: Pick<BenchRun, 'results'>, size?: number): BestResult | null {
  let best: BenchResult | null = null;
  for (const r of run.results) if ((size === undefined || r.size === size) && (best === null || r.gflops > best.gflops)) best = r;
  return best && { engine: best.engine, device: best.device, ...(best.threads === undefined ? {} : { threads: best.threads }), dtype: best.dtype, size: best.size, gflops: best.gflops };
}

/**
 * The one size the panel's summary speaks of: the headline's speedup and the bars both use
 * it, so they can never disagree (a sweep once headlined n = 2048 over bars of n = 256).
 * The largest size with a speedup, else the largest size measured; null when nothing was.
 */
export function summarySize(run: Pick<BenchRun, 'results' | 'speedup'>): number | null {
  const compared = run.speedup?.entries.map((e) => e.size) ?? [];
  const sizes = compared.length > 0 ? compared : run.results.map((r) => r.size);
  return sizes.length > 0 ? Math.max(...sizes) : null;
}

export interface SpeedupHeadline {
  /** "cuda:0 is 143× faster than torch cpu"; where noise decides, "No clear difference between …". */
  text: string;
  /** Why the comparison is not headlined as a speedup (noise decides it, or the BLAS ignored the thread count). */
  caution?: string;
  /** "n = 1024, float32". */
  context: string;
  entry: SpeedupEntry;
}

/**
 * The run's one-line answer: at the largest size compared, the target with the largest speedup
 * against the CPU baseline, said of the faster of the two. null without a baseline or anything to compare.
 */
export function speedupHeadline(run: Pick<BenchRun, 'speedup' | 'results'> & Partial<Pick<BenchRun, 'problems'>>): SpeedupHeadline | null {
  const report = run.speedup;
  if (!report || report.entries.length === 0) return null;
  const size = summarySize(run)!;
  const atSize = report.entries.filter((e) => e.size === size);
  const entry = atSize.reduce((a, b) => (b.speedup > a.speedup ? b : a));
  const dtypes = mixesDtypes(entry) ? `${entry.dtype} against ${entry.baselineDtype}` : entry.dtype;
  const verdict = entryVerdict({ ...run, problems: run.problems ?? [] }, entry);
  if (verdict.kind !== 'clear') return { text: undecidedSentence(entry, report.baseline, verdict.kind), caution: verdict.why, context: `n = ${entry.size}, ${dtypes}`, entry };
  // The CPU-only default: said as the thread scaling it is ("torch cpu 2 threads is 1.9× faster than 1 thread").
  if (isThreadScaling(entry, report.baseline)) return { text: coreSpeedupSentence(entry, report.baseline), context: `n = ${entry.size}, ${dtypes}`, entry };
  const { subject, baseline } = speedupLabels(entry, report.baseline);
  // Said of the faster side: on a CPU-only machine the baseline (wasm) often beats the rest (js).
  const text = entry.speedup < 0.95 ? `${baseline} is ${formatSpeedup(1 / entry.speedup)} faster than ${subject}` : speedupSentence(entry, report.baseline);
  return { text, context: `n = ${entry.size}, ${dtypes}`, entry };
}

/** A comparison not to headline: "No clear difference between torch cpu 2 threads and 1 thread", "No thread comparison: …". */
export function undecidedSentence(entry: SpeedupEntry, baseline: BenchTarget, kind: 'noise' | 'meaningless'): string {
  const scaling = isThreadScaling(entry, baseline);
  const subject = scaling ? targetLabel(entry.engine, entry.device, undefined, entry.threads) : speedupLabels(entry, baseline).subject;
  const other = scaling ? threadsText(baseline.threads as number) : speedupLabels(entry, baseline).baseline;
  return kind === 'noise' ? `No clear difference between ${subject} and ${other}` : `No thread comparison between ${subject} and ${other}`;
}

/** Each speedup as a line, or as undecided where noise decides it or it compares nothing. */
export function judgedSpeedupSentence(run: Pick<BenchRun, 'speedup' | 'results' | 'problems'>, entry: SpeedupEntry): string {
  const baseline = run.speedup!.baseline;
  const verdict = entryVerdict(run, entry);
  return verdict.kind === 'clear' ? speedupSentence(entry, baseline) : `${undecidedSentence(entry, baseline, verdict.kind)}: ${verdict.why}`;
}

/** "The machine was busy while this ran: …", said before any comparison; null on a quiet host. */
export function busyHostSentence(run: Pick<BenchRun, 'results'>): string | null {
  const load = busyHost(run.results);
  return load ? `The machine was busy while this ran: ${load}. These figures are lower and noisier than this machine can do; run again when it is quieter.` : null;
}

/**
 * The two sides of a speedup: "cuda:0" and "torch cpu" for equal dtypes; both dtypes named
 * when they differ ("cuda:0 (float16)" and "torch cpu (float32)"), so a float16 figure is
 * not read as if the CPU had run float16 too.
 */
export function speedupLabels(entry: SpeedupEntry, baseline: BenchTarget): { subject: string; baseline: string } {
  if (!mixesDtypes(entry)) return { subject: targetLabel(entry.engine, entry.device, entry.dtype, entry.threads), baseline: targetLabel(baseline.engine, baseline.device, entry.dtype === 'float32' ? undefined : entry.dtype, baseline.threads) };
  return { subject: `${targetLabel(entry.engine, entry.device, undefined, entry.threads)} (${entry.dtype})`, baseline: `${targetLabel(baseline.engine, baseline.device, undefined, baseline.threads)} (${entry.baselineDtype})` };
}

/** "… is 3.1× faster than …", "… is 2.0× slower than …", "… is about as fast as …"; a thread scaling as the core says it. */
export function speedupSentence(entry: SpeedupEntry, baselineTarget: BenchTarget): string {
  if (isThreadScaling(entry, baselineTarget)) return coreSpeedupSentence(entry, baselineTarget);
  const { subject, baseline: baselineLabel } = speedupLabels(entry, baselineTarget);
  if (entry.speedup >= 0.95 && entry.speedup <= 1.05) return `${subject} is about as fast as ${baselineLabel}`;
  if (entry.speedup > 1) return `${subject} is ${formatSpeedup(entry.speedup)} faster than ${baselineLabel}`;
  return `${subject} is ${formatSpeedup(1 / entry.speedup)} slower than ${baselineLabel}`;
}

/** "256–2048", "1024", or "256, 1024" where sizes between were not run: the sizes of `results`. */
export function sizeRange(sizes: readonly number[]): string {
  const sorted = [...new Set(sizes)].sort((a, b) => a - b);
  if (sorted.length <= 2) return sorted.join(', ');
  return `${sorted[0]}–${sorted[sorted.length - 1]}`;
}

/**
 * What a cancelled run kept, for the panel's status line: "cancelled at n = 4096; 256–2048
 * kept", or null when nothing had finished. The size is the first run the cancel stopped.
 */
export function cancelSummary(run: Pick<BenchRun, 'results' | 'problems'>): string | null {
  if (run.results.length === 0) return null;
  const stopped = run.problems.find((p) => p.status === 'cancelled');
  const where = stopped?.size != null ? `cancelled at n = ${stopped.size}` : 'cancelled';
  const sizes = run.results.map((r) => r.size);
  const distinct = new Set(sizes).size;
  const count = distinct < sizes.length ? ` (${sizes.length} results)` : '';
  return `${where}; ${distinct === 1 ? 'n = ' : ''}${sizeRange(sizes)} kept${count}`;
}
