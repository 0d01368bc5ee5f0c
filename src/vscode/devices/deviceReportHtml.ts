// The device report view as HTML, from a pure function: the page shell with its strict CSP, and
// the body that is swapped in whenever a new report arrives. Everything from the report is
// escaped. Live memory is sent separately (memoryUpdates) so the page is not rebuilt every tick.
import { formatMemory } from '../../core/devices/format';
import type { Accelerator, DeviceReport, Problem, TorchStatus } from '../../core/devices/report';
import { acceleratorMemory, describeTorch, hostMemory, memoryPercent } from './deviceSnapshot';
import type { DeviceSnapshot, MemoryReading } from './deviceSnapshot';
import type { HistoryResponse } from '../../protocol/worker';
import { processTableHtml } from './gpuProcessViews';
import { renderSparkline } from './sparkline';
import { escapeHtml, facts, textElement, webviewPage } from '../shared/html';
import type { PageResources } from '../shared/html';
import { topologyHtml } from './topologyHtml';
import { inTheEditor } from '../../core/interpreters/choiceWays';

export const REPORT_TITLE = 'Device Report';

export interface ReportOptions {
  memoryWarningPercent: number;
}

/** Buttons in the page: each posts `{type}`; the extension accepts exactly these. */
export const REPORT_ACTIONS = {
  detect: 'Detect Again',
  selectDevice: 'Select Device',
  chooseInterpreter: 'Choose Interpreter',
  copyJson: 'Copy report as JSON',
  showLog: 'Show Log',
} as const;
export type ReportAction = keyof typeof REPORT_ACTIONS;


export function renderReportPage(snapshot: DeviceSnapshot, options: ReportOptions, resources: PageResources): string {
  const buttons = (Object.keys(REPORT_ACTIONS) as ReportAction[])
    .map((action) => `<button type="button" data-action="${action}">${escapeHtml(REPORT_ACTIONS[action])}</button>`)
    .join('');
  return webviewPage({ title: REPORT_TITLE, resources, actionsHtml: buttons, mainId: 'report', bodyHtml: renderReportBody(snapshot, options) });
}

export function renderReportBody(snapshot: DeviceSnapshot, options: ReportOptions): string {
  const parts: string[] = [statusLine(snapshot)];
  const report = snapshot.report;
  if (report) {
    parts.push(selectedSection(report), problemsSection(report.problems));
    parts.push(section('Accelerators', report.accelerators.length
      ? report.accelerators.map((a) => acceleratorCard(a, acceleratorMemory(snapshot, a), options)).join('')
      : '<p>No GPU or other accelerator was found on this machine.</p>'));
    if (report.topology) parts.push(section('Topology', topologyHtml(report.topology)));
    if (report.accelerators.some((a) => a.vendor === 'nvidia' || a.vendor === 'amd')) parts.push(section('Processes using the GPU', processTableHtml(snapshot.processes)));
    parts.push(section('PyTorch', torchDetails(report.torch)));
    parts.push(section('Host', hostDetails(report, hostMemory(snapshot, report), options)));
  }
  if (snapshot.interpreter) parts.push(section('Interpreter', textElement('p', snapshot.interpreter.note)));
  if (snapshot.workerProblems.length) {
    parts.push(section('Worker', `<ul>${snapshot.workerProblems.map((p) => textElement('li', `${p.source}: ${p.message}`)).join('')}</ul>`));
  }
  return parts.filter(Boolean).join('\n');
}

export interface MemoryUpdate {
  id: string;
  text: string;
  used: number | null;
  total: number | null;
  warn: boolean;
}

/** Live memory for the page's meters, keyed by the ids in `data-memory-id`. */
export function memoryUpdates(snapshot: DeviceSnapshot, options: ReportOptions): MemoryUpdate[] {
  const report = snapshot.report;
  if (!report) return [];
  const readings = report.accelerators.map((a) => [a.id, acceleratorMemory(snapshot, a)] as const);
  readings.push(['host', hostMemory(snapshot, report)]);
  return readings.map(([id, m]) => {
    const percent = memoryPercent(m);
    return { id, text: memoryText(m), used: m.usedBytes, total: m.totalBytes, warn: percent !== null && percent >= options.memoryWarningPercent };
  });
}

function statusLine(snapshot: DeviceSnapshot): string {
  if (snapshot.workerStopped) return textElement('p', snapshot.workerStopped, 'status error');
  if (snapshot.probing) return textElement('p', 'Detecting devices…', 'status busy');
  if (snapshot.detectError) return textElement('p', `Detection failed: ${snapshot.detectError}`, 'status error');
  if (!snapshot.report) return textElement('p', 'No device report yet: run Detect Again.', 'status');
  return '';
}

function section(title: string, content: string): string {
  return `<section><h2>${escapeHtml(title)}</h2>${content}</section>`;
}

function selectedSection(report: DeviceReport): string {
  return section('Selected device', `<p><strong class="device-id">${escapeHtml(report.selected.device)}</strong> — ${escapeHtml(report.selected.reason)}</p>`);
}

function problemsSection(problems: Problem[]): string {
  if (problems.length === 0) return section('Problems', '<p class="ok">None found.</p>');
  const items = problems.map((p) => `<li class="problem">${textElement('p', p.message, 'message')}${p.hint ? textElement('p', inTheEditor(p.hint), 'hint') : ''}`
    + `<p class="code">${escapeHtml(p.source)} · <code>${escapeHtml(p.code)}</code></p></li>`);
  return section('Problems', `<ul class="problems">${items.join('')}</ul>`);
}

