// The Collective Bandwidth panel as HTML, from pure functions: what runs (or failed), then the
// last report: a headline (the best bus bandwidth), the bus-bandwidth-against-size chart, the
// nccl-tests table, and on GPUs the P2P matrix beside each pair's link from the device report.
// Everything from a report is escaped.
import { p2pLinks, type P2pMatrix } from '../../../core/bench/collectives/p2p';
import type { CollectiveReport } from '../../../core/bench/collectives/report';
import { sizeText } from '../../../core/bench/collectives/sizeText';
import { significant } from '../../../core/bench/numberText';
import type { DeviceReport } from '../../../core/devices/report';
import { escapeHtml, textElement } from '../../shared/html';
import { busBandwidthSeries, renderBusBandwidthChart } from './busBandwidthChart';

export const COLLECTIVE_TITLE = 'Collective Bandwidth';

export type CollectivePanelStatus =
  | { kind: 'idle' }
  | { kind: 'running'; description: string }
  | { kind: 'cancelled'; description: string }
  | { kind: 'failed'; description: string; message: string };

/** The panel's buttons: each posts `{type}`; the panel accepts exactly these (issue 28 item 10: it had none). */
export const COLLECTIVE_ACTIONS = {
  runBenchmark: 'Run Benchmark…',
  exportJson: 'Export JSON…',
} as const;
export type CollectiveAction = keyof typeof COLLECTIVE_ACTIONS;

/** Run always; Export once a report is shown. */
export function renderCollectiveActions(state: Pick<CollectivePanelState, 'shown'>): string {
  return (Object.keys(COLLECTIVE_ACTIONS) as CollectiveAction[]).map((action) => {
    const disabled = action !== 'runBenchmark' && state.shown === null ? ' disabled' : '';
    return `<button type="button" data-action="${action}"${disabled}>${escapeHtml(COLLECTIVE_ACTIONS[action])}</button>`;
  }).join('');
}

/** The shown report as JSON, and its file name ("collective-bandwidth-2026-12-03-0700.json"). */
export function collectiveExport(shown: NonNullable<CollectivePanelState['shown']>): { text: string; fileName: string } {
  const stamp = new Date(shown.time).toISOString().slice(0, 16).replace('T', '-').replace(':', '');
  return { text: `${JSON.stringify({ description: shown.description, time: new Date(shown.time).toISOString(), report: shown.report }, null, 2)}\n`, fileName: `collective-bandwidth-${stamp}.json` };
}

export interface CollectivePanelState {
  status: CollectivePanelStatus;
  shown: { report: CollectiveReport; description: string; time: number } | null;
  /** For the P2P matrix's links; null when no report was made. */
  devices: DeviceReport | null;
}

const figure = (value: number | null, digits = 3) => (value === null ? '-' : significant(value, digits));

function statusLine(status: CollectivePanelStatus): string {
  switch (status.kind) {
    case 'idle': return '';
    case 'running': return `<p class="status busy" data-state="running">${escapeHtml(`Running: ${status.description}…`)}</p>`;
    case 'cancelled': return `<p class="status cancelled" data-state="cancelled"><strong>Cancelled</strong> ${escapeHtml(`— ${status.description}; every rank was stopped.`)}</p>`;
    case 'failed': return `<p class="status error" data-state="failed"><strong>Failed</strong> ${escapeHtml(`— ${status.description}: ${status.message}`)}</p>`;
  }
}

/** "gloo on 2 CPU processes, torch 1.13.0: median of 10 timed iterations, each the slowest rank's". */
export function collectiveContext(report: CollectiveReport): string {
  const where = report.device === 'cpu' ? `${report.worldSize} CPU processes` : `${report.worldSize} GPUs${report.deviceName ? ` (${report.deviceName})` : ''}`;
  return `${report.backend} on ${where}, started by ${report.launcher}, torch ${report.torch}, ${report.dtype}: median of ${report.iters} timed iterations after ${report.warmup} warm-up${report.warmup === 1 ? '' : 's'}, each the slowest rank's`;
}

