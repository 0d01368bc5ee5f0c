// A benchmark session as JSON (the CLI's --json and the panel's export), CSV and Markdown.
import { isBaselineResult, sameTarget, speedupKind, speedupSentence } from './compare';
import { isNoisy } from './diagnosis';
import { GENERIC_NOISE_REASON } from './noiseReason';
import { BENCH_SCHEMA_VERSION, BenchResult, BenchRun, EngineOutcome, SpeedupEntry, SpeedupReport, mixesDtypes } from './model';
import { significant } from './numberText';

/** One result as `--json` prints it: exactly these keys, in this order (schemaVersion 1, as README.md shows it; scripts read it). */
export interface BenchJsonResult {
  engine: string;
  device: string;
  /** torch on the CPU: the thread count it ran with; null: the engine's own choice. */
  threads: number | null;
  dtype: string;
  size: number;
  repeats: number;
  timesSec: number[];
  medianSec: number;
  iqrSec: number;
  gflops: number;
  /** The device's peak for this dtype (null: unknown), gflops as a percent of it, and what the peak is. */
  peakGflops: number | null;
  percentOfPeak: number | null;
  peakBasis: string | null;
  /** IQR above 10 % of the median: the repeats disagree (other load, clocks changing). */
  noisy: boolean;
  /** Why, as far as the run watcher saw (noiseReason.ts); null when not noisy. */
  noiseReason: string | null;
  maxRelError: number;
}

/** An outcome that is not a measurement (EngineOutcome without undefined fields). */
export interface BenchJsonProblem {
  engine: string;
  device: string | null;
  dtype: string | null;
  size: number | null;
  status: string;
  message: string;
  remedy: string | null;
  code?: string;
  neededBytes?: number;
  freeBytes?: number;
  estimatedSec?: number;
  budgetSec?: number;
  maxRelError?: number;
  threshold?: number;
}

/**
 * `{"schemaVersion": 1, "results": [...], "speedup": {...} | null, "problems": [...]}`.
 * `speedup` is SpeedupReport (model.ts) with what it measures and each entry in words:
 * `{"kind": "thread-scaling" | "versus-baseline", "baseline": {"engine", "device", "threads"?},
 * "entries": [{"engine", "device", "threads"?, "dtype", "baselineDtype", "size", "speedup",
 * "text"}]}`, or null without a CPU baseline; baselineDtype differs from dtype where the
 * baseline lacks the dtype (float32 then). `problems` (always present, often empty) lists
 * engines that did not measure and why.
 */
export interface BenchJson {
  schemaVersion: typeof BENCH_SCHEMA_VERSION;
  results: BenchJsonResult[];
  speedup: BenchJsonSpeedup | null;
  problems: BenchJsonProblem[];
}

/** "thread-scaling": torch on the CPU against itself at one thread (the CPU-only default). */
export interface BenchJsonSpeedup extends SpeedupReport {
  kind: 'thread-scaling' | 'versus-baseline';
  entries: (SpeedupEntry & { text: string })[];
}

function toJsonSpeedup(report: SpeedupReport): BenchJsonSpeedup {
  return {
    kind: speedupKind(report),
    baseline: { ...report.baseline },
    entries: report.entries.map((e) => ({ ...e, text: speedupSentence(e, report.baseline) })),
  };
}

export function toBenchJson(run: BenchRun): BenchJson {
  return {
    schemaVersion: BENCH_SCHEMA_VERSION,
    results: run.results.map(toJsonResult),
    speedup: run.speedup ? toJsonSpeedup(run.speedup) : null,
    problems: run.problems.map(toJsonProblem),
  };
}

export function formatBenchJson(run: BenchRun): string {
  return JSON.stringify(toBenchJson(run), null, 2) + '\n';
}

function toJsonResult(r: BenchResult): BenchJsonResult {
  return {
    engine: r.engine,
    device: r.device,
    threads: r.threads ?? null,
    dtype: r.dtype,
    size: r.size,
    repeats: r.repeats,
    timesSec: [...r.timesSec],
    medianSec: r.medianSec,
    iqrSec: r.iqrSec,
    gflops: r.gflops,
    peakGflops: r.peakGflops ?? null,
    percentOfPeak: r.percentOfPeak ?? null,
    peakBasis: r.peakBasis ?? null,
    noisy: r.noisy ?? isNoisy(r),
    noiseReason: r.noiseReason ?? ((r.noisy ?? isNoisy(r)) ? GENERIC_NOISE_REASON : null),
    maxRelError: r.maxRelError,
  };
}

function toJsonProblem(o: EngineOutcome): BenchJsonProblem {
  const problem: BenchJsonProblem = {
    engine: o.engine,
    device: o.device,
    dtype: o.dtype,
    size: o.size,
    status: o.status,
    message: o.message,
    remedy: o.remedy,
  };
  if (o.code !== undefined) problem.code = o.code;
  for (const key of ['neededBytes', 'freeBytes', 'estimatedSec', 'budgetSec', 'maxRelError', 'threshold'] as const) {
    if (o[key] !== undefined) problem[key] = o[key];
  }
  return problem;
}

