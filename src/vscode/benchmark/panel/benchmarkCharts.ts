// The results panel's charts as inline SVG from pure functions, so they are tested as strings
// and need no script: a bar chart of GFLOP/s per engine/device and a sweep chart (GFLOP/s against
// n on a log2 axis, one line per engine/device). Colours come from CSS classes (media/benchmark.css
// maps them to the theme's chart colours); every label is escaped; each chart has a <title> and
// a <desc> for screen readers.
import type { BenchResult, BenchRun } from '../../../core/bench/model';
import { formatGflops, seriesLabel, summarySize } from '../benchFormat';
import { isBaselineResult } from '../../../core/bench/compare';
import { comparedSpeedup } from '../../../core/bench/headlineJudgement';
import { escapeHtml } from '../../shared/html';
import { percentText } from '../../../core/bench/numberText';

/** Distinct series colours (media/benchmark.css: .series-0 … .series-5). */
export const SERIES_COLOURS = 6;

interface Series {
  label: string;
  points: BenchResult[];
  baseline: boolean;
}

/** Results grouped by engine, device and dtype, in the order first seen; points by size. */
export function seriesOf(run: Pick<BenchRun, 'results' | 'speedup'> & { problems?: BenchRun['problems'] }): Series[] {
  const byLabel = new Map<string, Series>();
  const speedup = comparedSpeedup(run);
  for (const r of run.results) {
    const label = seriesLabel(r);
    let series = byLabel.get(label);
    if (!series) {
      const baseline = isBaselineResult(speedup, r) && r.dtype === 'float32';
      series = { label, points: [], baseline };
      byLabel.set(label, series);
    }
    series.points.push(r);
  }
  for (const series of byLabel.values()) series.points.sort((a, b) => a.size - b.size);
  return [...byLabel.values()];
}

/** 1, 2, 2.5, 5 × 10^k: the smallest such value ≥ value (an axis maximum people can read). */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value * (1 - 1e-9)) return step * magnitude;
  return 10 * magnitude;
}

function num(value: number): string {
  return String(Math.round(value * 10) / 10);
}

const BAR = { width: 640, labelWidth: 190, valueWidth: 90, rowHeight: 26, barHeight: 16, top: 8 };

/**
 * One horizontal bar per engine/device/dtype at the summary's size (summarySize: the size the
 * headline names), longest first; a sweep's other sizes are the sweep chart's. Series not
 * measured at that size are named in the description. The CPU baseline's bar is marked.
 */
export function renderBarChart(run: Pick<BenchRun, 'results' | 'speedup'>, idPrefix = 'bars'): string {
  const size = summarySize(run);
  const all = seriesOf(run);
  const bars = all
    .flatMap((s) => s.points.filter((p) => p.size === size).map((best) => ({ ...s, best })))
    .sort((a, b) => b.best.gflops - a.best.gflops);
  if (bars.length === 0) return '';
  const where = `n = ${size}`;
  const missing = all.filter((s) => !s.points.some((p) => p.size === size)).map((s) => s.label);
  const max = Math.max(...bars.map((b) => b.best.gflops));
  // "64 GFLOP/s · 39 % of peak · noisy" needs more room than "64 GFLOP/s".
  const valueWidth = bars.some((b) => typeof b.best.percentOfPeak === 'number' || b.best.noisy) ? 230 : BAR.valueWidth;
  const plotWidth = BAR.width - BAR.labelWidth - valueWidth;
  const height = BAR.top * 2 + bars.length * BAR.rowHeight;
  const rows = bars.map((bar, i) => {
    const y = BAR.top + i * BAR.rowHeight;
    const length = max > 0 ? Math.max(1, (bar.best.gflops / max) * plotWidth) : 1;
    const percent = bar.best.percentOfPeak;
    const value = `${formatGflops(bar.best.gflops)} GFLOP/s${typeof percent === 'number' ? ` · ${percentText(percent)} of peak` : ''}${bar.best.noisy ? ' · noisy' : ''}`;
    const label = `${bar.label}${bar.baseline ? ' (baseline)' : ''}`;
    const tooltip = `${bar.label}: ${value} at n = ${bar.best.size}${bar.baseline ? ', the CPU baseline' : ''}`;
    return `<g class="bar-row">`
      + `<text class="axis-label" x="${BAR.labelWidth - 8}" y="${num(y + BAR.barHeight - 3)}" text-anchor="end">${escapeHtml(label)}</text>`
      + `<rect class="bar series-${i % SERIES_COLOURS}${bar.baseline ? ' baseline' : ''}" x="${BAR.labelWidth}" y="${num(y)}" width="${num(length)}" height="${BAR.barHeight}" rx="2"><title>${escapeHtml(tooltip)}</title></rect>`
      + `<text class="value-label" x="${num(BAR.labelWidth + length + 6)}" y="${num(y + BAR.barHeight - 3)}">${escapeHtml(value)}</text>`
      + '</g>';
  });
  const absent = missing.length > 0 ? ` Not measured at ${where}: ${missing.join(', ')}.` : '';
  const summary = bars.map((b) => `${b.label} ${formatGflops(b.best.gflops)}`).join('; ') + '.' + absent;
  return `<svg class="chart bar-chart" role="img" viewBox="0 0 ${BAR.width} ${height}" aria-labelledby="${idPrefix}-title ${idPrefix}-desc">`
    + `<title id="${idPrefix}-title">${escapeHtml(`GFLOP/s per engine and device (${where})`)}</title>`
    + `<desc id="${idPrefix}-desc">${escapeHtml(`Higher is faster. ${summary}`)}</desc>`
    + rows.join('')
    + '</svg>';
}

