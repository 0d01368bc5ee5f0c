// `bench --devices all` in a terminal: one row per device, its GFLOP/s alone and with every
// device running at once, how far each is from the median of its peers, its temperature and
// power after the runs, then one line per device found slow.
import type { DeviceRun, EveryDeviceReport } from '../../core/bench/devices/everyDevice';
import type { DeviceVerdict } from '../../core/bench/devices/slowDevices';
import { significant } from '../../core/bench/numberText';
import { terminalLines } from './terminalText';

const speed = (run: DeviceRun) => ('gflops' in run ? significant(run.gflops, 4) : 'failed');
function versus(v: DeviceVerdict | null): string {
  if (v === null || v.belowPeers === null) return '-';
  const percent = Math.round(v.belowPeers * 100);
  // belowPeers > 0 is slower than the peers: shown as a minus, like a drop.
  const sign = percent > 0 ? '−' : percent < 0 ? '+' : '';
  return `${sign}${Math.abs(percent)} %${v.slow ? ' SLOW' : ''}`;
}

export function formatEveryDeviceText(report: EveryDeviceReport): string {
  const header = ['DEVICE', 'NAME', 'ALONE GFLOP/s', 'VS PEERS', 'ALL AT ONCE', 'VS PEERS', 'TEMP', 'POWER'];
  const rows = report.devices.map((d) => [
    d.device, d.name ?? '-', speed(d.alone), versus(d.aloneVerdict), speed(d.together), versus(d.togetherVerdict),
    d.temperatureC === null ? '-' : `${d.temperatureC}°C`, d.powerW === null ? '-' : `${d.powerW} W`,
  ]);
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((row) => row[c].length)));
  const table = all.map((row) => row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd());
  const failures = report.devices.flatMap((d) => [['alone', d.alone], ['all at once', d.together]].flatMap(([pass, run]) => ('error' in (run as DeviceRun) ? [`${d.device} (${pass}): ${(run as { error: string }).error}`] : [])));
  const judged = report.devices.some((d) => d.aloneVerdict !== null || d.togetherVerdict !== null);
  const verdict = report.findings.length > 0 ? report.findings
    : judged ? ['No device is more than 10 % below the median of its peers.'] : ['Fewer than two devices were measured: nothing to compare.'];
  return terminalLines([
    `Matmul on every device, n = ${report.size}, ${report.dtype}: one at a time, then all at once; each against the median of the others`,
    '',
    ...table,
    '',
    ...verdict,
    ...failures,
  ]);
}
