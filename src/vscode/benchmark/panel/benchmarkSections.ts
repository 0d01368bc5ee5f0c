// The results panel's tables and lists as HTML from pure functions: the runs, the problems
// (not installed with the remedy, refused, unsupported), host↔device transfers and the history
// of earlier runs. Real <table>s with captions and header cells; every value escaped.
import type { BenchResult, EngineOutcome } from '../../../core/bench/model';
import { formatBytes } from '../../../core/bench/plan';
import { samplingText } from '../../../core/bench/repeatBudget';
import { isNoisy } from '../../../core/bench/diagnosis';
import { GENERIC_NOISE_REASON } from '../../../core/bench/noiseReason';
import { speedupEntryOf, speedupText } from '../../../core/bench/export';
import { isBaselineResult } from '../../../core/bench/compare';
import { comparedSpeedup } from '../../../core/bench/headlineJudgement';
import { threadsText } from '../../../core/bench/cpuThreads';
import type { BenchRunResponse, TransferResult } from '../../../protocol/worker';
import { formatGflops, formatMs, formatRelError, formatSpeedup, targetLabel } from '../benchFormat';
import type { BenchHistoryEntry } from '../benchHistory';
import { escapeHtml, textElement } from '../../shared/html';
import { percentText } from '../../../core/bench/numberText';
import { inTheEditor } from '../../../core/interpreters/choiceWays';

/** Rows are cell lists, or `{cells, current}` for the row that is shown now. */
type Row = string[] | { cells: string[]; current: boolean };