/** The speedup entry of a result over the run's baseline, or undefined (baseline itself, no match). */
export function speedupEntryOf(run: BenchRun, r: BenchResult): SpeedupEntry | undefined {
  return run.speedup?.entries.find((e) => sameTarget(e, r) && e.dtype === r.dtype && e.size === r.size);
}

/** The speedup of a result over the run's baseline, or undefined (baseline itself, no match). */
export function speedupOf(run: BenchRun, r: BenchResult): number | undefined {
  return speedupEntryOf(run, r)?.speedup;
}

/** "50×", or "50× vs float32" when the baseline it was divided by has another dtype. */
export function speedupText(entry: SpeedupEntry, format: (speedup: number) => string): string {
  return mixesDtypes(entry) ? `${format(entry.speedup)} vs ${entry.baselineDtype}` : format(entry.speedup);
}

function isBaseline(run: BenchRun, r: BenchResult): boolean {
  return isBaselineResult(run.speedup, r);
}

const CSV_COLUMNS = ['engine', 'device', 'threads', 'dtype', 'size', 'repeats', 'medianSec', 'minSec', 'maxSec', 'q1Sec', 'q3Sec', 'iqrSec', 'gflops', 'maxRelError', 'speedup', 'speedupBaselineDtype', 'timesSec', 'detail'] as const;

/**
 * Characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection):
 * `=`, `+`, `-`, `@`, and tab and CR, which some spreadsheets skip before looking.
 */
const FORMULA_TRIGGER = /^[=+\-@\t\r]/;

/**
 * RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled; lines end with CRLF.
 * Text (device names, engine details: they come from drivers and libraries) that starts
 * like a formula gets a leading `'`, so a spreadsheet shows it instead of evaluating it.
 * Numbers are written as numbers: a negative one stays a negative number, not text.
 */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'number' ? String(value) : FORMULA_TRIGGER.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One row per result, full precision; timesSec space-separated in one field; speedup (and the dtype of the baseline it divides) empty for the baseline. */
export function toCsv(run: BenchRun): string {
  const rows = run.results.map((r) => {
    const values: Record<(typeof CSV_COLUMNS)[number], string | number | null | undefined> = {
      ...r,
      threads: r.threads,
      speedup: speedupOf(run, r),
      speedupBaselineDtype: speedupEntryOf(run, r)?.baselineDtype,
      timesSec: r.timesSec.join(' '),
    };
    return CSV_COLUMNS.map((column) => csvField(values[column])).join(',');
  });
  return [CSV_COLUMNS.join(','), ...rows].map((line) => line + '\r\n').join('');
}

const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * Text from outside (device names, engine messages, remedies) as Markdown that shows it
 * literally: HTML's `&`, `<`, `>` as entities (no tags, no entities of its own), the
 * characters of table cells, emphasis, code spans and links backslash-escaped, and line
 * breaks flattened, so one value never breaks the table or turns into markup or a link.
 */
export function markdownCell(text: string): string {
  return text
    .replace(/[&<>]/g, (c) => HTML_ENTITIES[c])
    .replace(/[\\|`*_[\]~]/g, (c) => `\\${c}`)
    .replace(/\r?\n|\r/g, ' ');
}

/** A table of results (times in ms, rounded for reading) and a list of the problems. */
export function toMarkdown(run: BenchRun): string {
  const header = ['engine', 'device', 'threads', 'dtype', 'n', 'median (ms)', 'IQR (ms)', 'min (ms)', 'max (ms)', 'GFLOP/s', 'speedup', 'max rel. error'];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i < 4 && i !== 2 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const r of run.results) {
    const s = speedupEntryOf(run, r);
    const cells = [
      r.engine,
      r.device,
      r.threads === undefined ? '' : String(r.threads),
      r.dtype,
      String(r.size),
      significant(r.medianSec * 1e3),
      significant(r.iqrSec * 1e3),
      significant(r.minSec * 1e3),
      significant(r.maxSec * 1e3),
      r.gflops.toFixed(1),
      isBaseline(run, r) ? 'baseline' : s === undefined ? '—' : speedupText(s, (x) => `${significant(x)}×`),
      r.maxRelError.toExponential(1),
    ];
    lines.push(`| ${cells.map(markdownCell).join(' | ')} |`);
  }
  if (run.problems.length > 0) {
    lines.push('');
    for (const p of run.problems) {
      const where = [p.engine, p.device, p.dtype, p.size === null ? null : `n = ${p.size}`].filter(Boolean).join(', ');
      lines.push(`- **${markdownCell(where)}** (${p.status}): ${markdownCell(p.message)}${p.remedy ? ` ${markdownCell(p.remedy)}` : ''}`);
    }
  }
  return lines.join('\n') + '\n';
}
