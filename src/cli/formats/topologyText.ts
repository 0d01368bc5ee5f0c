// The device report's topology section in a terminal: nvidia-smi's matrix, GPUs only, with
// each GPU's CPU and NUMA affinity and a legend of the codes present.
import { topologySummary, type Topology } from '../../core/devices/topology';
import { topologyMatrix } from '../../core/devices/topologyView';

export function topologyLines(topology: Topology): string[] {
  const { gpus, codes, legend } = topologyMatrix(topology);
  const rows = [['', ...gpus.map((g) => g.name), 'CPU AFFINITY', 'NUMA'], ...gpus.map((g, i) => [g.name, ...codes[i], g.cpuAffinity ?? '-', g.numaAffinity ?? '-'])];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  const table = rows.map((row) => `  ${row.map((cell, c) => cell.padEnd(widths[c])).join('  ').trimEnd()}`);
  return [`Topology (${topology.source}): ${topologySummary(topology)}`, ...table, `  ${legend.join('; ')}`];
}
