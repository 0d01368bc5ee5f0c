// The device report's history as inline SVG from a pure function, like the benchmark charts
// (benchmark/panel/benchmarkCharts.ts): memory used and utilization, both in percent, over the
// monitor's window ending now. A gap in the data (an unknown value) breaks the line rather than
// bridging it. Colours come from CSS classes (media/deviceReport.css); labels are escaped.
import type { HistoryPoint } from '../../protocol/worker';
import { escapeHtml } from '../shared/html';

export const SPARK = { width: 320, height: 48, pad: 2 };

export interface SparklineOptions {
  windowMs: number;
  now: number;
  /** Unique within the page, for aria-labelledby. */
  idPrefix: string;
  label: string;
}

interface Series {
  name: string;
  className: string;
  value: (p: HistoryPoint) => number | null;
}

const SERIES: Series[] = [
  { name: 'memory', className: 'spark-memory', value: (p) => (p.usedBytes !== null && p.totalBytes ? (p.usedBytes / p.totalBytes) * 100 : null) },
  { name: 'utilization', className: 'spark-utilization', value: (p) => p.utilizationPercent },
];

function num(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** x for a time in the window, y for a percentage (0 at the bottom, 100 at the top, clamped). */
export function sparkPoint(time: number, percent: number, options: Pick<SparklineOptions, 'windowMs' | 'now'>): [number, number] {
  const { width, height, pad } = SPARK;
  const start = options.now - options.windowMs;
  const x = pad + Math.min(1, Math.max(0, (time - start) / options.windowMs)) * (width - 2 * pad);
  const y = pad + (1 - Math.min(100, Math.max(0, percent)) / 100) * (height - 2 * pad);
  return [x, y];
}

/** Runs of known values: one polyline each. */
function runs(points: readonly HistoryPoint[], series: Series, options: SparklineOptions): string[][] {
  const result: string[][] = [];
  let current: string[] = [];
  for (const p of points) {
    const value = series.value(p);
    if (value === null || !Number.isFinite(value)) {
      if (current.length) result.push(current);
      current = [];
      continue;
    }
    const [x, y] = sparkPoint(p.time, value, options);
    current.push(`${num(x)},${num(y)}`);
  }
  if (current.length) result.push(current);
  return result;
}

function latest(points: readonly HistoryPoint[], series: Series): number | null {
  for (let i = points.length - 1; i >= 0; i--) {
    const value = series.value(points[i]);
    if (value !== null) return value;
  }
  return null;
}

/** The shortest span drawn: a few seconds of samples would otherwise fill the whole width. */
export const MIN_SPAN_MS = 60_000;

/** "10 min", "1 min", "45 s". */
function spanText(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}

/**
 * The sparkline of one device, or a short note when there is no history yet. Until the monitor
 * has run for the whole window, the time axis spans what there is (at least MIN_SPAN_MS), so a
 * fresh window shows a line rather than a dot at the right edge; the legend says which span.
 */
export function renderSparkline(points: readonly HistoryPoint[], options: SparklineOptions): string {
  if (points.length === 0) {
    return `<p class="muted spark-empty">No history yet: the last ${spanText(options.windowMs)} appear here while the status bar is shown.</p>`;
  }
  const span = Math.min(options.windowMs, Math.max(MIN_SPAN_MS, options.now - points[0].time));
  options = { ...options, windowMs: span };
  const lines: string[] = [];
  const legend: string[] = [];
  for (const series of SERIES) {
    for (const run of runs(points, series, options)) {
      // A single point is a dot: a polyline of one point draws nothing.
      lines.push(run.length === 1
        ? `<circle class="${series.className}" cx="${run[0].split(',')[0]}" cy="${run[0].split(',')[1]}" r="1.5"/>`
        : `<polyline class="${series.className}" points="${run.join(' ')}"/>`);
    }
    const value = latest(points, series);
    if (value !== null) legend.push(`<span class="${series.className}-key">${escapeHtml(`${series.name} ${Math.round(value)}%`)}</span>`);
  }
  const summary = SERIES.map((s) => {
    const values = points.map(s.value).filter((v): v is number => v !== null);
    return values.length ? `${s.name} ${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))}%` : `${s.name} unknown`;
  }).join(', ');
  const id = escapeHtml(options.idPrefix);
  return `<div class="spark"><svg class="sparkline" role="img" viewBox="0 0 ${SPARK.width} ${SPARK.height}" preserveAspectRatio="none" aria-labelledby="${id}-title ${id}-desc">`
    + `<title id="${id}-title">${escapeHtml(`${options.label}: the last ${spanText(span)}`)}</title>`
    + `<desc id="${id}-desc">${escapeHtml(`${points.length} samples; ${summary}.`)}</desc>`
    + `<rect class="spark-frame" x="0.5" y="0.5" width="${SPARK.width - 1}" height="${SPARK.height - 1}"/>`
    + lines.join('')
    + `</svg><p class="spark-legend">${legend.join(' ')} <span class="muted">· last ${spanText(span)}</span></p></div>`;
}
