// The Matmul Benchmark results panel as HTML, from pure functions: the page shell with its
// strict CSP, and the body (status, the speedup headline, the charts, the tables, history) that
// is swapped in whenever something changes. Everything from a run is escaped; the charts are
// server-side SVG (benchmarkCharts.ts), so the page's script only forwards button clicks.
import type { BenchRunResponse } from '../../../protocol/worker';
import { bestResult, busyHostSentence, formatGflops, judgedSpeedupSentence, speedupHeadline, summarySize, targetLabel } from '../benchFormat';
import type { BenchHistoryEntry } from '../benchHistory';
import { hasSweep, renderBarChart, renderSweepChart } from './benchmarkCharts';
import { peerSectionHtml } from './peerSection';
import { formatDate, historyTable, problemsList, runsTable, transfersTable } from './benchmarkSections';
import { sweepSentences } from '../../../core/bench/sweep';
import type { PageResources } from '../../shared/html';
import { escapeHtml, textElement, webviewPage } from '../../shared/html';

export const BENCHMARK_TITLE = 'Matmul Benchmark';

/** Buttons in the page's header: each posts `{type}`; the extension accepts exactly these (and showRun). */
export const BENCHMARK_ACTIONS = {
  runBenchmark: 'Run Benchmark…',
  exportJson: 'Export JSON…',
  exportCsv: 'Export CSV…',
  exportMarkdown: 'Export Markdown…',
  copyMarkdown: 'Copy Markdown',
} as const;
export type BenchmarkAction = keyof typeof BENCHMARK_ACTIONS | 'showRun';

/** What the run in the notification is doing, shown above the results. */
export type BenchPanelStatus =
  | { kind: 'idle' }
  | { kind: 'running'; description: string }
  /** kept: what the run kept (cancelSummary: "cancelled at n = 4096; 256–2048 kept"), shown below; null when nothing had finished. */
  | { kind: 'cancelled'; description: string; kept?: string | null }
  | { kind: 'failed'; description: string; message: string };

export interface BenchPanelState {
  status: BenchPanelStatus;
  /** The run on display: the newest, or one chosen from the history. */
  shown: BenchHistoryEntry | null;
  history: readonly BenchHistoryEntry[];
}

export function renderBenchmarkPage(state: BenchPanelState, resources: PageResources): string {
  return webviewPage({
    title: BENCHMARK_TITLE, resources, actionsHtml: renderActions(state), actionsId: 'actions', mainId: 'results', bodyHtml: renderBenchmarkBody(state),
  });
}

/** The header's buttons; the export buttons are disabled while no run is shown. */
export function renderActions(state: BenchPanelState): string {
  return (Object.keys(BENCHMARK_ACTIONS) as Array<keyof typeof BENCHMARK_ACTIONS>).map((action) => {
    const disabled = action !== 'runBenchmark' && state.shown === null ? ' disabled' : '';
    return `<button type="button" data-action="${action}"${disabled}>${escapeHtml(BENCHMARK_ACTIONS[action])}</button>`;
  }).join('');
}

export function renderBenchmarkBody(state: BenchPanelState): string {
  const parts = [statusLine(state.status)];
  if (state.shown) parts.push(resultSections(state.shown, state.history[0]?.id === state.shown.id));
  else if (state.status.kind === 'idle') parts.push(textElement('p', 'No benchmark yet: run "Device Doctor: Run Matmul Benchmark".', 'status'));
  const history = historyTable(state.history, state.shown?.id ?? null);
  if (history) parts.push(section('History', history, 'history'));
  return parts.filter(Boolean).join('\n');
}

function statusLine(status: BenchPanelStatus): string {
  switch (status.kind) {
    case 'idle': return '';
    case 'running': return `<p class="status busy" data-state="running">${escapeHtml(`Running: ${status.description}…`)}</p>`;
    case 'cancelled': {
      const kept = status.kept ? `: ${status.kept}, shown below.` : '. Nothing had finished, so nothing was kept.';
      return `<p class="status cancelled" data-state="cancelled"><strong>Cancelled</strong> ${escapeHtml(`— ${status.description}${kept}`)}</p>`;
    }
    case 'failed': return `<p class="status error" data-state="failed"><strong>Failed</strong> ${escapeHtml(`— ${status.description}: ${status.message}`)}</p>`;
  }
}

function section(title: string, content: string, id: string): string {
  return `<section aria-labelledby="${id}-heading"><h2 id="${id}-heading">${escapeHtml(title)}</h2>${content}</section>`;
}

function resultSections(entry: BenchHistoryEntry, newest: boolean): string {
  const run = entry.run;
  const when = `${newest ? 'Latest run' : 'Earlier run'}, ${formatDate(entry.time)}`;
  const parts = [
    `<section class="summary" aria-label="Summary"><p class="run-meta">${escapeHtml(`${when} · ${run.description} · selected device ${run.selectedDevice}`)}</p>${headline(run)}</section>`,
  ];
  if (run.sweep) parts.push(`<section class="sweep-note" aria-label="Sweep">${sweepSentences(run.sweep).map((t, i) => textElement('p', t, i === 0 ? 'sweep-limit' : 'sweep-stop')).join('')}</section>`);
  if (run.results.length > 0) {
    parts.push(section(`GFLOP/s per engine and device at n = ${summarySize(run)}`, renderBarChart(run), 'bars'));
    if (hasSweep(run)) parts.push(section('Size sweep', renderSweepChart(run), 'sweep'));
    parts.push(section('Runs', runsTable(run), 'runs'));
    const peers = peerSectionHtml(run);
    if (peers) parts.push(section('Devices against their peers', peers, 'peers'));
  }
  const problems = problemsList(run.problems);
  if (problems) parts.push(section('Problems', problems, 'problems'));
  const transfers = transfersTable(run.transfers ?? []);
  if (transfers) parts.push(section('Host ↔ device transfers', transfers, 'transfers'));
  return parts.join('\n');
}

/** The answer in one line ("cuda:0 is 143× faster than torch cpu"), and the other speedups below it. */
function headline(run: BenchRunResponse): string {
  // A busy host first: the figures below are the machine's state as much as the product's.
  const busy = busyHostSentence(run);
  const first = busy ? textElement('p', busy, 'busy-host') : '';
  const top = speedupHeadline(run);
  if (!top) return first + bestHeadline(run);
  const others = run.speedup!.entries.filter((e) => e !== top.entry && e.size === top.entry.size);
  const list = others.length
    ? `<ul class="speedups">${others.map((e) => textElement('li', judgedSpeedupSentence(run, e))).join('')}</ul>`
    : '';
  const caution = top.caution ? textElement('p', top.caution, 'headline-caution') : '';
  return `${first}<p class="headline">${escapeHtml(top.text)}</p>${textElement('p', top.context, 'headline-context')}${caution}${list}`;
}

/** Without a speedup: the best GFLOP/s, and why there is nothing to compare it with. */
function bestHeadline(run: BenchRunResponse): string {
  const best = bestResult(run, summarySize(run) ?? undefined);
  if (!best) return textElement('p', 'Nothing was measured: see the problems below.', 'headline muted');
  const why = run.speedup === null ? 'no CPU baseline in this run, so no speedup' : 'nothing else measured to compare it with';
  return textElement('p', `${targetLabel(best.engine, best.device, best.dtype)}: ${formatGflops(best.gflops)} GFLOP/s`, 'headline')
    + textElement('p', `n = ${best.size}, ${best.dtype} · ${why}`, 'headline-context');
}
