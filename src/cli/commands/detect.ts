// `device-doctor detect [--json] [--python PATH]`: the device report of PROBES.md.
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
import { detectDevices } from '../../worker/detect/detect';
import { cliInterpreter } from '../../node/interpreter';
import { ProbeGate } from '../../worker/detect/probes/probeGate';
import type { DetectOptions } from '../args';
import type { CliIo } from '../io';
import { topologyLines } from '../formats/topologyText';
import { terminalJson, terminalLines, terminalText } from '../formats/terminalText';

/** Runs every probe in this process and returns the report. */
export async function detectReport(options: Pick<DetectOptions, 'python' | 'device' | 'timeoutSeconds' | 'verbose'>, io: CliIo, signal?: AbortSignal): Promise<DeviceReport> {
  const probe: ProbeOptions = {
    pythonPath: cliInterpreter(options.python),
    pinnedDevice: options.device ?? null,
    timeoutMs: options.timeoutSeconds === undefined ? undefined : Math.round(options.timeoutSeconds * 1000),
  };
  const log = options.verbose ? (level: string, message: string) => io.stderr(`${level}: ${terminalText(message)}\n`) : () => undefined;
  const outcome = await detectDevices(probe, { gate: new ProbeGate(), env: process.env, platform: process.platform, log }, signal);
  return outcome.report;
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

/** The report as a person reads it in a terminal. */
export function formatDetectText(report: DeviceReport): string {
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
  // Device names, versions and messages are what the tools and the user's Python said.
  return terminalLines(lines);
}

export async function runDetectCommand(options: DetectOptions, io: CliIo, signal?: AbortSignal): Promise<number> {
  const report = await detectReport(options, io, signal);
  io.stdout(options.json ? `${terminalJson(JSON.stringify(report, null, 2))}\n` : formatDetectText(report));
  return 0;
}
