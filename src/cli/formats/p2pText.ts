// The P2P matrix in a terminal: GB/s from the row's GPU to the column's, each cell beside the
// link nvidia-smi names for that pair (NV18, PXB, SYS, …), and a mark where torch says the
// pair has no peer access (its copies go through host memory).
import { p2pLinks, type P2pMatrix } from '../../core/bench/collectives/p2p';
import { significant } from '../../core/bench/numberText';
import type { DeviceReport } from '../../core/devices/report';
import { sizeText } from '../../core/bench/collectives/sizeText';

export function p2pLines(p2p: P2pMatrix, devices: DeviceReport | null): string[] {
  const links = p2pLinks(p2p, devices);
  const names = p2p.devices.map((d) => `cuda:${d.index}`);
  let noPeer = false;
  const cell = (i: number, j: number): string => {
    if (i === j) return 'X';
    const value = p2p.gbps[i][j];
    const peer = p2p.peerAccess[i][j] === false ? '*' : '';
    if (peer) noPeer = true;
    const link = links[i][j] ? ` ${links[i][j]!.code}` : '';
    return `${value === null ? '-' : significant(value, 3)}${peer}${link}`;
  };
  const rows = [['FROM \\ TO', ...names], ...names.map((name, i) => [name, ...names.map((_, j) => cell(i, j))])];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  const table = rows.map((row) => `  ${row.map((text, c) => (c === 0 ? text.padEnd(widths[c]) : text.padStart(widths[c]))).join('  ').trimEnd()}`);
  const kinds = new Set(p2p.devices.map((d) => d.name));
  const notes = [
    ...(links.some((row) => row.some((l) => l !== null)) ? ['  beside each figure: the pair\'s link in nvidia-smi topo -m'] : []),
    ...(noPeer ? ['  *: no peer access between the pair (torch.cuda.can_device_access_peer): the copy goes through host memory'] : []),
  ];
  return [`P2P copy bandwidth, GB/s (rank 0's node, ${[...kinds].join(', ')}; ${sizeText(p2p.bytes)} per copy, median of ${p2p.iters})`, ...table, ...notes];
}
