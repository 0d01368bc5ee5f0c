// Speedup over the CPU, measured in the same run: the question "how much faster is my
// GPU than my CPU" (or, on a CPU-only machine, "how much do all my cores buy over one")
// needs both numbers from the same machine state.
import { threadsText } from './cpuThreads';
import { BenchResult, BenchRun, BenchTarget, EngineId, RunResult, SpeedupEntry, SpeedupReport, isMeasured, mixesDtypes } from './model';
import { significant } from './numberText';
import { speedup } from './statistics';

/**
 * Which CPU result is the baseline, best first: what the user's PyTorch gets on the CPU,
 * then native TensorFlow, then the bundled wasm engine, then the pure-JavaScript reference.
 */
export const BASELINE_PREFERENCE: readonly { engine: EngineId; device: string }[] = [
  { engine: 'torch', device: 'cpu' },
  { engine: 'tfjs-node', device: 'cpu' },
  { engine: 'wasm', device: 'cpu' },
  { engine: 'js', device: 'cpu' },
];

/** The target a result ran on: engine, device and, where set, torch's thread count. */
export function targetOf(r: BenchTarget): BenchTarget {
  return r.threads === undefined ? { engine: r.engine, device: r.device } : { engine: r.engine, device: r.device, threads: r.threads };
}

/** Same engine, device and thread count (both unset counts as the same). */
export function sameTarget(a: BenchTarget, b: BenchTarget): boolean {
  return a.engine === b.engine && a.device === b.device && a.threads === b.threads;
}

/** True for the results of the run's baseline (which have no speedup of their own); none when nothing was compared with it. */
export function isBaselineResult(report: SpeedupReport | null, r: BenchTarget): boolean {
  return report !== null && report.entries.length > 0 && sameTarget(report.baseline, r);
}

/**
 * The baseline target: the first engine/device of BASELINE_PREFERENCE in the results; where
 * torch ran on the CPU at several thread counts (the CPU-only default), the fewest, so that
 * the speedups read as the thread scaling.
 */
export function chooseBaseline(results: readonly BenchResult[]): BenchTarget | null {
  for (const candidate of BASELINE_PREFERENCE) {
    const matching = results.filter((r) => r.engine === candidate.engine && r.device === candidate.device);
    if (matching.length === 0) continue;
    const fewest = matching.reduce((a, b) => ((b.threads ?? Infinity) < (a.threads ?? Infinity) ? b : a));
    return targetOf(fewest);
  }
  return null;
}

/** An entry against the same engine on the same device at another thread count. */
export function isThreadScaling(entry: BenchTarget, baseline: BenchTarget): boolean {
  return entry.engine === baseline.engine && entry.device === baseline.device && entry.threads !== undefined && baseline.threads !== undefined;
}

/** 'thread-scaling' when every speedup is torch against itself at fewer threads, else 'versus-baseline'. */
export function speedupKind(report: SpeedupReport): 'thread-scaling' | 'versus-baseline' {
  return report.entries.length > 0 && report.entries.every((e) => isThreadScaling(e, report.baseline)) ? 'thread-scaling' : 'versus-baseline';
}

/** "torch cpu 2 threads", "torch cuda:0", "wasm cpu". */
export function targetName(t: BenchTarget): string {
  return `${t.engine} ${t.device}${t.threads === undefined ? '' : ` ${threadsText(t.threads)}`}`;
}

function factorText(x: number): string {
  return `${significant(x, x >= 10 ? 3 : 2)}×`;
}

/**
 * The speedup in words, said of the entry: "torch cpu 2 threads is 1.9× faster than 1 thread"
 * for a thread scaling, else "torch cuda:0 is 41× faster than torch cpu 2 threads", with both
 * dtypes named where they differ. Within 5 % either way: "about as fast as".
 */
export function speedupSentence(entry: SpeedupEntry, baseline: BenchTarget): string {
  const scaling = isThreadScaling(entry, baseline);
  const mixed = mixesDtypes(entry);
  const subject = `${targetName(entry)}${mixed ? ` (${entry.dtype})` : ''}`;
  const other = scaling && !mixed ? threadsText(baseline.threads as number) : `${scaling ? threadsText(baseline.threads as number) : targetName(baseline)}${mixed ? ` (${entry.baselineDtype})` : ''}`;
  if (entry.speedup >= 0.95 && entry.speedup <= 1.05) return `${subject} is about as fast as ${other}`;
  if (entry.speedup > 1) return `${subject} is ${factorText(entry.speedup)} faster than ${other}`;
  return `${subject} is ${factorText(1 / entry.speedup)} slower than ${other}`;
}

/** Speedups of every non-baseline result; null when the run has no CPU baseline. */
export function computeSpeedups(results: readonly BenchResult[]): SpeedupReport | null {
  const baseline = chooseBaseline(results);
  if (!baseline) return null;
  const isBaseline = (r: BenchResult) => sameTarget(r, baseline);
  const baselineResults = results.filter(isBaseline);
  const entries: SpeedupEntry[] = [];
  for (const result of results) {
    if (isBaseline(result)) continue;
    const reference =
      baselineResults.find((b) => b.size === result.size && b.dtype === result.dtype) ??
      baselineResults.find((b) => b.size === result.size && b.dtype === 'float32');
    if (!reference) continue;
    entries.push({
      engine: result.engine,
      device: result.device,
      ...(result.threads !== undefined ? { threads: result.threads } : {}),
      dtype: result.dtype,
      baselineDtype: reference.dtype,
      size: result.size,
      speedup: speedup(reference.medianSec, result.medianSec),
    });
  }
  return { baseline, entries };
}

/** Collects engine runs into one benchmark session: measurements, problems, speedups. */
export function buildRun(runs: readonly RunResult[]): BenchRun {
  const results: BenchResult[] = [];
  const problems: BenchRun['problems'] = [];
  for (const run of runs) {
    if (isMeasured(run)) results.push(run.result);
    else problems.push(run);
  }
  return { results, problems, speedup: computeSpeedups(results) };
}
