// Numbers and sentences of a benchmark result for people: GFLOP/s, milliseconds, speedups, and
// the headline "cuda:0 is 143× faster than torch cpu". Shared by the results panel, its history
// and the command's messages. No vscode import.
import type { BenchResult, BenchRun, Dtype, EngineId, SpeedupEntry } from '../../core/bench/model';

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

function significant(value: number, digits: number): string {
  if (value === 0) return '0';
  return Number(value.toPrecision(digits)).toString();
}

/** "cuda:0" for PyTorch on an accelerator (what users call it), else "wasm cpu", "torch cpu". */
export function targetLabel(engine: EngineId, device: string, dtype?: Dtype): string {
  const name = engine === 'torch' && device !== 'cpu' ? device : `${engine} ${device}`;
  return dtype && dtype !== 'float32' ? `${name} (${dtype})` : name;
}

/** A series of a chart: one engine on one device in one dtype. */
export function seriesLabel(r: Pick<BenchResult, 'engine' | 'device' | 'dtype'>): string {
  return `${r.engine} ${r.device}${r.dtype === 'float32' ? '' : ` ${r.dtype}`}`;
}

export interface BestResult {
  engine: EngineId;
  device: string;
  dtype: Dtype;
  size: number;
  gflops: number;
}

/** The highest GFLOP/s of the run, or null when nothing was measured. */
export function bestResult(run: Pick<BenchRun, 'results'>): BestResult | null {
  let best: BenchResult | null = null;
  for (const r of run.results) if (best === null || r.gflops > best.gflops) best = r;
  return best && { engine: best.engine, device: best.device, dtype: best.dtype, size: best.size, gflops: best.gflops };
}

export interface SpeedupHeadline {
  /** "cuda:0 is 143× faster than torch cpu". */
  text: string;
  /** "n = 1024, float32". */
  context: string;
  entry: SpeedupEntry;
}

/**
 * The run's one-line answer: at the largest size compared, the target with the largest speedup
 * against the CPU baseline, said of the faster of the two. null without a baseline or anything to compare.
 */
export function speedupHeadline(run: Pick<BenchRun, 'speedup'>): SpeedupHeadline | null {
  const report = run.speedup;
  if (!report || report.entries.length === 0) return null;
  const size = Math.max(...report.entries.map((e) => e.size));
  const atSize = report.entries.filter((e) => e.size === size);
  const entry = atSize.reduce((a, b) => (b.speedup > a.speedup ? b : a));
  const baseline = targetLabel(report.baseline.engine, report.baseline.device);
  // Said of the faster side: on a CPU-only machine the baseline (wasm) often beats the rest (js).
  const text = entry.speedup < 0.95
    ? `${baseline} is ${formatSpeedup(1 / entry.speedup)} faster than ${targetLabel(entry.engine, entry.device, entry.dtype)}`
    : speedupSentence(entry, baseline);
  return { text, context: `n = ${entry.size}, ${entry.dtype}`, entry };
}

/** "… is 3.1× faster than …", "… is 2.0× slower than …", "… is about as fast as …". */
export function speedupSentence(entry: SpeedupEntry, baselineLabel: string): string {
  const subject = targetLabel(entry.engine, entry.device, entry.dtype);
  if (entry.speedup >= 0.95 && entry.speedup <= 1.05) return `${subject} is about as fast as ${baselineLabel}`;
  if (entry.speedup > 1) return `${subject} is ${formatSpeedup(entry.speedup)} faster than ${baselineLabel}`;
  return `${subject} is ${formatSpeedup(1 / entry.speedup)} slower than ${baselineLabel}`;
}
