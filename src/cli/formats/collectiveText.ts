// `device-doctor bench --collective` as a person reads it: what ran (backend, ranks, device,
// torch), then one row per collective and size with nccl-tests' columns: the median time,
// the algorithm and the bus bandwidth, and whether every rank's result was right.
import type { CollectiveReport } from '../../core/bench/collectives/report';
import type { DeviceReport } from '../../core/devices/report';
import { p2pLines } from './p2pText';
import { sizeText } from '../../core/bench/collectives/sizeText';
import { terminalLines } from './terminalText';
import { significant } from '../../core/bench/numberText';

export { sizeText };

function figuresOrDash(value: number | null, digits = 3): string {
  return value === null ? '-' : significant(value, digits);
}

function pad(rows: string[][]): string[] {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  // The collective and the check read left to right; the numbers line up on the right.
  return rows.map((row) => row.map((cell, c) => (c === 0 || c === row.length - 1 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd());
}

export function collectiveHeadline(report: CollectiveReport): string {
  const where = report.device === 'cpu' ? `${report.worldSize} CPU processes` : `${report.worldSize} GPUs${report.deviceName ? ` (${report.deviceName})` : ''}`;
  return `${report.backend} on ${where}, torch ${report.torch}, ${report.dtype}; median of ${report.iters} timed iterations after ${report.warmup} warm-up${report.warmup === 1 ? '' : 's'}, each the slowest rank's`;
}

/** The collective table, then the P2P matrix beside the links the device report knows. */
export function formatCollectiveText(report: CollectiveReport, devices: DeviceReport | null = null): string {
  const header = ['COLLECTIVE', 'SIZE', 'TIME ms', 'ALGBW GB/s', 'BUSBW GB/s', 'RESULT'];
  const rows = report.results.map((r) => [
    r.collective,
    sizeText(r.bytes),
    figuresOrDash(r.medianSec * 1e3),
    figuresOrDash(r.algBwGBps),
    figuresOrDash(r.busBwGBps),
    r.correct ? 'ok' : `WRONG on rank ${r.wrongRanks.join(', ')}`,
  ]);
  const notes = ['', 'busbw = algbw × 2(n−1)/n for all-reduce, × (n−1)/n for all-gather, × 1 for broadcast and send-recv (nccl-tests).'];
  const p2p = report.p2p ? ['', ...p2pLines(report.p2p, devices)] : [];
  return terminalLines([collectiveHeadline(report), '', ...pad([header, ...rows]), ...notes, ...p2p]);
}
