// `device-doctor detect [--json] [--python PATH] [--discover]`: the device report of PROBES.md.
//
// The probes run in this process, through the same detectDevices the worker serves:
// a CLI run is one-shot, so forking a worker would add a process and a protocol
// without adding isolation worth having (a crash ends the CLI either way), and the
// bundle stays one file. Every tool still runs as its own child with a timeout.
// Finding no GPU or no PyTorch is a result, so detect exits 0 unless the usage is wrong
// (its options are parsed in args.ts).
import { formatMemory } from '../../core/devices/format';
import type { Accelerator, DeviceReport, TorchStatus } from '../../core/devices/report';
import type { ProbeOptions } from '../../protocol/worker';
import { detectDevices, type DetectEnvironment } from '../../worker/detect/detect';
import { cliInterpreter } from '../../node/interpreter';
import { ProbeGate } from '../../worker/detect/probes/probeGate';
import { TorchProbeCache } from '../../worker/interpreters/probeCache';
import type { LogFn } from '../../worker/detect/probes/probeContext';
import type { DiscoveredInterpreter } from '../../core/interpreters/model';
import { findInterpreters, interpretersSection } from './interpreters';
import type { DetectOptions } from '../args';
import type { CliIo } from '../io';
import { topologyLines } from '../formats/topologyText';
import { terminalJson, terminalLines, terminalText } from '../formats/terminalText';

type ReportOptions = Pick<DetectOptions, 'python' | 'device' | 'timeoutSeconds' | 'verbose' | 'discover'>;

function timeoutMsOf(options: ReportOptions): number | undefined {
  return options.timeoutSeconds === undefined ? undefined : Math.round(options.timeoutSeconds * 1000);
}

function logFor(options: ReportOptions, io: CliIo): LogFn {
  return options.verbose ? (level, message) => io.stderr(`${level}: ${terminalText(message)}\n`) : () => undefined;
}

/**
 * Runs every probe in this process and returns the report; `gate` is shared with an interpreter
 * lookup running alongside; `torchProbeRun` hands over the PyTorch probe of a process already
 * started (bench's: torch imported once).
 */
export async function detectReport(
  options: ReportOptions,
  io: CliIo,
  signal?: AbortSignal,
  gate: ProbeGate = new ProbeGate(),
  torchProbeRun?: DetectEnvironment['torchProbeRun'],
  torchProbes?: TorchProbeCache,
): Promise<DeviceReport> {
  const probe: ProbeOptions = { pythonPath: cliInterpreter(options.python), pinnedDevice: options.device ?? null, timeoutMs: timeoutMsOf(options) };
  const outcome = await detectDevices(probe, { gate, env: process.env, platform: process.platform, log: logFor(options, io), torchProbeRun, torchProbes }, signal);
  return outcome.report;
}

/**
 * The report and, at the same time, every interpreter here with its PyTorch: one import per
 * interpreter, detect's own included (discovery finds it again; `torchProbeRun` as detectReport's).
 * The virtual environments under the current folder only with `discover` (interpreters.ts says why).
 */
export async function detectWithInterpreters(
  options: ReportOptions,
  io: CliIo,
  signal?: AbortSignal,
  torchProbeRun?: DetectEnvironment['torchProbeRun'],
): Promise<{ report: DeviceReport; interpreters: DiscoveredInterpreter[] }> {
  const gate = new ProbeGate();
  const cache = new TorchProbeCache();
  const [report, interpreters] = await Promise.all([
    detectReport(options, io, signal, gate, torchProbeRun, cache),
    findInterpreters({ cwd: io.cwd, gate, timeoutMs: timeoutMsOf(options), log: logFor(options, io), signal, cache, discover: options.discover }),
  ]);
  return { report, interpreters };
}

function pad(cells: string[][]): string[] {
  const widths = cells[0].map((_, column) => Math.max(...cells.map((row) => row[column].length)));
  return cells.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd());
}

function orDash(value: string | number | null, suffix = ''): string {
  return value === null ? '-' : `${value}${suffix}`;
}

