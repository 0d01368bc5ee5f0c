// The collective benchmark's chart as inline SVG from a pure function: bus bandwidth (GB/s)
// against the message size on a log2 axis, one line per collective, as nccl-tests' tables are
// usually plotted. The classes are the matmul charts' (media/benchmark.css), every label is
// escaped, and the chart has a <title> and a <desc> for screen readers.
import type { CollectiveMeasurement, CollectiveReport } from '../../../core/bench/collectives/report';
import { sizeText } from '../../../core/bench/collectives/sizeText';
import { significant } from '../../../core/bench/numberText';
import { escapeHtml } from '../../shared/html';
import { niceCeiling, SERIES_COLOURS } from '../panel/benchmarkCharts';

const BOX = { width: 640, height: 300, left: 64, right: 150, top: 16, bottom: 44 };

function num(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** Measurements with a bus bandwidth, grouped by collective in the report's order, by size. */
export function busBandwidthSeries(report: Pick<CollectiveReport, 'results'>): { collective: string; points: (CollectiveMeasurement & { busBwGBps: number })[] }[] {
  const series = new Map<string, (CollectiveMeasurement & { busBwGBps: number })[]>();
  for (const r of report.results) {
    if (r.busBwGBps === null) continue;
    const points = series.get(r.collective) ?? [];
    points.push(r as CollectiveMeasurement & { busBwGBps: number });
    series.set(r.collective, points);
  }
  return [...series].map(([collective, points]) => ({ collective, points: points.sort((a, b) => a.bytes - b.bytes) }));
}

export function renderBusBandwidthChart(report: Pick<CollectiveReport, 'results'>, idPrefix = 'busbw'): string {
  const series = busBandwidthSeries(report);
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return '';
  const minLog = Math.floor(Math.log2(Math.min(...all.map((p) => p.bytes))));
  const maxLog = Math.max(minLog + 1, Math.ceil(Math.log2(Math.max(...all.map((p) => p.bytes)))));
  const yMax = niceCeiling(Math.max(...all.map((p) => p.busBwGBps)));
  const plotW = BOX.width - BOX.left - BOX.right;
  const bottom = BOX.height - BOX.bottom;
  const plotH = bottom - BOX.top;
  const x = (bytes: number) => BOX.left + ((Math.log2(bytes) - minLog) / (maxLog - minLog)) * plotW;
  const y = (gbps: number) => BOX.top + plotH - (gbps / yMax) * plotH;
  const parts: string[] = [];
  for (let k = minLog; k <= maxLog; k++) {
    parts.push(`<line class="grid" x1="${num(x(2 ** k))}" y1="${BOX.top}" x2="${num(x(2 ** k))}" y2="${bottom}"/>`
      + `<text class="axis-label" x="${num(x(2 ** k))}" y="${bottom + 16}" text-anchor="middle">${escapeHtml(sizeText(2 ** k))}</text>`);
  }
  for (let i = 0; i <= 4; i++) {
    const g = (yMax * i) / 4;
    parts.push(`<line class="grid" x1="${BOX.left}" y1="${num(y(g))}" x2="${BOX.width - BOX.right}" y2="${num(y(g))}"/>`
      + `<text class="axis-label" x="${BOX.left - 6}" y="${num(y(g) + 4)}" text-anchor="end">${escapeHtml(significant(g, 3))}</text>`);
  }
  const middleY = num(BOX.top + plotH / 2);
  parts.push(`<text class="axis-title" x="${num(BOX.left + plotW / 2)}" y="${BOX.height - 6}" text-anchor="middle">message size (log2 axis)</text>`
    + `<text class="axis-title" x="14" y="${middleY}" text-anchor="middle" transform="rotate(-90 14 ${middleY})">bus bandwidth GB/s</text>`);
  series.forEach((s, i) => {
    const colour = `series-${i % SERIES_COLOURS}`;
    parts.push(`<polyline class="line ${colour}" points="${s.points.map((p) => `${num(x(p.bytes))},${num(y(p.busBwGBps))}`).join(' ')}"/>`);
    for (const p of s.points) {
      const tip = `${s.collective} ${sizeText(p.bytes)}: bus ${significant(p.busBwGBps, 3)} GB/s, algorithm ${p.algBwGBps === null ? '-' : significant(p.algBwGBps, 3)} GB/s, ${significant(p.medianSec * 1e3, 3)} ms${p.correct ? '' : ', WRONG result'}`;
      parts.push(`<circle class="point ${colour}" cx="${num(x(p.bytes))}" cy="${num(y(p.busBwGBps))}" r="3.5"><title>${escapeHtml(tip)}</title></circle>`);
    }
    const ly = BOX.top + 10 + i * 18;
    const lx = BOX.width - BOX.right + 16;
    parts.push(`<line class="line ${colour}" x1="${lx}" y1="${ly}" x2="${lx + 18}" y2="${ly}"/><text class="legend-label" x="${lx + 24}" y="${ly + 4}">${escapeHtml(s.collective)}</text>`);
  });
  const summary = series.map((s) => `${s.collective}: ${s.points.map((p) => `${significant(p.busBwGBps, 3)} GB/s at ${sizeText(p.bytes)}`).join(', ')}`).join('; ');
  return `<svg class="chart busbw-chart" role="img" viewBox="0 0 ${BOX.width} ${BOX.height}" aria-labelledby="${idPrefix}-title ${idPrefix}-desc">`
    + `<title id="${idPrefix}-title">Bus bandwidth against message size</title>`
    + `<desc id="${idPrefix}-desc">${escapeHtml(`${summary}.`)}</desc>`
    + parts.join('')
    + '</svg>';
}
