// The status bar item as a pure function: a device snapshot in; text, colour and a Markdown
// tooltip out (rust-analyzer's updateStatusBarItem, as plain data so it is testable without
// VS Code). statusBar.ts applies the result to the one item.
import { formatMemory } from '../../core/devices/format';
import type { DeviceReport } from '../../core/devices/report';
import { COMMANDS, type CommandId } from '../shared/commandIds';
import { torchCapability } from '../../core/interpreters/capability';
import {
  acceleratorMemory, describeTorch, findAccelerator, gpuPresentButUnusable, hostMemory, memoryPercent,
  selectedMemory, shortDeviceName, torchCanUseAccelerator,
} from './deviceSnapshot';
import type { DeviceSnapshot, MemoryReading } from './deviceSnapshot';
import { processTooltipLines } from './gpuProcessViews';
import { escapeMarkdown, markdownTable } from '../shared/markdown';
import { inTheEditor } from '../../core/interpreters/choiceWays';

export interface StatusBarOptions {
  /** `deviceDoctor.statusBar.memoryWarningPercent` */
  memoryWarningPercent: number;
}

export interface StatusBarView {
  text: string;
  /** Markdown; only `enabledCommands` may run from its links. */
  tooltip: string;
  background: 'warning' | 'error' | undefined;
  accessibilityLabel: string;
  /** What a click runs: the device report, or Choose Interpreter when PyTorch is missing. */
  command: CommandId;
}

/** The commands the tooltip links to: exactly these are trusted in it. */
export const TOOLTIP_COMMANDS = [COMMANDS.detect, COMMANDS.selectDevice, COMMANDS.chooseInterpreter, COMMANDS.showLog, COMMANDS.restartWorker] as const;

export const GPU_UNUSABLE_TEXT = "GPU present, PyTorch can't use it";

export function renderStatusBar(snapshot: DeviceSnapshot, options: StatusBarOptions): StatusBarView {
  return { command: COMMANDS.showDeviceReport, ...renderState(snapshot, options) };
}

/** "python3" for /usr/bin/python3: the status bar is narrow; the tooltip names the whole path. */
function interpreterName(interpreter: string): string {
  return stripIcons(interpreter.split(/[\\/]/).pop() || interpreter);
}

/** The interpreter in use when it has no PyTorch at all (not a hang nor a broken install: the report explains those). */
export function interpreterWithoutTorch(report: DeviceReport): string | null {
  const torch = report.torch;
  return torch !== null && 'error' in torch && torchCapability(torch, report.accelerators).kind === 'no-torch' ? torch.interpreter : null;
}

function renderState(snapshot: DeviceSnapshot, options: StatusBarOptions): Omit<StatusBarView, 'command'> & { command?: CommandId } {
  const tooltip = renderTooltip(snapshot, options);
  if (snapshot.workerStopped !== null) {
    return { text: '$(error) Device Doctor: worker stopped', tooltip, background: 'error', accessibilityLabel: 'Device Doctor: the worker is stopped' };
  }
  const report = snapshot.report;
  if (report === null) {
    if (snapshot.probing) return { text: '$(sync~spin) Detecting devices…', tooltip, background: undefined, accessibilityLabel: 'Device Doctor: detecting devices' };
    if (snapshot.detectError !== null) return { text: '$(warning) Device detection failed', tooltip, background: 'warning', accessibilityLabel: 'Device Doctor: device detection failed' };
    return { text: '$(chip) Device Doctor', tooltip, background: undefined, accessibilityLabel: 'Device Doctor' };
  }
  const busy = snapshot.probing ? '$(sync~spin)' : undefined;
  const withoutTorch = interpreterWithoutTorch(report);
  if (withoutTorch !== null) {
    const text = `No PyTorch in ${interpreterName(withoutTorch)}`;
    return { text: `${busy ?? '$(warning)'} ${text}`, tooltip, background: 'warning', accessibilityLabel: `Device Doctor: ${text}; click to choose an interpreter`, command: COMMANDS.chooseInterpreter };
  }
  if (gpuPresentButUnusable(report)) {
    return { text: `${busy ?? '$(warning)'} ${GPU_UNUSABLE_TEXT}`, tooltip, background: 'warning', accessibilityLabel: `Device Doctor: ${GPU_UNUSABLE_TEXT}` };
  }
  const label = deviceLabel(report);
  const memory = selectedMemory(snapshot, report);
  const memoryText = memory.usedBytes === null && memory.totalBytes === null ? '' : ` · ${formatMemory(memory.usedBytes, memory.totalBytes)}`;
  const percent = memoryPercent(memory);
  const full = percent !== null && percent >= options.memoryWarningPercent;
  return {
    text: `${busy ?? '$(chip)'} ${label}${memoryText}`,
    tooltip,
    background: full ? 'warning' : undefined,
    accessibilityLabel: `Device Doctor: ${label}${memoryText ? `, ${formatMemory(memory.usedBytes, memory.totalBytes)} used` : ''}${full ? ', memory almost full' : ''}`,
  };
}