function headline(report: CollectiveReport): string {
  const best = busBandwidthSeries(report).map((s) => s.points.reduce((a, b) => (b.busBwGBps > a.busBwGBps ? b : a)));
  if (best.length === 0) return textElement('p', 'No bandwidth could be computed.', 'headline muted');
  const top = best.reduce((a, b) => (b.busBwGBps > a.busBwGBps ? b : a));
  return textElement('p', `${significant(top.busBwGBps, 3)} GB/s bus bandwidth (${top.collective}, ${sizeText(top.bytes)})`, 'headline');
}

function resultsTable(report: CollectiveReport): string {
  const head = '<tr><th>Collective</th><th>Size</th><th class="num">Time ms</th><th class="num">Algorithm GB/s</th><th class="num">Bus GB/s</th><th>Result</th></tr>';
  const rows = report.results.map((r) => `<tr>${textElement('td', r.collective)}${textElement('td', sizeText(r.bytes), 'num')}${textElement('td', figure(r.medianSec * 1e3), 'num')}`
    + `${textElement('td', figure(r.algBwGBps), 'num')}${textElement('td', figure(r.busBwGBps), 'num')}`
    + `${r.correct ? textElement('td', 'checked', 'ok') : textElement('td', `WRONG on rank ${r.wrongRanks.join(', ')}`, 'error')}</tr>`);
  const caption = "busbw = algbw × 2(n−1)/n for all-reduce, × (n−1)/n for all-gather, × 1 for broadcast and send-recv (nccl-tests). Every rank's result is checked in every iteration.";
  return `<table class="collectives"><caption>${escapeHtml(caption)}</caption>${head}${rows.join('')}</table>`;
}

function p2pTable(p2p: P2pMatrix, devices: DeviceReport | null): string {
  const links = p2pLinks(p2p, devices);
  const names = p2p.devices.map((d) => `cuda:${d.index}`);
  const head = `<tr><th>from \\ to</th>${names.map((n) => textElement('th', n)).join('')}</tr>`;
  const rows = names.map((name, i) => `<tr>${textElement('th', name)}${names.map((_, j) => {
    if (i === j) return '<td class="topo-self">X</td>';
    const link = links[i][j];
    const noPeer = p2p.peerAccess[i][j] === false ? ' (no peer access)' : '';
    const title = `${name} → ${names[j]}: ${figure(p2p.gbps[i][j])} GB/s${link ? `, ${link.code}` : ''}${noPeer}`;
    return `<td class="num" title="${escapeHtml(title)}">${escapeHtml(`${figure(p2p.gbps[i][j])}${noPeer ? '*' : ''}`)}${link ? ` <span class="muted">${escapeHtml(link.code)}</span>` : ''}</td>`;
  }).join('')}</tr>`);
  const caption = `GB/s copying ${sizeText(p2p.bytes)} from the row's GPU to the column's (median of ${p2p.iters}); beside it, the pair's link in nvidia-smi topo -m; * no peer access.`;
  return `<table class="p2p"><caption>${escapeHtml(caption)}</caption>${head}${rows.join('')}</table>`;
}

export function renderCollectiveBody(state: CollectivePanelState): string {
  const parts = [statusLine(state.status)];
  const shown = state.shown;
  if (!shown) {
    if (state.status.kind === 'idle') parts.push(textElement('p', 'No collective benchmark yet: run "Device Doctor: Run Matmul Benchmark" and choose collective bandwidth.', 'status'));
    return parts.join('');
  }
  const { report } = shown;
  const when = new Date(shown.time).toISOString().replace('T', ' ').slice(0, 16);
  parts.push(
    `<section class="summary" aria-label="Summary"><p class="run-meta">${escapeHtml(`${when} UTC · ${shown.description}`)}</p>${headline(report)}${textElement('p', collectiveContext(report), 'headline-context')}</section>`,
    `<section aria-label="Bus bandwidth"><h2>Bus bandwidth against size</h2>${renderBusBandwidthChart(report)}</section>`,
    `<section aria-label="Measurements"><h2>Measurements</h2>${resultsTable(report)}</section>`,
  );
  if (report.p2p) parts.push(`<section aria-label="P2P"><h2>GPU to GPU copies (P2P)</h2>${p2pTable(report.p2p, state.devices)}</section>`);
  return parts.join('');
}
