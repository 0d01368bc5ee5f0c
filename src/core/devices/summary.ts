// `device-doctor doctor`: the device report as lines a person reads. The caller puts
// them under its own heading and indents them.
import { formatMemory } from './format';
import type { Accelerator, DeviceReport, TorchStatus } from './report';

function acceleratorLine(a: Accelerator): string {
  const parts = [`${a.id.padEnd(8)} ${a.name}`, formatMemory(a.memory.usedBytes, a.memory.totalBytes)];
  if (a.utilizationPercent !== null) parts.push(`${a.utilizationPercent}% busy`);
  if (a.temperatureC !== null) parts.push(`${a.temperatureC} °C`);
  const driver = [a.driverVersion && `driver ${a.driverVersion}`, a.cudaVersion && `CUDA ${a.cudaVersion}`].filter(Boolean).join(', ');
  if (driver) parts.push(driver);
  if (a.mig.length > 0) parts.push(`MIG: ${a.mig.map((instance) => instance.profile).join(', ')}`);
  return parts.join(' · ');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function torchLine(torch: TorchStatus | null): string {
  if (torch === null) return 'PyTorch  not checked (no Python interpreter to ask)';
  if ('error' in torch) return `PyTorch  not usable in ${torch.interpreter}: ${torch.error}`;
  const cuda = !torch.cuda.built
    ? 'no CUDA'
    : `${torch.hip ? `ROCm ${torch.hip}` : `CUDA ${torch.cuda.version ?? '?'}`} ${torch.cuda.available ? `available, ${plural(torch.cuda.deviceCount, 'device')}` : 'not available'}`;
  const mps = !torch.mps.built ? 'no MPS' : torch.mps.available ? (torch.mps.allocates === false ? 'MPS fails to allocate' : 'MPS available') : 'MPS not available';
  return `PyTorch  ${torch.version} in ${torch.interpreter}: ${cuda}; ${mps}`;
}

function problemLines(report: DeviceReport): string[] {
  if (report.problems.length === 0) return ['No problems found.'];
  const lines = [`${plural(report.problems.length, 'problem')}:`];
  for (const problem of report.problems) lines.push(`  ${problem.code}: ${problem.message}`, `    fix: ${problem.hint}`);
  return lines;
}

export function summarizeReport(report: DeviceReport): string[] {
  const devices = report.accelerators.length > 0 ? report.accelerators.map(acceleratorLine) : ['No GPU found.'];
  return [
    ...devices,
    torchLine(report.torch),
    `Selected ${report.selected.device} (${report.selected.reason})`,
    '',
    ...problemLines(report),
  ];
}