function table(caption: string, headers: string[], rows: Row[], className: string): string {
  const head = headers.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('');
  const body = rows.map((row) => (Array.isArray(row)
    ? `<tr>${row.join('')}</tr>`
    : `<tr${row.current ? ' class="current" aria-current="true"' : ''}>${row.cells.join('')}</tr>`)).join('');
  return `<table class="${className}"><caption>${escapeHtml(caption)}</caption><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function cell(value: unknown, className?: string): string {
  return textElement('td', value, className);
}

const RUN_HEADERS = ['engine', 'device', 'dtype', 'n', 'median (ms)', 'GFLOP/s', '% of peak', 'min / max (ms)', 'IQR (ms)', 'speedup', 'max rel. error', 'detail'];

export function runsTable(run: BenchRunResponse): string {
  const compared = { ...run, speedup: comparedSpeedup(run) };
  const isBaseline = (r: BenchResult) => isBaselineResult(compared.speedup, r);
  const rows = run.results.map((r) => {
    const s = speedupEntryOf(compared, r);
    return [
      cell(r.engine), cell(r.threads === undefined ? r.device : `${r.device} · ${threadsText(r.threads)}`), cell(r.dtype), cell(r.size, 'num'),
      cell(formatMs(r.medianSec), 'num'), cell(formatGflops(r.gflops), 'num strong'),
      percentCell(r),
      cell(`${formatMs(r.minSec)} / ${formatMs(r.maxSec)}`, 'num'),
      (r.noisy ?? isNoisy(r)) ? `<td class="num noisy">${escapeHtml(formatMs(r.iqrSec))} <span class="noise-mark" title="${escapeHtml(noisyTitle(r))}">noisy</span></td>` : cell(formatMs(r.iqrSec), 'num'),
      cell(isBaseline(r) ? 'baseline' : s === undefined ? '—' : speedupText(s, formatSpeedup), 'num'),
      cell(formatRelError(r.maxRelError), 'num'), cell(r.detail ?? ''),
    ];
  });
  const bases = [...new Set(run.results.map((r) => r.peakBasis).filter((b): b is string => typeof b === 'string'))];
  const peaks = bases.length > 0 ? ` % of peak: of the ${bases.join('; of the ')}.` : '';
  return table(`Every measurement: ${samplingText(run.results)} after a warm-up; GFLOP/s = 2·n³ / median.${peaks}`, RUN_HEADERS, rows, 'runs');
}

/** The noise mark's tooltip: what the run watcher saw disturb this result, else the generic reason. */
function noisyTitle(r: BenchResult): string {
  const reason = r.noiseReason ?? GENERIC_NOISE_REASON;
  return `The repeats spread by more than 10 % of the median (IQR): ${reason}.`;
}

/** "14 %" with the peak it is of as a tooltip; "—" where the device's peak is unknown. */
function percentCell(r: BenchResult): string {
  if (r.percentOfPeak === null || r.percentOfPeak === undefined || !r.peakGflops) return cell('—', 'num');
  const percent = percentText(r.percentOfPeak);
  return `<td class="num" title="${escapeHtml(`of ${formatGflops(r.peakGflops)} GFLOP/s, the ${r.peakBasis ?? 'peak'}`)}">${escapeHtml(percent)}</td>`;
}

const STATUS_WORDS: Record<EngineOutcome['status'], string> = {
  'not-installed': 'not installed',
  'tfjs-cuda-mismatch': 'no GPU registered',
  'no-device': 'no such device',
  unsupported: 'unsupported',
  refused: 'refused',
  'wrong-result': 'WRONG RESULT',
  failed: 'failed',
  cancelled: 'cancelled',
  'below-peak': 'below peak',
};

/** Escaped text whose `backticked` spans (commands in the worker's messages) show as code, not as backticks. */
export function withCode(text: string): string {
  return text.split(/`([^`]+)`/).map((part, i) => (i % 2 === 1 ? `<code>${escapeHtml(part)}</code>` : escapeHtml(part))).join('');
}

export function problemsList(problems: readonly EngineOutcome[]): string {
  if (problems.length === 0) return '';
  const items = problems.map((p) => {
    const where = [p.engine, p.device, p.dtype, p.size === null ? null : `n = ${p.size}`].filter(Boolean).join(' · ');
    const severity = p.status === 'wrong-result' || p.status === 'failed' ? 'error' : 'warning';
    return `<li class="problem ${severity}"><p class="where"><span class="status">${escapeHtml(STATUS_WORDS[p.status] ?? p.status)}</span> ${escapeHtml(where)}</p>`
      + `<p class="message">${withCode(p.message)}</p>`
      + (p.remedy ? `<p class="remedy">${withCode(inTheEditor(p.remedy))}</p>` : '')
      + '</li>';
  });
  return `<ul class="problems">${items.join('')}</ul>`;
}

const DIRECTION_WORDS: Record<TransferResult['direction'], string> = { hostToDevice: 'host → device', deviceToHost: 'device → host', deviceToDevice: 'device → device' };

/** GB/s, and for a copy within the device the share of its datasheet bandwidth (read and write counted). */
function bandwidthText(t: TransferResult): string {
  if (t.gbPerSec === null) return '—';
  return t.percentOfPeak == null ? t.gbPerSec.toFixed(1) : `${t.gbPerSec.toFixed(1)} (${Math.round(t.percentOfPeak)} % of ${t.peakGbPerSec} datasheet)`;
}

export function transfersTable(transfers: readonly TransferResult[]): string {
  if (transfers.length === 0) return '';
  const rows = transfers.map((t) => [
    cell(t.device), cell(DIRECTION_WORDS[t.direction] ?? t.direction), cell(t.memory), cell(formatBytes(t.bytes), 'num'),
    cell(t.medianSec === null ? '—' : formatMs(t.medianSec), 'num'),
    cell(bandwidthText(t), 'num strong'),
    cell(t.status === 'ok' ? 'ok' : `${t.status}${t.message ? `: ${t.message}` : ''}`),
  ]);
  return table('Copy bandwidth between host memory (pageable and pinned) and the device, and within the device\'s memory (device → device: dst.copy_(src), 2 × bytes / time).', ['device', 'direction', 'host memory', 'size', 'median (ms)', 'GB/s', 'status'], rows, 'transfers');
}

/** "2026-11-29 17:05" in local time. */
export function formatDate(time: number): string {
  const d = new Date(time);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

export function historyTable(history: readonly BenchHistoryEntry[], shownId: string | null): string {
  if (history.length === 0) return '';
  const rows = history.map((e) => {
    const best = e.best ? `${formatGflops(e.best.gflops)} GFLOP/s · ${targetLabel(e.best.engine, e.best.device, e.best.dtype, e.best.threads)} · n = ${e.best.size}` : 'nothing measured';
    const current = e.id === shownId;
    const show = current
      ? '<td><span class="current">shown</span></td>'
      : `<td><button type="button" class="link" data-action="showRun" data-run-id="${escapeHtml(e.id)}" aria-label="${escapeHtml(`Show the run of ${formatDate(e.time)}`)}">Show</button></td>`;
    return { cells: [cell(formatDate(e.time)), cell(e.description), cell(e.selectedDevice), cell(best), show], current };
  });
  return table('Earlier runs on this machine, newest first.', ['date', 'compared', 'selected device', 'best', ''], rows, 'history');
}
