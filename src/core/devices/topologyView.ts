// The topology as rows for the CLI and the editor: the GPU-by-GPU matrix of link codes (as
// nvidia-smi and rocm-smi print them), each GPU's affinity, and a legend of only the codes
// that occur. NICs are left out: the report is about the GPUs.
import { describeLink, type Topology, type TopologyDevice } from './topology';

export interface TopologyMatrix {
  gpus: TopologyDevice[];
  /** codes[i][j] for gpus i and j ("X" on the diagonal). */
  codes: string[][];
  /** "NV4: NVLink ×4", one per code that occurs off the diagonal. */
  legend: string[];
}

export function topologyMatrix(topology: Topology): TopologyMatrix {
  const indices = topology.devices.map((d, i) => (d.kind === 'gpu' ? i : -1)).filter((i) => i >= 0);
  const codes = indices.map((i) => indices.map((j) => topology.links[i][j].code));
  const legend = new Map<string, string>();
  for (const i of indices) for (const j of indices) if (i !== j) legend.set(topology.links[i][j].code, describeLink(topology.links[i][j]));
  return { gpus: indices.map((i) => topology.devices[i]), codes, legend: [...legend].map(([code, what]) => `${code}: ${what}`) };
}