/** "20.0/140.4 GiB · 37% utilization": the live part of a device, updated in place. */
function memoryText(memory: MemoryReading): string {
  const utilization = memory.utilizationPercent === null ? '' : ` · ${memory.utilizationPercent}% utilization`;
  return `${formatMemory(memory.usedBytes, memory.totalBytes)}${utilization}`;
}

function memoryBlock(id: string, memory: MemoryReading, options: ReportOptions): string {
  const text = memoryText(memory);
  const percent = memoryPercent(memory);
  // <meter> needs no inline style (the CSP allows none) and reads out as a gauge.
  const meter = memory.totalBytes !== null && memory.totalBytes > 0
    ? `<meter data-memory-id="${escapeHtml(id)}" min="0" max="${memory.totalBytes}" value="${memory.usedBytes ?? 0}" low="${Math.round(memory.totalBytes * 0.7)}" `
      + `high="${Math.round((memory.totalBytes * options.memoryWarningPercent) / 100)}" optimum="0" aria-label="memory used">${escapeHtml(text)}</meter>`
    : '';
  const warn = percent !== null && percent >= options.memoryWarningPercent ? ' warn' : '';
  return `<div class="memory">${meter}<span class="memory-text${warn}" data-memory-id="${escapeHtml(id)}">${escapeHtml(text)}</span></div>`;
}

function acceleratorCard(a: Accelerator, memory: MemoryReading, options: ReportOptions): string {
  const mig = a.mig.length
    ? `<h4>MIG instances</h4><ul>${a.mig.map((m) => textElement('li', `${m.profile} · device ${m.deviceIndex} · ${m.uuid}`)).join('')}</ul>`
    : '';
  return `<article class="device">${textElement('h3', `${a.id} · ${a.name}`)}${memoryBlock(a.id, memory, options)}${historySlot(a.id)}${facts([
    ['Vendor / API', `${a.vendor} / ${a.api}`],
    ['Temperature', a.temperatureC === null ? null : `${a.temperatureC} °C`],
    ['Power', a.powerW === null ? null : `${a.powerW} W`],
    ['Driver', a.driverVersion],
    ['CUDA (driver supports)', a.cudaVersion],
    ['UUID', a.uuid],
    ['PCI bus', a.pciBusId],
  ])}${mig}</article>`;
}

function torchDetails(torch: TorchStatus | null): string {
  const summary = textElement('p', describeTorch(torch));
  if (torch === null || 'error' in torch) return summary;
  const devices = torch.cuda.devices?.length
    ? `<ul>${torch.cuda.devices.map((d) => textElement('li', `cuda:${d.index} · ${d.name}${d.capability ? ` · compute ${d.capability.join('.')}` : ''}`)).join('')}</ul>`
    : '';
  return summary + facts([
    ['Interpreter', torch.interpreter],
    ['Version', torch.version],
    ['CUDA built / available', `${yesNo(torch.cuda.built)} / ${yesNo(torch.cuda.available)}`],
    ['CUDA version', torch.cuda.version],
    ['cuDNN', torch.cuda.cudnnVersion],
    ['ROCm (HIP)', torch.hip],
    ['MPS built / available', `${yesNo(torch.mps.built)} / ${yesNo(torch.mps.available)}`],
    // An allocation test only means something where MPS is built.
    ['MPS allocation', !torch.mps.built || torch.mps.allocates === undefined ? null : torch.mps.allocates ? 'works' : `fails${torch.mps.error ? `: ${torch.mps.error}` : ''}`],
    ['Current accelerator', torch.currentAccelerator],
    ['CUDA_VISIBLE_DEVICES', torch.cudaVisibleDevices],
  ]) + devices;
}

function hostDetails(report: DeviceReport, memory: MemoryReading, options: ReportOptions): string {
  const { cpu } = report.host;
  return memoryBlock('host', memory, options) + historySlot('cpu') + facts([
    ['Platform', `${report.host.platform} (${report.host.arch})`],
    ['CPU', cpu.model],
    ['Cores', cpu.cores],
    ['SIMD', cpu.flags.length ? cpu.flags.join(' ') : null],
  ]);
}

/** Where the sparkline goes; filled by a 'history' message, so a new sample does not rebuild the page. */
function historySlot(id: string): string {
  return `<div class="history" data-history-id="${escapeHtml(id)}"></div>`;
}

export interface HistoryUpdate {
  id: string;
  html: string;
}

/** A sparkline for every device of the report (the host as "cpu"), empty history included. */
export function historyUpdates(snapshot: DeviceSnapshot, history: HistoryResponse): HistoryUpdate[] {
  const report = snapshot.report;
  if (!report) return [];
  const devices = [...report.accelerators.map((a) => ({ id: a.id, label: `${a.id} ${a.name}` })), { id: 'cpu', label: 'Host CPU and memory' }];
  return devices.map(({ id, label }, i) => ({
    id,
    html: renderSparkline(history.series[id] ?? [], { windowMs: history.windowMs, now: history.now, idPrefix: `spark-${i}`, label }),
  }));
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}