/** "cuda:0 H200", "MPS", "CPU". */
export function deviceLabel(report: DeviceReport): string {
  const id = report.selected.device;
  if (id === 'cpu') return 'CPU';
  if (id === 'mps') return 'MPS';
  const accelerator = findAccelerator(report, id);
  return stripIcons(accelerator ? `${id} ${shortDeviceName(accelerator.name)}` : id);
}

/** A device name must not turn into a status bar icon: `$(…)` is icon syntax there. */
function stripIcons(text: string): string {
  return text.replace(/\$\(/g, '$ (');
}

function renderTooltip(snapshot: DeviceSnapshot, options: StatusBarOptions): string {
  const sections: string[] = ['**Device Doctor**'];
  if (snapshot.workerStopped !== null) sections.push(`$(error) ${escapeMarkdown(snapshot.workerStopped)}`);
  if (snapshot.probing) sections.push('$(sync~spin) Detecting devices…');
  if (snapshot.detectError !== null) sections.push(`$(warning) ${escapeMarkdown(snapshot.detectError)}`);
  const report = snapshot.report;
  if (report) sections.push(...reportSections(snapshot, report, options));
  else if (!snapshot.probing) sections.push('No device report yet.');
  if (snapshot.interpreter?.pythonPath === null) sections.push(`$(shield) ${escapeMarkdown(snapshot.interpreter.note)}`);
  for (const problem of snapshot.workerProblems) sections.push(`$(warning) ${escapeMarkdown(`${problem.source}: ${problem.message}`)}`);
  sections.push(commandLinks());
  return sections.join('\n\n');
}

function reportSections(snapshot: DeviceSnapshot, report: DeviceReport, options: StatusBarOptions): string[] {
  const sections = [`Selected: **${escapeMarkdown(report.selected.device)}** — ${escapeMarkdown(report.selected.reason)}`];
  const rows = report.accelerators.map((a) => deviceRow(`${a.id} ${a.name}`, acceleratorMemory(snapshot, a), a.temperatureC, options));
  const cpu = report.host.cpu;
  const cpuName = `cpu ${cpu.model ?? 'CPU'}${cpu.cores !== null ? ` (${cpu.cores} cores)` : ''}`;
  rows.push(deviceRow(cpuName, hostMemory(snapshot, report), null, options));
  sections.push(markdownTable(['Device', 'Memory', 'Utilization', 'Temperature'], rows));
  const processes = processTooltipLines(snapshot.processes);
  if (processes) sections.push(processes);
  sections.push(escapeMarkdown(describeTorch(report.torch)));
  if (report.torch !== null && !torchCanUseAccelerator(report.torch) && (report.accelerators.length > 0 || interpreterWithoutTorch(report) !== null)) {
    sections.push(`$(python) [Choose Interpreter](command:${COMMANDS.chooseInterpreter} "Choose Interpreter"): ${report.accelerators.length > 0 ? 'another Python may have a PyTorch that can use the GPU' : 'another Python may have PyTorch installed'}`);
  }
  if (report.problems.length > 0) {
    sections.push(report.problems.map((p) => `- $(warning) ${escapeMarkdown(p.message)}${p.hint ? ` — ${escapeMarkdown(inTheEditor(p.hint))}` : ''}`).join('\n'));
  }
  return sections;
}

function deviceRow(name: string, memory: MemoryReading, temperatureC: number | null, options: StatusBarOptions): string[] {
  const percent = memoryPercent(memory);
  const warn = percent !== null && percent >= options.memoryWarningPercent ? '$(warning) ' : '';
  const known = memory.usedBytes !== null || memory.totalBytes !== null;
  return [
    escapeMarkdown(name),
    known ? `${warn}${escapeMarkdown(formatMemory(memory.usedBytes, memory.totalBytes))}` : '—',
    memory.utilizationPercent === null ? '—' : `${memory.utilizationPercent}%`,
    temperatureC === null ? '—' : `${temperatureC} °C`,
  ];
}

function commandLinks(): string {
  const link = (title: string, command: string) => `[${title}](command:${command} "${title}")`;
  return [
    link('Detect Accelerators', COMMANDS.detect),
    link('Select Device', COMMANDS.selectDevice),
    link('Choose Interpreter', COMMANDS.chooseInterpreter),
    link('Show Log', COMMANDS.showLog),
    link('Restart Worker', COMMANDS.restartWorker),
  ].join(' · ');
}