function acceleratorTable(accelerators: Accelerator[]): string[] {
  if (accelerators.length === 0) return ['  none found'];
  const header = ['ID', 'NAME', 'MEMORY USED', 'UTIL', 'TEMP', 'DRIVER', 'CUDA'];
  const rows = accelerators.map((a) => [
    a.id,
    a.mig.length > 0 ? `${a.name} (MIG: ${a.mig.map((m) => m.profile).join(', ')})` : a.name,
    formatMemory(a.memory.usedBytes, a.memory.totalBytes),
    orDash(a.utilizationPercent, '%'),
    orDash(a.temperatureC, '°C'),
    orDash(a.driverVersion),
    orDash(a.cudaVersion),
  ]);
  // Escaped before padding, so that a name with control characters still lines up.
  return pad([header, ...rows.map((row) => row.map(terminalText))]).map((line) => `  ${line}`);
}

function torchLines(torch: TorchStatus | null): string[] {
  if (torch === null) return ['PyTorch    not probed (no interpreter may be run)'];
  if ('error' in torch) return [`PyTorch    not usable with ${torch.interpreter}: ${torch.error}`];
  const cuda = torch.cuda.built
    ? `CUDA ${torch.cuda.version ?? '?'} build, ${torch.cuda.available ? `${torch.cuda.deviceCount} device(s) available` : 'not available'}`
    : `${torch.hip ? `ROCm ${torch.hip}` : 'CPU-only'} build${torch.hip && torch.cuda.available ? `, ${torch.cuda.deviceCount} device(s) available` : ''}`;
  const mps = torch.mps.built ? `MPS ${torch.mps.available ? (torch.mps.allocates === false ? 'available but failing' : 'available') : 'not available'}` : 'no MPS';
  return [`PyTorch    ${torch.version} in ${torch.interpreter}`, `           ${cuda}; ${mps}`];
}

/**
 * The report as a person reads it in a terminal; with `interpreters`, the ones that have PyTorch
 * after it (`discovered`: the workspace's virtual environments were probed too, --discover).
 */
export function formatDetectText(report: DeviceReport, interpreters?: readonly DiscoveredInterpreter[], discovered = false): string {
  const { host } = report;
  const cpu = [host.cpu.model ?? 'unknown CPU', host.cpu.cores === null ? null : `${host.cpu.cores} cores`].filter(Boolean).join(', ');
  const usedHost = host.memory.totalBytes !== null && host.memory.freeBytes !== null ? host.memory.totalBytes - host.memory.freeBytes : null;
  const lines = [
    `Host       ${host.platform} ${host.arch}, ${cpu}`,
    ...(host.cpu.flags.length > 0 ? [`SIMD       ${host.cpu.flags.join(' ')}`] : []),
    `Memory     ${formatMemory(usedHost, host.memory.totalBytes)} used`,
    '',
    'Accelerators',
    ...acceleratorTable(report.accelerators),
    ...(report.topology ? ['', ...topologyLines(report.topology)] : []),
    '',
    ...torchLines(report.torch),
    `Selected   ${report.selected.device}: ${report.selected.reason}`,
  ];
  if (report.problems.length > 0) {
    lines.push('', 'Problems');
    for (const problem of report.problems) lines.push(`  ${problem.code}: ${problem.message}`, `    fix: ${problem.hint}`);
  }
  if (interpreters) lines.push('', ...interpretersSection(interpreters, report, 'detect', discovered));
  // Device names, versions and messages are what the tools and the user's Python said.
  return terminalLines(lines);
}

export async function runDetectCommand(options: DetectOptions, io: CliIo, signal?: AbortSignal): Promise<number> {
  if (options.json) {
    // PROBES.md's report, exactly: the interpreter list is for people (the text output).
    const report = await detectReport(options, io, signal);
    io.stdout(`${terminalJson(JSON.stringify(report, null, 2))}\n`);
    return 0;
  }
  const { report, interpreters } = await detectWithInterpreters(options, io, signal);
  io.stdout(formatDetectText(report, interpreters, options.discover === true));
  return 0;
}
