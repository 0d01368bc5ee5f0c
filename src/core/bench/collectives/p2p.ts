// The P2P matrix of a collective report: rank 0's copy bandwidth from every GPU of its node to
// every other (collectives.py --p2p), checked field by field, and each pair matched to its
// link in the device report's topology. CUDA numbers GPUs fastest first unless
// CUDA_DEVICE_ORDER=PCI_BUS_ID, nvidia-smi by PCI bus, so a pair is matched by bus id (or
// uuid), never by index; a GPU the report does not list has no link to show.
import type { DeviceReport } from '../../devices/report';
import type { TopologyLink } from '../../devices/topology';

export interface P2pDevice {
  /** CUDA's index (torch.device("cuda", index)). */
  index: number;
  name: string;
  uuid: string | null;
  pciBusId: string | null;
}

export interface P2pMatrix {
  /** Bytes per copy. */
  bytes: number;
  iters: number;
  devices: P2pDevice[];
  /** gbps[i][j]: GB/s (1e9 B/s) copying from cuda:i to cuda:j; null on the diagonal. */
  gbps: (number | null)[][];
  /** torch.cuda.can_device_access_peer(i, j); null on the diagonal or when torch could not say. */
  peerAccess: (boolean | null)[][];
}

/** Why the value is not a P2P matrix, or null. */
export function p2pProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'p2p is not a JSON object';
  const p = value as Record<string, unknown>;
  if (!Number.isSafeInteger(p.bytes) || (p.bytes as number) < 1) return 'p2p.bytes must be a whole number >= 1';
  if (!Number.isSafeInteger(p.iters) || (p.iters as number) < 1) return 'p2p.iters must be a whole number >= 1';
  const devices = p.devices;
  if (!Array.isArray(devices) || devices.length < 2) return 'p2p.devices must list two GPUs or more';
  for (const [k, d] of devices.entries()) {
    const fields = (typeof d === 'object' && d !== null ? d : {}) as Record<string, unknown>;
    if (fields.index !== k || typeof fields.name !== 'string') return `p2p.devices[${k}] must be {index: ${k}, name, uuid, pciBusId}`;
    if ((fields.uuid !== null && typeof fields.uuid !== 'string') || (fields.pciBusId !== null && typeof fields.pciBusId !== 'string')) return `p2p.devices[${k}]'s uuid and pciBusId must be strings or null`;
  }
  const n = devices.length;
  const square = (m: unknown, cell: (v: unknown, i: number, j: number) => boolean) =>
    Array.isArray(m) && m.length === n && m.every((row, i) => Array.isArray(row) && row.length === n && row.every((v, j) => cell(v, i, j)));
  const bandwidth = (v: unknown, i: number, j: number) => (i === j ? v === null : v === null || (typeof v === 'number' && Number.isFinite(v) && v > 0));
  if (!square(p.gbps, bandwidth)) return `p2p.gbps must be ${n}×${n} bandwidths > 0 (null on the diagonal)`;
  if (!square(p.peerAccess, (v, i, j) => v === null || (i !== j && typeof v === 'boolean'))) return `p2p.peerAccess must be ${n}×${n} booleans (null on the diagonal)`;
  return null;
}

// nvidia-smi writes 00000000:1A:00.0 and GPU-<uuid>; torch may write 0000:1a:00.0 and the bare uuid.
const busId = (id: string | null) => (id === null ? null : id.toUpperCase().replace(/^0000(?=[0-9A-F]{4}:)/, ''));
const uuidOf = (id: string | null) => (id === null ? null : id.toLowerCase().replace(/^gpu-/, ''));

/**
 * links[i][j]: the topology's link between cuda:i and cuda:j, matched through the report's
 * accelerators (nvidia-smi's order is the topology's GPU0, GPU1, …); null where unknown.
 */
export function p2pLinks(p2p: P2pMatrix, report: DeviceReport | null): (TopologyLink | null)[][] {
  const n = p2p.devices.length;
  const none = () => Array.from({ length: n }, () => Array<TopologyLink | null>(n).fill(null));
  const topology = report?.topology;
  if (!topology) return none();
  const nvidia = report.accelerators.filter((a) => a.vendor === 'nvidia');
  const toolIndex = p2p.devices.map((d) => {
    const k = nvidia.findIndex((a) => (d.uuid !== null && uuidOf(a.uuid) === uuidOf(d.uuid)) || (d.pciBusId !== null && busId(a.pciBusId) === busId(d.pciBusId)));
    return k < 0 ? null : topology.devices.findIndex((t) => t.kind === 'gpu' && t.name === `GPU${k}`);
  });
  return p2p.devices.map((_, i) => p2p.devices.map((__, j) => {
    const a = toolIndex[i];
    const b = toolIndex[j];
    return a === null || b === null || a < 0 || b < 0 || i === j ? null : topology.links[a][b];
  }));
}
