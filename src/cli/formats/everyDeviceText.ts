// `bench --devices all` in a terminal: one table per pass (one at a time, then all at once), a
// row per device with its GFLOP/s, how far it is from the median of its peers, and its SM clock
// (median of the run, of its maximum), hottest temperature and median power during that run;
// then one line per device found slow, and one per failed run.
import { clockCell, powerCell, temperatureCell } from '../../core/bench/devices/conditionsText';
import type { DeviceRow, DeviceRun, EveryDeviceReport } from '../../core/bench/devices/everyDevice';
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

function passTable(rows: readonly DeviceRow[], pass: 'alone' | 'together'): string[] {
  const header = ['DEVICE', 'NAME', 'GFLOP/s', 'VS PEERS', 'SM CLOCK', 'TEMP', 'POWER'];
  const cells = rows.map((d) => {
    const run = pass === 'alone' ? d.alone : d.together;
    return [d.device, d.name ?? '-', speed(run), versus(pass === 'alone' ? d.aloneVerdict : d.togetherVerdict), clockCell(run), temperatureCell(run), powerCell(run)];
  });
  const all = [header, ...cells];
  const widths = header.map((_, c) => Math.max(...all.map((row) => row[c].length)));
  return all.map((row) => row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd());
}

export function formatEveryDeviceText(report: EveryDeviceReport): string {
  const failures = report.devices.flatMap((d) => [['alone', d.alone], ['all at once', d.together]].flatMap(([pass, run]) => ('error' in (run as DeviceRun) ? [`${d.device} (${pass}): ${(run as { error: string }).error}`] : [])));
  const judged = report.devices.some((d) => d.aloneVerdict !== null || d.togetherVerdict !== null);
  const verdict = report.findings.length > 0 ? report.findings
    : judged ? ['No device is more than 10 % below the median of its peers.'] : ['Fewer than two devices were measured: nothing to compare.'];
  return terminalLines([
    `Matmul on every device, n = ${report.size}, ${report.dtype}: each against the median of the others; clock, temperature and power during its own run`,
    '',
    'One at a time',
    ...passTable(report.devices, 'alone'),
    '',
    'All at once',
    ...passTable(report.devices, 'together'),
    '',
    ...verdict,
    ...failures,
  ]);
}