const SWEEP = { width: 640, height: 300, left: 64, right: 150, top: 16, bottom: 44 };

/** True when some series was measured at two sizes or more (a sweep): only then is the line chart drawn. */
export function hasSweep(run: Pick<BenchRun, 'results' | 'speedup'>): boolean {
  return seriesOf(run).some((s) => new Set(s.points.map((p) => p.size)).size > 1);
}

/** GFLOP/s against n, n on a log2 axis (256, 512, … one tick per power of two), one line per series. */
export function renderSweepChart(run: Pick<BenchRun, 'results' | 'speedup'>, idPrefix = 'sweep'): string {
  if (!hasSweep(run)) return '';
  const series = seriesOf(run);
  const sizes = run.results.map((r) => r.size);
  const minLog = Math.floor(Math.log2(Math.min(...sizes)));
  const maxLog = Math.max(minLog + 1, Math.ceil(Math.log2(Math.max(...sizes))));
  const yMax = niceCeiling(Math.max(...run.results.map((r) => r.gflops)));
  const plotW = SWEEP.width - SWEEP.left - SWEEP.right;
  const plotH = SWEEP.height - SWEEP.top - SWEEP.bottom;
  const x = (n: number) => SWEEP.left + ((Math.log2(n) - minLog) / (maxLog - minLog)) * plotW;
  const y = (g: number) => SWEEP.top + plotH - (g / yMax) * plotH;
  const parts: string[] = [axes(minLog, maxLog, yMax, x, y)];
  series.forEach((s, i) => {
    const colour = `series-${i % SERIES_COLOURS}`;
    const points = s.points.map((p) => `${num(x(p.size))},${num(y(p.gflops))}`).join(' ');
    parts.push(`<polyline class="line ${colour}" points="${points}"/>`);
    for (const p of s.points) {
      parts.push(`<circle class="point ${colour}" cx="${num(x(p.size))}" cy="${num(y(p.gflops))}" r="3.5"><title>${escapeHtml(`${s.label}: ${formatGflops(p.gflops)} GFLOP/s at n = ${p.size}`)}</title></circle>`);
    }
    const ly = SWEEP.top + 10 + i * 18;
    const lx = SWEEP.width - SWEEP.right + 16;
    parts.push(`<line class="line ${colour}" x1="${lx}" y1="${ly}" x2="${lx + 18}" y2="${ly}"/>`
      + `<text class="legend-label" x="${lx + 24}" y="${ly + 4}">${escapeHtml(s.label)}</text>`);
  });
  const summary = series.map((s) => `${s.label}: ${s.points.map((p) => `${formatGflops(p.gflops)} at ${p.size}`).join(', ')}`).join('; ');
  return `<svg class="chart sweep-chart" role="img" viewBox="0 0 ${SWEEP.width} ${SWEEP.height}" aria-labelledby="${idPrefix}-title ${idPrefix}-desc">`
    + `<title id="${idPrefix}-title">GFLOP/s against matrix size n (log2 axis)</title>`
    + `<desc id="${idPrefix}-desc">${escapeHtml(`${summary}.`)}</desc>`
    + parts.join('')
    + '</svg>';
}

function axes(minLog: number, maxLog: number, yMax: number, x: (n: number) => number, y: (g: number) => number): string {
  const parts: string[] = [];
  const bottom = SWEEP.height - SWEEP.bottom;
  for (let k = minLog; k <= maxLog; k++) {
    const n = 2 ** k;
    parts.push(`<line class="grid" x1="${num(x(n))}" y1="${SWEEP.top}" x2="${num(x(n))}" y2="${bottom}"/>`
      + `<text class="axis-label" x="${num(x(n))}" y="${bottom + 16}" text-anchor="middle">${n}</text>`);
  }
  for (let i = 0; i <= 4; i++) {
    const g = (yMax * i) / 4;
    parts.push(`<line class="grid" x1="${SWEEP.left}" y1="${num(y(g))}" x2="${SWEEP.width - SWEEP.right}" y2="${num(y(g))}"/>`
      + `<text class="axis-label" x="${SWEEP.left - 6}" y="${num(y(g) + 4)}" text-anchor="end">${escapeHtml(formatGflops(g))}</text>`);
  }
  const middle = SWEEP.left + (SWEEP.width - SWEEP.left - SWEEP.right) / 2;
  parts.push(`<text class="axis-title" x="${num(middle)}" y="${SWEEP.height - 6}" text-anchor="middle">matrix size n</text>`
    + `<text class="axis-title" x="14" y="${num(SWEEP.top + (bottom - SWEEP.top) / 2)}" text-anchor="middle" transform="rotate(-90 14 ${num(SWEEP.top + (bottom - SWEEP.top) / 2)})">GFLOP/s</text>`);
  return `<g class="axes">${parts.join('')}</g>`;
}
